"""Step 5, after (best-effort): the close-time model passes when a slice closed this turn.

Strand consolidation's merge pass (only with at least 25 strands; at most 30 merges; paths are
unioned, so no slice ever drops out of the index) and the dry-slice backfill (the 3 oldest
closed slices still without focus/summary). One commit if anything changed. A failure here is
logged by the runner and never fails the turn; demo mode and a memory without a model skip it.
"""

from __future__ import annotations

from core.turn.close_runs import CLOSE_RUN_DONE
from core.turn.deps import TurnDeps
from core.turn.passes import run_passes
from core.turn.state import StepState
from core.turn.steps.common import END, load_context


def after(state: StepState, deps: TurnDeps) -> StepState:
    """Run the passes for the slice closed this turn, if any."""
    closed = state.closed_slice_id
    if closed:  # the close passes before this step ran (or were caught): maintain has nothing left
        deps.run_store.put(state.turn_id, CLOSE_RUN_DONE, True)
    if not closed or deps.demo:
        return state.then(END)
    ctx = load_context(state, deps, "after")
    if ctx.models is None:
        return state.then(END)
    exclude = {closed, ctx.slice_id}
    run_passes(ctx.batch, ctx.models.worker, now=deps.clock.now(), locale=ctx.locale, exclude=exclude)
    ctx.batch.commit(f"Turn {ctx.turn_id} — after")
    return state.then(END)
