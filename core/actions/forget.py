"""Forgetting a slice, or one exchange of it, from every current file — in one commit.

A slice: its folder (or legacy flat file) is deleted; its catalog and monthly entries, its
strand paths and its search-index document go; card entries citing only it go and others lose
the ref (live card, undo copy, every snapshot). One exchange (the user turn and the agent reply
that share a turn id, in core.md or taken back into agent.md): both turns leave core.md, its
cognition leaves agent.md, its pictures go (unless a remaining turn links to one), the slice's
marks (focus, summary — unless the user wrote them) are cleared to be redone from what remains,
and its index entries are refreshed. Forgetting the last exchange forgets the slice.

The commit message names what was forgotten (ids), never its words. Git history still holds the
old files: docs/FORGET.md says how to purge it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from core.actions.forget_plan import plan_turn, without_turn
from core.clock import Clock, iso
from core.errors import ReadOnly
from core.memory import paths
from core.memory.card.forget import CardScrub, ref_matcher
from core.memory.config_store import read_config
from core.memory.evolution.store import forget_in_direction, forget_in_ledger
from core.memory.owners import catalog, slice_core, strands
from core.memory.owners.card_scrub import queue_scrub
from core.memory.slice.agent_parts import queue_removal
from core.memory.slice.view import missing_slice
from core.search.recall import index_slice, unindex_slice
from core.storage.base import Storage, WriteBatch

HISTORY_NOTE = (
    "Git history still holds the old files (on GitHub, or in a local folder that is a git "
    "repository); docs/FORGET.md says how to purge them."
)


@dataclass
class ForgetReport:
    """What a forget did: the files removed and rewritten, and the card entries it touched."""

    slice_id: str
    turn_id: str | None = None
    whole_slice: bool = True
    message: str = ""
    deleted: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)
    card: CardScrub = field(default_factory=CardScrub)
    version: str | None = None

    def as_dict(self) -> dict[str, object]:
        return {
            "slice_id": self.slice_id,
            "turn_id": self.turn_id,
            "whole_slice": self.whole_slice,
            "message": self.message,
            "deleted": self.deleted,
            "changed": self.changed,
            "card_entries_removed": self.card.removed,
            "card_refs_dropped": self.card.refs_dropped,
            "history_note": HISTORY_NOTE,
        }


def forget(storage: Storage, slice_id: str, clock: Clock, turn_id: str | None = None) -> ForgetReport:
    """Forget a slice (or, with `turn_id`, one exchange of it) and commit once.

    NotFound for an unknown slice or turn, ReadOnly on the demo, InvalidInput for a malformed
    id or a slice whose YAML does not parse (a turn cannot be cut out of a file we cannot read).
    """
    if storage.demo or storage.read_only:
        raise ReadOnly("This memory is read-only (the demo persona): there is nothing to forget here.")
    batch = WriteBatch.open(storage)
    now = clock.now()
    locale = read_config(batch)[0].locale
    report = ForgetReport(slice_id, turn_id, whole_slice=turn_id is None)
    if turn_id is None:
        _queue_slice(batch, slice_id, now, locale, clock)
    else:
        report.whole_slice = _queue_turn(batch, slice_id, turn_id, now, locale, clock)
    names = ref_matcher(slice_id, None if report.whole_slice else turn_id)
    report.card = queue_scrub(batch, slice_id, names, now)
    forget_in_ledger(batch, slice_id, iso(now), "slice" if report.whole_slice else "turn")
    forget_in_direction(batch, names)
    report.message = (
        f"Forget slice {slice_id}"
        if report.whole_slice and turn_id is None
        else f"Forget turn {turn_id} of slice {slice_id}"
        + (" (its last exchange: the slice goes)" if report.whole_slice else "")
    )
    result = batch.commit(report.message)
    report.deleted = [p.value for p in result.deleted]
    report.changed = [p.value for p in result.written]
    report.version = result.version
    return report


# ------------------------------------------------------------------ a whole slice


def _queue_slice(batch: WriteBatch, slice_id: str, now: datetime, locale: str, clock: Clock) -> None:
    # Found by listing, never by reading: a file too large or not UTF-8 can still be forgotten.
    files = batch.list(paths.slice_dir(slice_id))
    flat = paths.legacy_flat_md(slice_id)
    if batch.snapshot.version_of(flat) is not None:
        files.append(flat)
    if not files:
        raise missing_slice(slice_id)
    for path in files:
        batch.delete(path)
    catalog.queue_removal(batch, slice_id, now, locale)  # and the active list, pending.json
    strands.queue_drop_slice(batch, slice_id)
    unindex_slice(batch, slice_id, clock)


# ------------------------------------------------------------------ one exchange


def _queue_turn(
    batch: WriteBatch, slice_id: str, turn_id: str, now: datetime, locale: str, clock: Clock
) -> bool:
    """Queue the removal of one exchange; True when it was the slice's last (the slice goes)."""
    # An exchange answered again or edited lives on only in agent.md, as a "(replaced)" entry,
    # and its pictures in the slice folder (pictures alone: what an earlier forget left behind).
    plan = plan_turn(batch, slice_id, turn_id)
    queue_removal(batch, slice_id, turn_id)
    for path in plan.pictures:
        batch.delete(path)
    if not plan.in_core:
        return False
    if plan.last:
        _queue_slice(batch, slice_id, now, locale, clock)
        return True
    slice_core.queue_change(batch, slice_id, lambda s: without_turn(s, turn_id), now)
    catalog.queue_entries(batch, plan.left, now, locale)
    if not index_slice(batch, slice_id, clock):
        unindex_slice(batch, slice_id, clock)
    return False
