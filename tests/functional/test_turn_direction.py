"""A turn runs the evolution layer's pass where the card evolves, and saves it in the turn's commit."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core.clock import FixedClock
from core.memory.evolution.paths import FITNESS_JSON, playbook_md
from core.storage.local import LocalStorage
from tests.fakes.brain import ANALYZER, DIRECTION, analysis
from tests.fakes.fake_model_server import FakeModelServer, Reply, ToolCall
from tests.functional.turn_support import make_harness

pytestmark = pytest.mark.functional

FIRST = "2026-08-11-1115"


def test_an_explicit_request_also_evolves_the_playbooks(tmp_path: Path, fake_models: FakeModelServer) -> None:
    clock = FixedClock.at("2026-08-11T11:15:00.000Z")
    h = make_harness(LocalStorage(tmp_path), clock, fake_models)
    assert h.brain is not None
    h.brain.main("Hello!", "Noted.")
    h.turn("Hi there.")
    h.brain.reports[ANALYZER] = analysis(
        ["recall"], memory_update={"content": "Search by date.", "section": "self"}
    )
    h.brain.reports[DIRECTION] = Reply(
        tool_calls=[
            ToolCall("write_playbook", {"agent": "recall", "text": "Search by date before topic."}),
            ToolCall("score", {"bucket": "recall", "score": -1, "evidence": "you keep missing the dates"}),
            ToolCall(DIRECTION, {"reasoning": "The user explained how to search."}),
        ]
    )
    clock.advance(minutes=1)
    h.turn("Remember: you keep missing the dates when you search.", client_slice_id=FIRST, agent_turns_seen=1)
    assert h.read(str(playbook_md("recall"))) == "Search by date before topic.\n"
    (score,) = json.loads(h.read(str(FITNESS_JSON)) or "{}")["scores"]
    assert (score["slice"], score["bucket"], score["score"]) == (FIRST, "recall", -1)
    direction_prompt = h.brain.requests[DIRECTION][0].last_user_text
    assert "Signal: new_observation" in direction_prompt and "### recall\n(none yet)" in direction_prompt
