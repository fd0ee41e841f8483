"""The user editing a slice's marks: focus, summary, tags, open loops, decisions; loops marked done.

The turns are never touched, and what the user types is stored exactly as typed, blank ends
included (a one-line mark with a line break is refused, saying why). A hand edit is recorded
as `marked_by: user`, which every later marking pass respects (the close marking, the fallback
mark, the dry-slice backfill): they only fill what the user left empty, so a model never writes
over what the user wrote. A loop marked done leaves `open_loops` (the arrival briefing stops
raising it) and is kept, word for word, under `done_loops`. The slice's catalog and monthly
entries, its strands and its search-index document follow in the same commit.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from core.clock import Clock
from core.errors import InvalidInput, ReadOnly
from core.memory.catalog.weave import weave_slice_strands
from core.memory.config_store import read_config
from core.memory.owners import catalog, slice_core, strands
from core.memory.slice.model import Slice
from core.memory.slice.slicer import USER_MARK
from core.search.recall import index_slice
from core.storage.base import Storage, WriteBatch
from core.text import js_trim

DONE_LOOPS = "done_loops"
MAX_FOCUS = 300
MAX_SUMMARY = 4000
MAX_ITEM = 1000
MAX_TAG = 80
MAX_ITEMS = 50


@dataclass(frozen=True)
class SliceChanges:
    """What to change; None leaves a field as it is. `done_loops` names open loops now done."""

    focus: str | None = None
    summary: str | None = None
    tags: list[str] | None = None
    open_loops: list[str] | None = None
    decisions: list[str] | None = None
    done_loops: list[str] | None = None


def _line(name: str, value: str, limit: int) -> str:
    """A one-line mark exactly as typed (blank ends too: the user's text is never trimmed)."""
    text = value if js_trim(value) else ""  # nothing but blank space clears the mark
    if "\n" in text or "\r" in text:
        raise InvalidInput(f"The {name} must be one line; put the detail in the summary.")
    if len(text) > limit:
        raise InvalidInput(f"The {name} is {len(text)} characters; keep it under {limit}.")
    return text


def _items(name: str, values: list[str], limit: int) -> list[str]:
    if len(values) > MAX_ITEMS:
        raise InvalidInput(f"At most {MAX_ITEMS} {name}; {len(values)} were sent.")
    out = [_line(f"{name} item", v, limit) for v in values]
    if any(not js_trim(v) for v in out):
        raise InvalidInput(f"An empty item in {name}: remove it instead.")
    return list(dict.fromkeys(out))


def apply_changes(s: Slice, changes: SliceChanges) -> Slice:
    """A copy of the slice with the changes validated and applied (InvalidInput says what to fix)."""
    out = s.copy()
    if changes.focus is not None:
        out.focus = _line("focus", changes.focus, MAX_FOCUS)
    if changes.summary is not None:
        summary = changes.summary if js_trim(changes.summary) else ""
        if len(summary) > MAX_SUMMARY:
            raise InvalidInput(f"The summary is {len(summary)} characters; keep it under {MAX_SUMMARY}.")
        out.summary = summary
    if changes.tags is not None:
        # a tag is a label the strands match on, not prose: its blank ends are no part of it
        out.tags = _items("tags", [js_trim(t) for t in changes.tags], MAX_TAG)
    if changes.open_loops is not None:
        out.open_loops = _items("open loops", changes.open_loops, MAX_ITEM)
    if changes.decisions is not None:
        out.decisions = _items("decisions", changes.decisions, MAX_ITEM)
    for loop in changes.done_loops or []:
        if loop not in out.open_loops:
            raise InvalidInput(
                f'"{loop}" is not an open loop of slice {s.slice_id}; send it exactly as listed.'
            )
        out.open_loops = [x for x in out.open_loops if x != loop]
        done = out.extra.get(DONE_LOOPS)
        out.extra[DONE_LOOPS] = [*(done if isinstance(done, list) else []), loop]
    if out.closed and not js_trim(out.focus) and not js_trim(out.summary):
        raise InvalidInput(
            "A closed slice keeps a focus or a summary; write one of them instead of clearing both."
        )
    out.marked_by = USER_MARK
    return out


def edit_slice_marks(storage: Storage, slice_id: str, changes: SliceChanges, clock: Clock) -> Slice:
    """Validate and commit a hand edit of a slice's marks (one commit); the slice as it now reads."""
    if storage.demo or storage.read_only:
        raise ReadOnly("This memory is read-only (the demo persona): edits are not saved here.")
    batch = WriteBatch.open(storage)
    legacy = f"Slice {slice_id} is an old single-file slice; it cannot be edited in place."
    current = slice_core.read_for_change(batch, slice_id, legacy)  # SliceFormatError names the line
    edited = apply_changes(current, changes)
    now = clock.now()
    slice_core.queue_change(batch, slice_id, lambda s: apply_changes(s, changes), now)
    _queue_indexes(batch, current, edited, now)
    index_slice(batch, slice_id, clock)
    batch.commit(f"Edit slice {slice_id} (by hand)")
    return edited


def _queue_indexes(batch: WriteBatch, before: Slice, after: Slice, now: datetime) -> None:
    catalog.queue_entries(batch, after, now, read_config(batch)[0].locale)
    strands.queue_unweave(batch, after.slice_id, [t for t in before.tags if t not in after.tags])
    weave_slice_strands(batch, after)
