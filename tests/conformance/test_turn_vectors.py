"""slicer.json `history_window` and `turn_status`: the turn's slice-aligned history and end status."""

from __future__ import annotations

import pytest

from core.turn.history import slice_window
from core.turn.steps.finalize import turn_status
from tests.conformance.vectors import Case, shape, vectors

pytestmark = pytest.mark.conformance

V = vectors("slicer.json")


@pytest.mark.parametrize(
    "case", V.cases("history_window", shape("window", "history userTurnsInSlice maxMessages window"))
)
def test_history_window(case: Case) -> None:
    window = slice_window(case["history"], lambda m: m["role"], case["userTurnsInSlice"], case["maxMessages"])
    assert window == case["window"]


@pytest.mark.parametrize("case", V.cases("turn_status", shape("status", "finishReason text status")))
def test_turn_status(case: Case) -> None:
    assert turn_status(case["finishReason"], case["text"]) == case["status"]
