"""When the card pass runs (docs/CARD.md "When it runs"), as pure decisions the turn and maintenance
code call.

- At a slice boundary: when the analyzer judged the closed slice worth it, when it gave no
  judgment (a failed analyzer defaults to evolving: a wasted worker call is cheap, a missed
  evolution is lost for good), or when the live card is in a legacy format (always rebuilt).
- Mid-slice: when the analyzer saw an explicit "remember …" request or a behavioural correction.
- In maintenance: a slice closed by its time cap evolves the card like a boundary would.
Demo mode never evolves. Each decision carries the request to run, or the reason it is skipped.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from core.agent.evolution.types import EvolutionRequest
from core.agent.workers.analyzer import TurnAnalysis
from core.clock import Clock, iso
from core.memory.card.model import CARD_STAMP
from core.memory.paths import core_md
from core.memory.slice.merge import edit_slice
from core.memory.slice.model import Slice, Turn
from core.storage.base import WriteBatch
from core.text import collapse_ws

LEGACY_REASON = "The card is in an older format, so it is rebuilt in the current one."
NO_JUDGMENT_REASON = "The analyzer gave no judgment, so the card is reviewed by default."
WORTH_REASON = "The analyzer found something lasting in the slice."
NOT_WORTH_REASON = "The analyzer found nothing lasting in the slice."
DEMO_REASON = "Demo mode: the card is never changed."
EMPTY_SLICE_REASON = "The closed slice holds no conversation."
RECENT_TURNS = 12
_SECTION_NAMES = {
    "identity": "Identity",
    "past": "Past",
    "now": "Now",
    "horizon": "Horizon",
    "self_model": "Self-model",
}


@dataclass(frozen=True)
class EvolutionDecision:
    """Whether to run a pass; the request when yes, the reason either way."""

    run: bool
    reason: str
    request: EvolutionRequest | None = None

    def skipped_event(self) -> tuple[str, dict[str, Any]]:
        """The `card.skipped` event for a pass that does not run."""
        return "card.skipped", {"reason": self.reason}


def should_evolve(analysis: TurnAnalysis | None, card_text: str | None) -> tuple[bool, str]:
    """Whether a slice boundary evolves the card, and why (call it only when a slice closed)."""
    if card_text and card_text.strip() and CARD_STAMP not in card_text:
        return True, LEGACY_REASON
    judgment = analysis.evolve_card if analysis is not None else None
    if judgment is None:
        return True, NO_JUDGMENT_REASON
    reason = collapse_ws(judgment.reason)
    if judgment.worth:
        return True, reason or WORTH_REASON
    return False, reason or NOT_WORTH_REASON


def explicit_request(analysis: TurnAnalysis | None) -> str | None:
    """What the user explicitly asked to be remembered (the analyzer's memory_update), if anything."""
    update = analysis.memory_update if analysis is not None else None
    content = collapse_ws(update.content) if update is not None else ""
    return content or None


def _hint(analysis: TurnAnalysis | None) -> str:
    content = explicit_request(analysis)
    if content is None or analysis is None or analysis.memory_update is None:
        return ""
    section = _SECTION_NAMES.get(analysis.memory_update.section or "")
    return f"{content} (suggested section: {section})" if section else content


def at_boundary(
    analysis: TurnAnalysis | None, card_text: str | None, closed: Slice, *, timezone: str, demo: bool
) -> EvolutionDecision:
    """The decision for a slice closed at the start of this turn (signal `slice_closed`)."""
    if demo:
        return EvolutionDecision(False, DEMO_REASON)
    run, why = should_evolve(analysis, card_text)
    if not run:
        return EvolutionDecision(False, f"Nothing worth recording on the card: {why}")
    request = EvolutionRequest(
        "slice_closed",
        closed.slice_id,
        turns=tuple(closed.turns),
        tags=tuple(closed.tags),
        focus_hint=_hint(analysis),
        timezone=timezone or closed.timezone,
    )
    return EvolutionDecision(True, why, request)


def mid_slice(
    analysis: TurnAnalysis | None,
    current: Slice,
    *,
    timezone: str,
    demo: bool,
    extra_turns: Sequence[Turn] = (),
) -> EvolutionDecision:
    """The decision for an explicit request in an open slice (signal `new_observation`).

    `current` should already hold the user's new message; pass it in `extra_turns` otherwise.
    """
    hint = _hint(analysis)
    if not hint:
        return EvolutionDecision(False, "No explicit request to remember anything.")
    if demo:
        return EvolutionDecision(False, DEMO_REASON)
    turns = (*current.turns, *extra_turns)[-RECENT_TURNS:]
    request = EvolutionRequest(
        "new_observation",
        current.slice_id,
        turns=turns,
        tags=tuple(current.tags),
        focus_hint=hint,
        timezone=timezone or current.timezone,
    )
    return EvolutionDecision(True, "The user asked for this to be remembered.", request)


def at_maintenance_close(closed: Slice, card_text: str | None, *, demo: bool = False) -> EvolutionDecision:
    """The decision for a slice the maintenance pass closed by its time cap (no analyzer ran)."""
    if demo:
        return EvolutionDecision(False, DEMO_REASON)
    if not closed.turns:
        return EvolutionDecision(False, EMPTY_SLICE_REASON)
    _, why = should_evolve(None, card_text)
    request = EvolutionRequest(
        "slice_closed",
        closed.slice_id,
        turns=tuple(closed.turns),
        tags=tuple(closed.tags),
        timezone=closed.timezone,
    )
    return EvolutionDecision(True, why, request)


def record_evolution_summary(batch: WriteBatch, slice_id: str, summary: str, clock: Clock) -> bool:
    """Queue `summary` as the slice's `evolution_summary`; False when its core.md does not exist yet.

    A slice being created in the same step should carry the summary in the `Slice` it is created
    from (`summary_for_slice`) instead.
    """
    text = summary_for_slice(summary)
    if not text or batch.read(core_md(slice_id)) is None:
        return False

    def apply(s: Slice) -> Slice | None:
        if s.evolution_summary == text:
            return None
        s.evolution_summary = text
        return s

    edit_slice(apply, iso(clock.now())).queue(batch, slice_id)
    return True


def summary_for_slice(summary: str) -> str:
    """The summary as stored in the slice's frontmatter: one line, whitespace collapsed."""
    return collapse_ws(summary)
