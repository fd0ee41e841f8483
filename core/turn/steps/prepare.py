"""Step 1, prepare (ARCHITECTURE §4, REFERENCE §8): the user's message is in memory before any model output.

Recover the active slice; decide whether it closes (time cap, capacity, context lost); run the
worker's turn analyzer; when closing, mark + close + index the slice, weave, prune strands and
evolve the card before the new slice exists; open or continue the slice; tag it; append the
user's turn; refresh the card snapshot and indexes; **commit #1**; then `turn.started`. Without
a model the flow ends here with `turn.error` `no_model` — the message is safe in memory.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from core.agent.analyzer import AnalyzerInput, ClosingSlice, TurnAnalysis, analyze_turn
from core.agent.evolution import ensure_snapshot
from core.clock import iso
from core.llm.registry import SETUP_HINT, Resolution
from core.media.attach import queue_images, turn_text
from core.memory.catalog import read_or_none
from core.memory.config import UserConfig
from core.memory.merge import append_turn, create_slice, has_turn
from core.memory.paths import STRANDS_JSON, core_md
from core.memory.slice import Slice, Turn, parse_core_md
from core.memory.slicer import ActiveSlice, ClientView, close_signal, new_slice_id, open_slice
from core.memory.slicer import slice_taken as taken
from core.memory.strands import load_strands
from core.memory.weave import upsert_monthly_entry, weave_slice_strands
from core.storage.base import WriteBatch
from core.turn import evolution
from core.turn.closing import (
    ensure_catalog,
    prune_strands,
    queue_close,
    read_slice,
    recover_active,
    upsert_catalog,
)
from core.turn.deps import TurnDeps
from core.turn.events import EventSink, turn_started
from core.turn.service import TurnInput
from core.turn.steps.common import (
    END,
    PREPARED_KEY,
    load_request,
    locale_of,
    no_model_reason,
    output,
    resolve_models,
    sink_of,
    skip,
    user_config,
)
from core.turn.table import StepInput, StepOutput


@dataclass
class _Turn:
    """One prepare run's inputs."""

    turn_id: str
    request: TurnInput
    deps: TurnDeps
    sink: EventSink
    batch: WriteBatch
    config: UserConfig
    locale: str
    models: Resolution | None
    closing_summary: str = ""  # the card's evolution summary, for the slice opening after a close
    closed: Slice | None = None  # the slice this turn closed


def prepare(state: StepInput, deps: TurnDeps) -> StepOutput:
    """Run prepare (idempotent: a retry after commit #1 only re-announces the turn)."""
    if skip(state, "prepare"):
        return dict(state)
    turn_id = str(state["turn_id"])
    sink = sink_of(deps, state, "prepare")
    record = _already_prepared(deps, turn_id)
    if record is None:
        record = _prepare(_start(turn_id, deps, sink))
    return _announce(state, deps, sink, record)


def _start(turn_id: str, deps: TurnDeps, sink: EventSink) -> _Turn:
    request = load_request(deps, turn_id)
    batch = WriteBatch.open(deps.storage)
    config = user_config(batch)
    models = resolve_models(deps, request, config, sink)
    return _Turn(turn_id, request, deps, sink, batch, config, locale_of(request, config), models)


def _already_prepared(deps: TurnDeps, turn_id: str) -> dict[str, Any] | None:
    """The recorded outcome, if commit #1 landed (the user's turn is in its slice)."""
    record = deps.run_store.get(turn_id, PREPARED_KEY)
    if not isinstance(record, dict):
        return None
    text = deps.storage.snapshot().read(core_md(str(record["slice_id"])))
    user = Turn(turn_id, "", "user", "")
    return record if text is not None and has_turn(parse_core_md(text), user) else None


def _prepare(t: _Turn) -> dict[str, Any]:
    now = t.deps.clock.now()
    ensure_catalog(t.batch, now, t.locale)
    active = recover_active(t.batch, now)
    client = ClientView(t.request.client_slice_id, t.request.agent_turns_seen)
    signal = None
    if active is not None and not _holds_turn(active.slice, t.turn_id):
        signal = close_signal(active.slice, now, t.config, client)
    analysis = _analyze(t, active.slice if signal and active else None)
    closed_id, summary = None, ""
    if signal and active is not None:
        closed_id, active = _close(t, active, signal, analysis), None
        summary = t.closing_summary
    tags = list(analysis.tags) if analysis.memory_worthy else []
    known = list(active.slice.tags) if active is not None else []
    slice_id = _continue(t, active, tags) if active is not None else _open(t, tags, summary)
    note = None
    if active is not None:
        current = read_slice(t.batch, slice_id)
        note = evolution.mid_slice(t.batch, t.deps, t.sink, analysis, current, t.request, t.models)
    ensure_snapshot(t.batch, slice_id, t.deps.clock)
    queue_images(t.batch, slice_id, t.turn_id, t.request.attachments)
    _index(t, slice_id, created=active is None, known_tags=known)
    record = {
        "slice_id": slice_id,
        "slice_opened": active is None,
        "slice_closed": closed_id,
        "user_turn_id": t.turn_id,
        "no_model": t.models is None,
        "no_model_reason": no_model_reason(t.deps, t.config) if t.models is None else None,
        "timezone": t.request.timezone or "UTC",
        "locale": t.locale,
        "card_note": note,
    }
    # Recorded before the commit: a retry finds it and, once the turn is in memory, trusts it.
    t.deps.run_store.put(t.turn_id, PREPARED_KEY, record)
    t.batch.commit(f"Turn {t.turn_id} — user message")
    return record


