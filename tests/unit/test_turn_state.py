"""The typed step state and save's record round-trip through JSON; a huge reply splits losslessly."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from core.memory.slice.slicer import split_text
from core.turn.state import Prepared, StepState
from core.turn.table import END, Flow, StepSpec, ToolLoop

pytestmark = pytest.mark.unit

ids = st.text(st.characters(categories=("L", "N")), min_size=1, max_size=12)


@given(
    turn_id=ids,
    nxt=st.sampled_from(["save", "respond", "tools", END]),
    rnd=st.integers(0, 8),
    extra=st.dictionaries(st.sampled_from(["loop", "error", "skipped_after"]), st.integers()),
)
def test_step_state_round_trips_and_keeps_foreign_keys(turn_id: str, nxt: str, rnd: int, extra: dict) -> None:
    state = StepState(turn_id, nxt, rnd, slice_id="2026-08-11-1115", extra=extra)
    data = json.loads(json.dumps(state.to_json()))
    assert StepState.from_json(data) == state
    assert data["more_tools"] is (nxt == "tools") and "attempt" not in data
    assert all(data[k] == v for k, v in extra.items())


def test_a_state_without_a_turn_id_is_refused() -> None:
    with pytest.raises(ValueError, match="turn_id"):
        StepState.from_json({"next": "save"})


def test_prepared_round_trips_and_a_missing_record_is_none() -> None:
    p = Prepared("2026-08-11-1115", True, None, "t1", False, "Europe/Berlin", "zh", "card note")
    assert Prepared.from_json(json.loads(json.dumps(p.to_json()))) == p
    assert Prepared.from_json(None) is None and Prepared.from_json({"slice_id": 3}) is None


@given(st.text(max_size=400), st.integers(4, 60))
def test_split_text_loses_nothing_and_respects_the_limit(text: str, limit: int) -> None:
    parts = split_text(text, limit)
    assert "".join(parts) == text
    assert all(len(p.encode("utf-8")) <= limit for p in parts)


def test_split_text_never_leaves_whitespace_at_a_cut() -> None:
    parts = split_text("alpha beta gamma delta", 12)
    assert "".join(parts) == "alpha beta gamma delta"
    assert all(not p[0].isspace() and not p[-1].isspace() for p in parts)


def test_a_flow_with_a_loop_edge_it_does_not_have_is_refused() -> None:
    step = StepSpec("a", "A", lambda s, d: s)
    with pytest.raises(ValueError, match="loop edge"):
        Flow((step,), {"a": (END,)}, "a", ToolLoop("a", "b", 3))
    with pytest.raises(ValueError, match="unknown steps"):
        Flow((step,), {"a": ("nowhere",)}, "a")
