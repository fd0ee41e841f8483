"""Step 3, analyze (best effort): the worker's turn analyzer on the user's message.

Its tags are kept in the run store and written with the reply by finalize (so an ordinary
turn is two commits); an explicit "remember this" evolves the card mid-slice (its own commit),
and respond tells the model what changed (`card_note`). On a turn that closed a
slice, close runs the analyzer with the closing slice after the reply, so nothing is asked twice.
Without a model the turn ends here with `turn.error` `no_model` — the message is safe in memory.
"""

from __future__ import annotations

from dataclasses import replace

from core.agent.workers.analyzer import AnalyzerInput, analyze_turn
from core.llm.registry import SETUP_HINT
from core.memory.card.snapshot import ensure_snapshot
from core.memory.catalog.strand_shards import read_menu
from core.memory.catalog.weave import upsert_monthly_entry, weave_slice_strands
from core.memory.owners.card import live_card
from core.memory.slice.merge import edit_slice
from core.storage.base import WriteBatch
from core.turn import evolving
from core.turn.closing import read_slice
from core.turn.deps import TurnDeps
from core.turn.events import TERMINAL_TYPES
from core.turn.state import StepState
from core.turn.steps.close import add_tags
from core.turn.steps.common import END, PREPARED_KEY, TAGS_KEY, StepContext, load_context, no_model_reason

DONE_KEY = "analyze-done"


def analyze(state: StepState, deps: TurnDeps) -> StepState:
    """Tag the slice and evolve the card on request; hand on to respond (or end without a model)."""
    ctx = load_context(state, deps, "analyze")
    if ctx.models is None:
        if not any(e["type"] in TERMINAL_TYPES for e in deps.run_store.events(state.turn_id)):
            reason = no_model_reason(deps, ctx.config)  # a configured server that fails: say why
            ctx.sink.emit("turn.error", code="no_model", message=reason or SETUP_HINT)
        return state.then("close" if state.closed_slice_id else END)
    if not state.closed_slice_id and not deps.run_store.get(state.turn_id, DONE_KEY):
        if (damaged := live_card(ctx.batch).notice) is not None:  # a closing turn hears it from evolve
            ctx.sink.emit("card.skipped", reason=damaged)
        _analyze(ctx)
        ctx.batch.commit(f"Turn {ctx.turn_id} — card")
        deps.run_store.put(state.turn_id, DONE_KEY, True)
    return state.then("respond")


def _analyze(ctx: StepContext) -> None:
    batch, deps = ctx.batch, ctx.deps
    names = list(read_menu(batch))
    worker = ctx.models.worker if ctx.models is not None else None
    analysis = analyze_turn(AnalyzerInput(ctx.request.message, names, None), worker, monotonic=deps.monotonic)
    # The tags land with the reply (commit #2): an ordinary turn stays at two commits.
    deps.run_store.put(ctx.turn_id, TAGS_KEY, list(analysis.tags) if analysis.memory_worthy else [])
    opened = ctx.prepared is None or ctx.prepared.slice_opened
    if opened:
        return
    current = read_slice(batch, ctx.slice_id)
    note = evolving.mid_slice(batch, deps, ctx.sink, analysis, current, ctx.request, ctx.models)
    if note and ctx.prepared is not None:
        deps.run_store.put(ctx.turn_id, PREPARED_KEY, replace(ctx.prepared, card_note=note).to_json())
        ensure_snapshot(batch, ctx.slice_id, deps.clock)


def queue_tags(batch: WriteBatch, slice_id: str, tags: list[str], now_iso: str) -> None:
    """Add the analyzer's tags to the slice, and the slice to the strands of its new tags."""
    if not tags:
        return
    before = read_slice(batch, slice_id)
    edit_slice(add_tags(tags), now_iso).queue(batch, slice_id)
    current = read_slice(batch, slice_id)
    if set(current.tags) - set(before.tags):
        upsert_monthly_entry(batch, current)
        weave_slice_strands(batch, current)
