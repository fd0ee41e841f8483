"""Step 5, after (best-effort): the close-time model passes when a slice closed this turn.

Strand consolidation's merge pass (only with at least 25 strands; at most 30 merges; paths are
unioned, so no slice ever drops out of the index) and the dry-slice backfill (the 3 oldest
closed slices still without focus/summary). One commit if anything changed. A failure here is
logged by the runner and never fails the turn; demo mode and a memory without a model skip it.
"""

from __future__ import annotations

from core.storage.base import WriteBatch
from core.turn.deps import TurnDeps
from core.turn.passes import run_passes
from core.turn.steps.common import (
    END,
    PREPARED_KEY,
    load_request,
    output,
    resolve_models,
    sink_of,
    skip,
    user_config,
)
from core.turn.table import StepInput, StepOutput


def after(state: StepInput, deps: TurnDeps) -> StepOutput:
    """Run the passes for the slice closed this turn, if any."""
    if skip(state, "after"):
        return dict(state)
    closed = state.get("closed_slice_id")
    if not closed or deps.demo:
        return output(state, next=END)
    turn_id = str(state["turn_id"])
    batch = WriteBatch.open(deps.storage)
    config = user_config(batch)
    models = resolve_models(deps, load_request(deps, turn_id), config, sink_of(deps, state, "after"))
    if models is None:
        return output(state, next=END)
    prepared = deps.run_store.get(turn_id, PREPARED_KEY) or {}
    exclude = {str(closed), str(state.get("slice_id") or prepared.get("slice_id") or "")}
    locale = str(prepared.get("locale") or config.locale)
    run_passes(batch, models.worker, now=deps.clock.now(), locale=locale, exclude=exclude)
    batch.commit(f"Turn {turn_id} — after")
    return output(state, next=END)
