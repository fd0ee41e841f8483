"""Step 2b, evolve (after close; best effort): card evolution from the slice that just closed.

Its own state, so a slow or failing card pass is retried (or caught) without running the
close's analyzer and index passes again. The analysis close kept says whether the card is worth
evolving; the pass's summary becomes the new slice's `evolution_summary`. It runs after the
closing turn's reply, so the new slice's prompt — frozen on its first turn — holds the card as it
was before this pass (the change reaches the model from the next slice on). One commit when
the card changed; then `card.evolved` or `card.skipped`, in the closing turn's own
events. A retry after the commit runs no model again.
"""

from __future__ import annotations

from core.agent.evolution.triggers import record_evolution_summary
from core.agent.workers.analyzer import fallback
from core.memory.card.snapshot import ensure_snapshot
from core.turn import evolving
from core.turn.analysis_record import ANALYSIS_KEY, analysis_from_json
from core.turn.closing import read_slice
from core.turn.deps import TurnDeps
from core.turn.state import StepState
from core.turn.steps.common import load_context

DONE_KEY = "evolve-done"


def evolve(state: StepState, deps: TurnDeps) -> StepState:
    """Evolve the card from the closed slice; then the after passes."""
    closed_id = state.closed_slice_id
    if closed_id and not deps.run_store.get(state.turn_id, DONE_KEY):
        ctx = load_context(state, deps, "evolve")
        analysis = analysis_from_json(deps.run_store.get(state.turn_id, ANALYSIS_KEY)) or fallback(True)
        closed = read_slice(ctx.batch, closed_id)
        summary = evolving.at_boundary(ctx.batch, deps, ctx.sink, analysis, closed, ctx.request, ctx.models)
        if summary:
            record_evolution_summary(ctx.batch, ctx.slice_id, summary, deps.clock)
            ensure_snapshot(ctx.batch, ctx.slice_id, deps.clock)
        ctx.batch.commit(f"Turn {ctx.turn_id} — card")
        deps.run_store.put(state.turn_id, DONE_KEY, True)
    return state.then("after")