def _close(t: _Turn, active: ActiveSlice, signal: str, analysis: TurnAnalysis) -> str:
    """Close and index the slice, prune strands, evolve the card — before the next slice exists.

    The catalog gets the closed slice's entry (no reconcile of the whole archive here: that is
    maintenance's, so a closing turn stays cheap however large the memory).
    """
    closed = queue_close(
        t.batch, active, signal, clock=t.deps.clock, locale=t.locale, marking=analysis.marking
    )
    prune_strands(t.batch, t.deps.clock.now())
    t.closing_summary = evolution.at_boundary(
        t.batch, t.deps, t.sink, analysis, closed.slice, t.request, t.models
    )
    t.closed = closed.slice
    return closed.slice.slice_id


def _index(t: _Turn, slice_id: str, *, created: bool, known_tags: list[str]) -> None:
    """The slice's index entries: monthly always; strands when it has new tags; the catalog when
    it is new (with the slice closed this turn, in one rewrite)."""
    current = read_slice(t.batch, slice_id)
    upsert_monthly_entry(t.batch, current)
    if created or set(current.tags) - set(known_tags):
        weave_slice_strands(t.batch, current)
    if created:
        closed = [read_slice(t.batch, t.closed.slice_id)] if t.closed is not None else []
        upsert_catalog(t.batch, [*closed, current], t.deps.clock.now(), t.locale)


def _holds_turn(s: Slice, turn_id: str) -> bool:
    return any(turn.turn_id == turn_id and turn.role == "user" for turn in s.turns)


def _analyze(t: _Turn, closing: Slice | None) -> TurnAnalysis:
    names = list(load_strands(read_or_none(t.batch, STRANDS_JSON)))
    inp = AnalyzerInput(
        t.request.message,
        names,
        ClosingSlice(closing.slice_id, closing.turns, closing.tags) if closing else None,
    )
    worker = t.models.worker if t.models is not None else None
    return analyze_turn(inp, worker, monotonic=t.deps.monotonic)


def _user_text(t: _Turn) -> str:
    return turn_text(t.request.message, t.turn_id, t.request.attachments)


def _user_turn(t: _Turn) -> Turn:
    return Turn(t.turn_id, iso(t.deps.clock.now()), "user", _user_text(t))


def _add_tags(tags: list[str]) -> Any:
    def edit(s: Slice) -> Slice:
        s.tags = [*s.tags, *(tag for tag in tags if tag not in s.tags)]
        return s

    return edit


def _continue(t: _Turn, active: ActiveSlice, tags: list[str]) -> str:
    sid = active.slice.slice_id
    create = active.slice if active.legacy else None
    append_turn(_user_turn(t), iso(t.deps.clock.now()), create=create, edit=_add_tags(tags)).queue(
        t.batch, sid
    )
    return sid


def _open(t: _Turn, tags: list[str], evolution_summary: str) -> str:
    now = t.deps.clock.now()
    sid = new_slice_id(now, lambda candidate: taken(t.batch, candidate))
    new = open_slice(_user_text(t), t.request.timezone or "UTC", t.turn_id, now, sid)
    new.tags = list(dict.fromkeys(tags))
    new.evolution_summary = evolution_summary
    create_slice(new, iso(now)).queue(t.batch, sid)
    return sid


def _announce(state: StepInput, deps: TurnDeps, sink: EventSink, record: dict[str, Any]) -> StepOutput:
    turn_id = str(state["turn_id"])
    seen = {e["type"] for e in deps.run_store.events(turn_id)}
    if "turn.started" not in seen:
        sink.emit(
            "turn.started",
            **turn_started(record["slice_id"], record["slice_opened"], record["slice_closed"], turn_id),
        )
    common = {"slice_id": record["slice_id"], "closed_slice_id": record["slice_closed"], "round": 0}
    if record["no_model"]:
        if not seen & {"turn.error", "turn.done"}:
            sink.emit("turn.error", code="no_model", message=record.get("no_model_reason") or SETUP_HINT)
        return output(state, next=END, **common)
    return output(state, next="respond", **common)
