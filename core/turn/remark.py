"""Re-marking with a model: slices marked deterministically (`marked_by: fallback`) get the worker's mark.

Imports and model-less closes mark slices from their turns alone ("Opened with: …"). When a
model is configured, maintenance gives the oldest of them (by id) the worker's focus, summary,
tags and tone — at most `REMARK_LIMIT` a run, so a large import is re-marked over several runs.
A slice the worker marks loses `marked_by: fallback`, so a second run never asks again about it;
a slice the worker could not mark keeps its mark and is tried again next run.
"""

from __future__ import annotations

from collections.abc import Callable

from core.agent.workers.analyzer import CloseMarking
from core.agent.workers.marker import mark_slice
from core.errors import PreviouslyError
from core.llm.registry import BoundModel
from core.memory.catalog.index import read_index
from core.memory.paths import core_md
from core.memory.slice.merge import edit_slice
from core.memory.slice.model import Slice, parse_core_frontmatter
from core.memory.slice.slicer import FALLBACK_MARK, apply_close_marking, fallback_opening
from core.storage.base import WriteBatch
from core.turn.closing import read_slice

REMARK_LIMIT = 5


def fallback_marked(batch: WriteBatch, limit: int) -> list[str]:
    """The oldest closed slices whose marks are the deterministic fallback (at most `limit`).

    The catalog (one read) names the candidates — closed entries whose focus has the fallback's
    shape — and only those core.md files are read, at most `2 × limit` of them, so a memory with
    nothing left to re-mark costs no slice read at all.
    """
    index = read_index(batch)
    candidates = sorted(
        str(e.get("id"))
        for e in (index or {}).get("slices") or []
        if e.get("status") == "closed" and _fallback_shaped(str(e.get("focus") or ""))
    )
    found: list[str] = []
    for slice_id in candidates[: 2 * limit]:
        text = batch.read(core_md(slice_id))
        if text is None or FALLBACK_MARK not in text:
            continue
        try:
            meta = parse_core_frontmatter(text)
        except PreviouslyError:  # a damaged file is named by the damage check, never edited here
            continue
        if meta.marked_by == FALLBACK_MARK and meta.status == "closed":
            found.append(slice_id)
    return found[:limit]


def _fallback_shaped(focus: str) -> bool:
    return fallback_opening(focus) is not None or focus.startswith(("Conversation (", "会话（"))


def remark(
    batch: WriteBatch,
    worker: BoundModel,
    *,
    now_iso: str,
    limit: int = REMARK_LIMIT,
    say: Callable[[str], None] = lambda _: None,
) -> list[str]:
    """Queue the worker's marks for up to `limit` fallback-marked slices; the ids it re-marked."""
    done: list[str] = []
    for slice_id in fallback_marked(batch, limit):
        say(f"Re-marking slice {slice_id} with the model")
        marking = mark_slice(worker, read_slice(batch, slice_id))
        if marking is None:
            continue
        edit_slice(_apply(marking), now_iso).queue(batch, slice_id)
        done.append(slice_id)
    return done


def _apply(marking: CloseMarking) -> Callable[[Slice], Slice | None]:
    def edit(s: Slice) -> Slice | None:
        if s.marked_by != FALLBACK_MARK:
            return None  # marked meanwhile (by the user or another run): left as it is
        return apply_close_marking(s, marking.focus, marking.summary, marking.tags, marking.tone)

    return edit
