"""Step 1, save: the user's words are committed before any model is called — **commit #1**.

No model runs here, so nothing a model does can delay or lose the message. Recover what a
crashed earlier turn left (its accepted message first, core/turn/recovery.py); recover the active
slice; decide whether it closes (time cap, turn count, context lost — or no room left in its
core.md for this message: a `capacity` close instead of a refusal); close it with the
deterministic mark (the close step refines it); open a slice at the first free minute or
continue the active one; append the user's turn; queue the monthly entry and, for a new slice,
the catalog entries; commit; then `turn.started`.

Two writers (threads, or two `previously serve` on one folder) must never leave two active
slices. The commit's updates are evaluated on the files as they are then (under the local
folder's lock, or on GitHub's new head after a conflict), and they refuse with `ConflictError`
when another writer got there first: the slice continued or closed here was closed meanwhile,
or the catalog lists an active slice this save did not see. The retried save then sees the
other writer's slice and continues it.
"""

from __future__ import annotations

from datetime import datetime

from core.clock import iso
from core.errors import ConflictError
from core.media.attach import queue_images, turn_text
from core.memory.card.snapshot import ensure_snapshot
from core.memory.catalog.weave import upsert_monthly_entry
from core.memory.paths import core_md
from core.memory.slice.merge import SliceEdit, append_turn, create_slice, edit_slice, has_turn
from core.memory.slice.model import Slice, Turn, parse_core_md
from core.memory.slice.slicer import (
    ActiveSlice,
    ClientView,
    close_signal,
    new_slice_id,
    open_slice,
    overflows,
)
from core.memory.slice.slicer import slice_taken as taken
from core.storage.base import WriteBatch
from core.turn.closing import (
    active_ids,
    close_edit,
    ensure_catalog,
    read_slice,
    recover_active,
    upsert_catalog,
)
from core.turn.deps import TurnDeps
from core.turn.events import EventSink, turn_started
from core.turn.state import Prepared, StepState
from core.turn.steps.common import (
    PREPARED_KEY,
    load_prepared,
    load_request,
    locale_of,
    resolve_models,
    sink_of,
    user_config,
)


def save(state: StepState, deps: TurnDeps) -> StepState:
    """Commit the user's message (idempotent: a retry after the commit only re-announces the turn).

    First, what a crashed earlier turn left is recovered (core/turn/recovery.py), so its
    accepted message lands before this one."""
    from core.turn.recovery import recover_before  # recovery imports this module

    recover_before(deps, state.turn_id)
    prepared = saved_record(deps, state.turn_id) or commit_user_message(deps, state.turn_id)
    announce(deps, sink_of(deps, state, "save"), prepared)
    common = {"slice_id": prepared.slice_id, "closed_slice_id": prepared.slice_closed, "round": 0}
    return state.then("analyze", **common)


def saved_record(deps: TurnDeps, turn_id: str) -> Prepared | None:
    """The recorded outcome, if commit #1 landed (the user's turn is in its slice)."""
    record = load_prepared(deps, turn_id)
    if record is None:
        return None
    text = deps.storage.snapshot().read(core_md(record.slice_id))
    user = Turn(turn_id, "", "user", "")
    return record if text is not None and has_turn(parse_core_md(text), user) else None


def commit_user_message(deps: TurnDeps, turn_id: str) -> Prepared:
    """Write the user's turn (and the close / open it causes) as one commit; what was decided."""
    request = load_request(deps, turn_id)
    batch = WriteBatch.open(deps.storage)
    config = user_config(batch)
    now = deps.clock.now()
    locale = locale_of(request, config)
    ensure_catalog(batch, now, locale)
    active = recover_active(batch, now)
    # The message word for word, then a link line per picture saved with it (core/media/attach.py).
    text = turn_text(request.message, turn_id, request.attachments)
    turn = Turn(turn_id, iso(now), "user", text)
    signal = None
    if active is not None and not has_turn(active.slice, turn):
        client = ClientView(request.client_slice_id, request.agent_turns_seen)
        signal = close_signal(active.slice, now, config, client)
        if signal is None and overflows(batch.read(active.path), turn):
            signal = "capacity"
    closed = None
    if active is not None and signal is not None:
        closed, active = _close(batch, active, signal, now, locale), None
    if active is not None:
        slice_id = active.slice.slice_id
        create = active.slice if active.legacy else None
        append_turn(turn, iso(now), create=create, edit=_must_be_open).queue(batch, slice_id)
    else:
        slice_id = new_slice_id(now, lambda candidate: taken(batch, candidate))
        new = open_slice(text, request.timezone or "UTC", turn_id, now, slice_id)
        create_slice(new, iso(now)).queue(batch, slice_id)
    _index(batch, read_slice(batch, slice_id), closed, created=active is None, now=now, locale=locale)
    ensure_snapshot(batch, slice_id, deps.clock)
    queue_images(batch, slice_id, turn_id, request.attachments)  # in commit #1, with the words
    models = resolve_models(deps, request, config)
    prepared = Prepared(
        slice_id, active is None, closed, turn_id, models is None, request.timezone or "UTC", locale
    )
    # Recorded before the commit: a retry finds it and, once the turn is in memory, trusts it.
    deps.run_store.put(turn_id, PREPARED_KEY, prepared.to_json())
    batch.commit(f"Turn {turn_id} — user message")
    return prepared


def _close(batch: WriteBatch, active: ActiveSlice, signal: str, now: datetime, locale: str) -> str:
    """Close the slice with the deterministic mark; the close step adds the model's marking."""
    create = active.slice if active.legacy else None  # a legacy flat file is closed into a folder
    edit_slice(_closing(signal, now, locale), iso(now), create=create).queue(batch, active.slice.slice_id)
    return active.slice.slice_id


def _index(
    batch: WriteBatch, current: Slice, closed: str | None, *, created: bool, now: datetime, locale: str
) -> None:
    """The monthly entry always; for a new slice, the catalog entries (with the closed one's)."""
    upsert_monthly_entry(batch, current)
    if created:
        done = [read_slice(batch, closed)] if closed is not None else []
        # Refused if another writer opened a slice meanwhile: the retry continues that one.
        upsert_catalog(batch, [*done, current], now, locale, known_active=active_ids(batch))


def _must_be_open(s: Slice) -> Slice | None:
    """A slice edit refusing a slice someone else closed since this save read it."""
    if s.closed:
        raise ConflictError(
            f"Slice {s.slice_id} was closed by another writer while this message was being saved; "
            "saving it again."
        )
    return None


def _closing(signal: str, now: datetime, locale: str) -> SliceEdit:
    close = close_edit(signal, now, locale, None)

    def edit(s: Slice) -> Slice | None:
        _must_be_open(s)
        return close(s)

    return edit


def announce(deps: TurnDeps, sink: EventSink, prepared: Prepared) -> None:
    """`turn.started`, once per turn."""
    if not any(e["type"] == "turn.started" for e in deps.run_store.events(prepared.user_turn_id)):
        sink.emit(
            "turn.started",
            **turn_started(
                prepared.slice_id, prepared.slice_opened, prepared.slice_closed, prepared.user_turn_id
            ),
        )
