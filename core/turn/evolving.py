"""The evolution passes inside a turn and in maintenance: the decision, the card pass, its one event,
then the direction pass (both in `core/agent/evolution/`).

At a slice boundary the card evolves from the closed slice before the next slice exists (its
summary becomes the new slice's `evolution_summary`); mid-slice it evolves on an explicit
"remember this" (the summary is recorded on the current slice). Each decision ends in one
event: `card.evolved` {summary, diff} or `card.skipped` {reason}. A pass never fails the turn.
"""

from __future__ import annotations

from core.agent.evolution.card_pass import (
    EvolutionDecision,
    EvolutionOutcome,
    at_maintenance_close,
    evolve_card,
    explicit_request,
    record_evolution_summary,
)
from core.agent.evolution.card_pass import (
    at_boundary as boundary_decision,
)
from core.agent.evolution.card_pass import (
    mid_slice as mid_slice_decision,
)
from core.agent.evolution.direction_pass import evolve_direction
from core.agent.evolution.triggers import summary_for_slice
from core.agent.workers.analyzer import TurnAnalysis
from core.llm.registry import Resolution
from core.memory.owners.card import card_text, live_card
from core.memory.slice.model import Slice
from core.storage.base import WriteBatch
from core.turn.deps import TurnDeps
from core.turn.events import EventSink
from core.turn.service import TurnInput

NO_MODEL_REASON = "No model is configured, so the card was not reviewed."


def _run(
    batch: WriteBatch, deps: TurnDeps, decision: EvolutionDecision, models: Resolution | None
) -> EvolutionOutcome:
    if not decision.run or decision.request is None:
        return EvolutionOutcome(changed=False, reason=decision.reason)
    if (damaged := live_card(batch).notice) is not None:  # never rewrite a damaged card
        return EvolutionOutcome(changed=False, reason=damaged)
    if models is None:
        return EvolutionOutcome(changed=False, reason=NO_MODEL_REASON)
    outcome = evolve_card(
        batch, decision.request, worker=models.worker, clock=deps.clock, monotonic=deps.monotonic
    )
    # The evolution layer (direction, playbooks, fitness): a separate best-effort pass, same trigger.
    evolve_direction(
        batch, decision.request, worker=models.worker, clock=deps.clock, monotonic=deps.monotonic
    )
    return outcome


def _emit(sink: EventSink, outcome: EvolutionOutcome) -> None:
    kind, fields = outcome.event()
    sink.emit(kind, **fields)  # type: ignore[arg-type]


def at_boundary(
    batch: WriteBatch,
    deps: TurnDeps,
    sink: EventSink,
    analysis: TurnAnalysis,
    closed: Slice,
    request: TurnInput,
    models: Resolution | None,
) -> str:
    """Evolve the card from the slice that just closed; the summary for the new slice ("" if none)."""
    decision = boundary_decision(
        analysis, card_text(batch), closed, timezone=request.timezone or closed.timezone, demo=deps.demo
    )
    outcome = _run(batch, deps, decision, models)
    _emit(sink, outcome)
    return summary_for_slice(outcome.summary) if outcome.changed else ""


def mid_slice(
    batch: WriteBatch,
    deps: TurnDeps,
    sink: EventSink,
    analysis: TurnAnalysis,
    current: Slice,
    request: TurnInput,
    models: Resolution | None,
) -> str | None:
    """Evolve the card when the user explicitly asked for something to be remembered.

    Returns the change's summary when the card changed (the model hears of it in this turn).
    """
    if explicit_request(analysis) is None:
        return None
    decision = mid_slice_decision(
        analysis, current, timezone=request.timezone or current.timezone, demo=deps.demo
    )
    outcome = _run(batch, deps, decision, models)
    _emit(sink, outcome)
    if not outcome.changed:
        return None
    record_evolution_summary(batch, current.slice_id, outcome.summary, deps.clock)
    return summary_for_slice(outcome.summary) or "the card changed"


def at_maintenance(batch: WriteBatch, deps: TurnDeps, closed: Slice, models: Resolution | None) -> str:
    """Evolve the card from a slice maintenance closed; a short note for the report."""
    decision = at_maintenance_close(closed, card_text(batch), demo=deps.demo)
    outcome = _run(batch, deps, decision, models)
    if outcome.changed:
        return f"evolved: {outcome.summary}"
    return f"skipped: {outcome.reason or outcome.error or 'nothing changed'}"
