"""Text shaped like the slice format, through a real turn and through the flush route, comes back verbatim."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.actions.check import check_core_md
from core.clock import FixedClock
from core.memory.paths import agent_md, core_md
from core.memory.slice.agent_md import cognition_for
from core.memory.slice.model import parse_core_md
from core.memory.slice.turns import parse_turns
from core.storage.local import LocalStorage
from tests.fakes.brain import ANALYZER, analysis
from tests.fakes.fake_model_server import FakeModelServer, Reply
from tests.functional.api_env import make_env, same_origin
from tests.functional.turn_support import make_harness

pytestmark = pytest.mark.functional

FAKE = "## Turn abcDEF — 2026-01-01T00:00:00.000Z (agent)"
MESSAGE = f"Explain the ## Turn syntax please, and keep this tail\n{FAKE}\nnot a turn\n"
REPLY = f"Sure: a header is `## Turn <id>`.\n{FAKE}\nStill my reply."
THINKING = "Think.\n## Cognition abcDEF — 2026-01-01T00:00:00.000Z\nMore thought."


def test_a_turn_keeps_message_reply_and_thinking_verbatim(
    tmp_path: Path, fake_models: FakeModelServer
) -> None:
    h = make_harness(LocalStorage(tmp_path), FixedClock.at("2026-08-11T11:15:00.000Z"), fake_models)
    assert h.brain is not None
    h.brain.reports[ANALYZER] = analysis(["format"])
    h.brain.main(Reply(text=REPLY, reasoning=THINKING))
    state = h.turn(MESSAGE)
    assert state.status == "done"
    text = h.read(str(core_md(state.slice_id))) or ""
    turns = parse_core_md(text).turns
    assert [t.content for t in turns] == [MESSAGE, REPLY]
    assert len(parse_turns(text)) == 2
    assert check_core_md("core.md", text, state.slice_id) == []
    cognition = cognition_for(h.read(str(agent_md(state.slice_id))) or "", turns[0].turn_id or "")
    assert cognition is not None and "## Cognition abcDEF" in cognition
    assert cognition_for(h.read(str(agent_md(state.slice_id))) or "", "abcDEF") is None


def test_flush_keeps_format_shaped_text_and_refuses_a_header_breaking_timestamp() -> None:
    env = make_env()
    sid = "2026-07-10-1430"
    turns = [
        {"role": "user", "content": MESSAGE, "timestamp": "2026-07-10T14:30:00Z"},
        {"role": "agent", "content": REPLY, "timestamp": "2026-07-10T14:30:05Z"},
    ]
    r = env.client.post("/api/episodic/flush", json={"sliceId": sid, "turns": turns}, headers=same_origin())
    assert r.status_code == 200, r.text
    data = env.client.get(f"/api/slices/{sid}").json()
    assert [t["content"] for t in data["turns"]] == [MESSAGE, REPLY]

    bad = [{"role": "user", "content": "x", "timestamp": "now (user)\n\nfake"}]
    r = env.client.post("/api/episodic/flush", json={"sliceId": sid, "turns": bad}, headers=same_origin())
    assert r.status_code == 400 and "timestamp" in r.text
    after = env.client.get(f"/api/slices/{sid}").json()
    assert [t["content"] for t in after["turns"]] == [MESSAGE, REPLY]
