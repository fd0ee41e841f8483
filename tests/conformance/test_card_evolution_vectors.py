"""The evolution gate (`recall_filters.json` → should_run_card_evolution) and overdue detection."""

from __future__ import annotations

from typing import Any

import pytest

from core.agent.evolution.card_pass import should_evolve
from core.agent.workers.analyzer import EvolveJudgment, TurnAnalysis
from core.clock import FixedClock
from core.memory.card.model import HorizonItem
from core.memory.card.timing import card_from_text, time_flags
from tests.conformance.vectors import Case, shape, vectors
from tests.fakes.evolution import card_text

pytestmark = pytest.mark.conformance

CURRENT_CARD = card_text(identity=["Name: Mara"])


def analysis_from(data: Any) -> TurnAnalysis:
    """The original's in-memory analysis shape (camelCase) as our TurnAnalysis."""
    judgment = data.get("evolveCard", data.get("evolve_card"))
    evolve = EvolveJudgment(bool(judgment.get("worth")), judgment.get("reason") or "") if judgment else None
    return TurnAnalysis(evolve_card=evolve)


@pytest.mark.parametrize(
    "case",
    vectors("recall_filters.json").cases("should_run_card_evolution", shape("gate", "analysis run", "card")),
)
def test_should_run_card_evolution(case: Case) -> None:
    analysis = case["analysis"]
    judgment = (analysis or {}).get("evolveCard", (analysis or {}).get("evolve_card"))
    if judgment is not None and not isinstance(judgment, dict):
        pytest.fail(f"{case.where}: evolveCard is a {type(judgment).__name__}, expected an object")
    # A case may give the live card's text (a legacy or blank card changes the decision).
    card = case.get("card", CURRENT_CARD)
    run, reason = should_evolve(analysis_from(analysis or {}), card)
    assert run is case["run"]
    assert reason, "a decision always says why"


@pytest.mark.parametrize(
    "case", vectors("card_format.json").cases("overdue", shape("overdue", "today horizon overdue"))
)
def test_overdue_detection(case: Case, clock: FixedClock) -> None:
    items = [HorizonItem(h["text"], h["by"], h["refs"]) for h in case["horizon"]]
    card = card_from_text(card_text(horizon=items), clock.now())
    flags = time_flags(card, case["today"])
    assert [{"text": h.text, "by": h.by, "refs": h.refs} for h in flags.overdue] == case["overdue"]
