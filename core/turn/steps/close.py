"""Step 2, close (only when save closed a slice; best effort): the model's marking of it.

The first of the close-time passes, each its own retriable state so a slow or failing pass is
retried (or caught) alone: close (this marking) → strands → catalog → index
(core/turn/steps/close_passes.py) → evolve. The user's message is already committed, so all of
them may be slow or fail without costing it. The worker's turn analyzer reads the closing
slice (its marking, whether the card should evolve, this message's tags); the model's marking
replaces save's deterministic one, the analyzer's tags go on the new slice, and the analysis is
kept for the evolve step. One commit. A retry after the commit finds it recorded and runs no
model again.
"""

from __future__ import annotations

from core.agent.workers.analyzer import AnalyzerInput, CloseMarking, ClosingSlice, analyze_turn
from core.clock import iso
from core.memory.card.snapshot import ensure_snapshot
from core.memory.catalog.strand_shards import read_menu
from core.memory.slice.merge import SliceEdit, edit_slice
from core.memory.slice.model import Slice
from core.memory.slice.slicer import FALLBACK_MARK, apply_close_marking
from core.turn.analysis_record import ANALYSIS_KEY, analysis_to_json
from core.turn.closing import read_slice
from core.turn.deps import TurnDeps
from core.turn.state import StepState
from core.turn.steps.common import StepContext, load_context

DONE_KEY = "close-done"


def close(state: StepState, deps: TurnDeps) -> StepState:
    """Run the close-time passes for the slice save closed."""
    closed_id = state.closed_slice_id
    if closed_id and not deps.run_store.get(state.turn_id, DONE_KEY):
        ctx = load_context(state, deps, "close")
        _mark(ctx, closed_id)
        ctx.batch.commit(f"Turn {ctx.turn_id} — close slice {closed_id}")
        deps.run_store.put(state.turn_id, DONE_KEY, True)
    return state.then("strands")


def _mark(ctx: StepContext, closed_id: str) -> None:
    batch, deps, now = ctx.batch, ctx.deps, ctx.deps.clock.now()
    closed = read_slice(batch, closed_id)
    names = list(read_menu(batch))
    closing = ClosingSlice(closed.slice_id, closed.turns, closed.tags)
    worker = ctx.models.worker if ctx.models is not None else None
    analysis = analyze_turn(
        AnalyzerInput(ctx.request.message, names, closing), worker, monotonic=deps.monotonic
    )
    if analysis.marking is not None:
        edit_slice(_remark(analysis.marking), iso(now)).queue(batch, closed_id)
    deps.run_store.put(ctx.turn_id, ANALYSIS_KEY, analysis_to_json(analysis))
    tags = list(analysis.tags) if analysis.memory_worthy else []
    if tags:
        edit_slice(add_tags(tags), iso(now)).queue(batch, ctx.slice_id)
    ensure_snapshot(batch, ctx.slice_id, deps.clock)


def _remark(marking: CloseMarking) -> SliceEdit:
    """The model's marking over save's deterministic one (a slice marked otherwise is left alone)."""

    def edit(s: Slice) -> Slice | None:
        if s.marked_by != FALLBACK_MARK:
            return None
        return apply_close_marking(s, marking.focus, marking.summary, marking.tags, marking.tone)

    return edit


def add_tags(tags: list[str]) -> SliceEdit:
    """A slice edit adding `tags` it does not have yet (None when it has them all)."""

    def edit(s: Slice) -> Slice | None:
        new = [tag for tag in dict.fromkeys(tags) if tag not in s.tags]
        if not new:
            return None
        s.tags = [*s.tags, *new]
        return s

    return edit
