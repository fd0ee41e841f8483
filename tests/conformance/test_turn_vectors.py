"""slicer.json `history_window` and `turn_status`: the turn's slice-aligned history and end status."""

from __future__ import annotations

from typing import Any

import pytest

from core.turn.history import slice_window
from core.turn.steps.finalize import turn_status
from tests.conftest import load_vectors

pytestmark = pytest.mark.conformance

V = load_vectors("slicer.json")


@pytest.mark.parametrize("case", V["history_window"], ids=range(len(V["history_window"])))
def test_history_window(case: dict[str, Any]) -> None:
    window = slice_window(case["history"], lambda m: m["role"], case["userTurnsInSlice"], case["maxMessages"])
    assert window == case["window"]


@pytest.mark.parametrize("case", V["turn_status"], ids=[c["finishReason"] for c in V["turn_status"]])
def test_turn_status(case: dict[str, Any]) -> None:
    assert turn_status(case["finishReason"], case["text"]) == case["status"]
