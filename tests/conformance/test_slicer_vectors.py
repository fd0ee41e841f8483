"""slicer.json (slice age, context lost, deterministic mark) and slice_create.json (the new slice)."""

from __future__ import annotations

import pytest

from core.clock import parse_iso
from core.memory.config import UserConfig
from core.memory.slice import slicer
from core.memory.slice.model import Turn
from tests.conformance.slice_shapes import SLICE
from tests.conformance.vectors import Case, shape, vectors

pytestmark = pytest.mark.conformance

V = vectors("slicer.json")


@pytest.mark.parametrize(
    "defaults",
    V.cases("defaults", shape("defaults", "maxSliceMinutes DEFAULT_MAX_SLICE_AGE_MS maxTurnsPerSlice")),
)
def test_defaults_match(defaults: Case) -> None:
    config = UserConfig()
    assert config.max_slice_minutes == defaults["maxSliceMinutes"]
    assert config.max_slice_minutes * 60_000 == defaults["DEFAULT_MAX_SLICE_AGE_MS"]
    assert config.max_turns_per_slice == defaults["maxTurnsPerSlice"]


@pytest.mark.parametrize("case", V.cases("slice_age", shape("age", "start now maxMs closes")))
def test_slice_age(case: Case) -> None:
    assert slicer.slice_age_exceeded(case["start"], parse_iso(case["now"]), case["maxMs"]) is case["closes"]


@pytest.mark.parametrize(
    "case", V.cases("context_lost", shape("lost", "client_roles slice_roles context_lost"))
)
def test_context_lost_from_counts(case: Case) -> None:
    # We receive counts (API.md §4 `client.agent_turns_seen`) instead of the message list.
    seen = case["client_roles"].count("assistant")
    agents = case["slice_roles"].count("agent")
    assert slicer.context_lost(seen, agents) is case["context_lost"]


@pytest.mark.parametrize("case", V.cases("deterministic_mark", shape("mark", "turns tags mark", "locale")))
def test_deterministic_mark(case: Case) -> None:
    turns = [Turn(None, t["timestamp"], t["role"], t["content"]) for t in case["turns"]]
    mark = slicer.deterministic_mark(turns, case["tags"], case.get("locale", "zh"))
    assert {"focus": mark.focus, "summary": mark.summary} == case["mark"]


@pytest.mark.parametrize("expected", vectors("slice_create.json").cases("result", SLICE))
def test_create_slice_matches_vector(expected: Case) -> None:
    """createSlice(message, timezone, turnId) at the vector's clock (its `start`)."""
    first = expected["turns"][0]
    now = parse_iso(expected["start"])
    made = slicer.open_slice(
        first["content"], expected["timezone"], first["turnId"], now, slicer.minute_id(now)
    )
    assert (made.slice_id, made.status, made.start, made.timezone, made.focus, made.summary) == (
        expected["slice_id"],
        expected["status"],
        expected["start"],
        expected["timezone"],
        expected["focus"],
        expected["summary"],
    )
    assert [(t.turn_id, t.timestamp, t.role, t.content) for t in made.turns] == [
        (t["turnId"], t["timestamp"], t["role"], t["content"]) for t in expected["turns"]
    ]
    for key in ("open_loops", "decisions", "tags", "related_slices", "loops"):
        assert getattr(made, key) == expected[key]
