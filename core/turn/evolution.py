"""Card evolution inside prepare: at a slice boundary, or mid-slice on an explicit request.

Each run ends in one event: `card.evolved` {summary, diff} when the card changed, else
`card.skipped` {reason}. Evolution never fails the turn (the pass reports, it does not raise).
"""

from __future__ import annotations

from core.agent.analyzer import TurnAnalysis
from core.llm.registry import Resolution
from core.memory.paths import CARD
from core.memory.slice import Slice
from core.storage.base import WriteBatch
from core.text import collapse_ws
from core.turn.deps import TurnDeps
from core.turn.events import EventSink
from core.turn.seams import EvolutionOutcome, EvolutionRequest, evolve_card, should_evolve
from core.turn.service import TurnInput

DEMO_REASON = "Demo mode: the card is never changed."
NO_MODEL_REASON = "No model is configured, so the card was not reviewed."
RECENT_TURNS = 12


def _emit(sink: EventSink, outcome: EvolutionOutcome) -> None:
    if outcome.changed:
        sink.emit("card.evolved", summary=outcome.summary, diff=outcome.diff)
    else:
        sink.emit("card.skipped", reason=outcome.reason or outcome.error or "Nothing changed.")


def _run(
    batch: WriteBatch, deps: TurnDeps, sink: EventSink, request: EvolutionRequest, models: Resolution | None
) -> EvolutionOutcome:
    if models is None:
        outcome = EvolutionOutcome(changed=False, reason=NO_MODEL_REASON)
    else:
        outcome = evolve_card(batch, request, worker=models.worker, clock=deps.clock)
    _emit(sink, outcome)
    return outcome


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
    if deps.demo:
        sink.emit("card.skipped", reason=DEMO_REASON)
        return ""
    worth, why = should_evolve(analysis, batch.read(CARD))
    if not worth:
        sink.emit("card.skipped", reason=f"Nothing worth recording on the card: {why}")
        return ""
    hint = analysis.memory_update.content if analysis.memory_update else ""
    evo = EvolutionRequest(
        "slice_closed",
        closed.slice_id,
        turns=tuple(closed.turns),
        tags=tuple(closed.tags),
        focus_hint=hint,
        timezone=closed.timezone or request.timezone,
    )
    outcome = _run(batch, deps, sink, evo, models)
    return collapse_ws(outcome.summary) if outcome.changed else ""


def mid_slice(
    batch: WriteBatch,
    deps: TurnDeps,
    sink: EventSink,
    analysis: TurnAnalysis,
    current: Slice,
    request: TurnInput,
    models: Resolution | None,
) -> None:
    """Evolve the card when the user explicitly asked for something to be remembered."""
    update = analysis.memory_update
    if update is None or not update.content.strip():
        return
    if deps.demo:
        sink.emit("card.skipped", reason=DEMO_REASON)
        return
    evo = EvolutionRequest(
        "new_observation",
        current.slice_id,
        turns=tuple(current.turns[-RECENT_TURNS:]),
        tags=tuple(current.tags),
        focus_hint=update.content,
        timezone=current.timezone or request.timezone,
    )
    _run(batch, deps, sink, evo, models)
