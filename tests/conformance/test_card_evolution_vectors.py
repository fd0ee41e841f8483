"""The evolution gate (`recall_filters.json` → should_run_card_evolution) and overdue detection."""

from __future__ import annotations

from typing import Any

import pytest

from core.agent.analyzer import EvolveJudgment, TurnAnalysis
from core.agent.evolution import should_evolve
from core.clock import FixedClock
from core.memory.card import HorizonItem
from core.memory.card_time import card_from_text, time_flags
from tests.conftest import load_vectors
from tests.fakes.evolution import card_text

pytestmark = pytest.mark.conformance

CURRENT_CARD = card_text(identity=["Name: Mara"])


def analysis_from(data: dict[str, Any]) -> TurnAnalysis:
    """The original's in-memory analysis shape (camelCase) as our TurnAnalysis."""
    judgment = data.get("evolveCard")
    evolve = EvolveJudgment(bool(judgment["worth"]), judgment.get("reason", "")) if judgment else None
    return TurnAnalysis(evolve_card=evolve)


def test_should_run_card_evolution() -> None:
    cases = load_vectors("recall_filters.json")["should_run_card_evolution"]
    assert cases, "the vector section is empty"
    for case in cases:
        run, reason = should_evolve(analysis_from(case["analysis"]), CURRENT_CARD)
        assert run is case["run"], case
        assert reason, "a decision always says why"


def test_overdue_detection(clock: FixedClock) -> None:
    case = load_vectors("card_format.json")["overdue"]
    items = [HorizonItem(h["text"], h["by"], h["refs"]) for h in case["horizon"]]
    card = card_from_text(card_text(horizon=items), clock.now())
    flags = time_flags(card, case["today"])
    assert [{"text": h.text, "by": h.by, "refs": h.refs} for h in flags.overdue] == case["overdue"]
