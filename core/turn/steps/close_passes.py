"""Steps 2b–2d (only when save closed a slice; best effort): the close's index passes, one state each.

After close marked the slice: strands (the closed and the new slice woven into strands.json,
then the strand prune), catalog (the closed slice's monthly entry and both catalog entries),
index (the closed slice in the full-text search index). Each is its own state with its own
retries and timeout, so a failing pass is retried alone and, if it keeps failing, caught without
failing the turn or the passes after it (maintenance reconciles what a skipped pass left).

Every pass is idempotent: its writes are updates of the current text that change nothing the
second time (a strand already woven, an entry already as it should be, a slice already indexed
with the same fingerprint), so a retry — even after its commit, before its done mark — writes
the same bytes, and a pass already marked done is not run again.
"""

from __future__ import annotations

from collections.abc import Callable

from core.memory.catalog.weave import upsert_monthly_entry, weave_slice_strands
from core.search import index_slice as index_for_search
from core.turn.closing import prune_strands, read_slice, upsert_catalog
from core.turn.deps import TurnDeps
from core.turn.state import StepState
from core.turn.steps.common import StepContext, load_context

Pass = Callable[[StepContext, str], None]


def done_key(name: str) -> str:
    """Run-store key marking a close pass done for this turn."""
    return f"{name}-done"


def _run_pass(state: StepState, deps: TurnDeps, name: str, work: Pass, then: str) -> StepState:
    closed_id = state.closed_slice_id
    if closed_id and not deps.run_store.get(state.turn_id, done_key(name)):
        ctx = load_context(state, deps, name)
        work(ctx, closed_id)
        ctx.batch.commit(f"Turn {ctx.turn_id} — {name} for slice {closed_id}")
        deps.run_store.put(state.turn_id, done_key(name), True)
    return state.then(then)


def weave_strands(ctx: StepContext, closed_id: str) -> None:
    """The closed and the new slice woven into strands.json, then the strand prune."""
    batch = ctx.batch
    weave_slice_strands(batch, read_slice(batch, closed_id))
    weave_slice_strands(batch, read_slice(batch, ctx.slice_id))
    prune_strands(batch, ctx.deps.clock.now())


def update_catalog(ctx: StepContext, closed_id: str) -> None:
    """The closed slice's monthly entry and the catalog entries of both slices."""
    batch = ctx.batch
    closed, current = read_slice(batch, closed_id), read_slice(batch, ctx.slice_id)
    upsert_monthly_entry(batch, closed)
    upsert_catalog(batch, [closed, current], ctx.deps.clock.now(), ctx.locale)


def update_index(ctx: StepContext, closed_id: str) -> None:
    """The closed slice in the full-text search index."""
    index_for_search(ctx.batch, closed_id, ctx.deps.clock)


def strands(state: StepState, deps: TurnDeps) -> StepState:
    return _run_pass(state, deps, "strands", weave_strands, "catalog")


def catalog(state: StepState, deps: TurnDeps) -> StepState:
    return _run_pass(state, deps, "catalog", update_catalog, "index")


def index(state: StepState, deps: TurnDeps) -> StepState:
    return _run_pass(state, deps, "index", update_index, "evolve")
