"""D9: a page reloaded in the middle of a conversation continues its slice.

What the reloaded page does, through the API: it resumes the running turn, reads the open slice's
earlier exchanges from `GET /api/state` (`active`, `active_turns`), shows them, and reports all
of their replies as seen — so its next message joins the same slice instead of closing it as
`context_lost`. A client that shows only the resumed reply has lost the conversation, and the
rule (slicer.json's vectors) still closes the slice for it.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from core.clock import FixedClock
from core.storage.local import LocalStorage
from functions.api.app import create_app
from tests.fakes.fake_model_server import FakeModelServer, Reply
from tests.fakes.live_server import live_server
from tests.functional.api_env import harness_deps, with_key
from tests.functional.turn_support import Harness, make_harness

pytestmark = pytest.mark.functional

SLICE = "2026-08-11-1115"


@pytest.fixture
def harness(tmp_path: Path, fake_models: FakeModelServer) -> Harness:
    return make_harness(LocalStorage(tmp_path), FixedClock.at("2026-08-11T11:15:00.000Z"), fake_models)


def _done(http: httpx.Client, turn_id: str) -> dict[str, Any]:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        view = http.get(f"/api/turns/{turn_id}", params={"wait": 5}).json()
        if view["status"] != "running":
            return view
    raise AssertionError(f"turn {turn_id} did not finish")


def _started(view: dict[str, Any]) -> dict[str, Any]:
    return next(e for e in view["events"] if e["type"] == "turn.started")


def _reloaded_page_continues(harness: Harness, seen_by_page: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """Two exchanges, a third reloaded while it runs, then a fourth message with the client
    report `seen_by_page(state)` builds from the reloaded page's `GET /api/state`."""
    assert harness.brain is not None
    harness.brain.main("One.", "Two.", Reply(text="Three, slowly.", delay=1.5), "Four.")
    with (
        live_server(create_app(harness_deps(harness))) as url,
        httpx.Client(base_url=url, headers=with_key(), timeout=60) as http,
    ):
        first = http.post("/api/turns?wait=20", json={"message": "First."}).json()
        assert first["slice_id"] == SLICE
        second = {"message": "Second.", "client": {"slice_id": SLICE, "agent_turns_seen": 1}}
        assert http.post("/api/turns?wait=20", json=second).json()["slice_id"] == SLICE
        third = {"message": "Third.", "client": {"slice_id": SLICE, "agent_turns_seen": 2}}
        turn_id = http.post("/api/turns", json=third).json()["turn_id"]
        # The reload: a new page session resumes the turn and reads the open slice.
        state = http.get("/api/state").json()
        resumed = _done(http, turn_id)
        fourth = {"message": "Fourth.", "client": seen_by_page(state, resumed)}
        return state, _done(http, http.post("/api/turns", json=fourth).json()["turn_id"])


def test_the_open_slice_lists_the_earlier_exchanges_and_the_next_message_continues_it(
    harness: Harness,
) -> None:
    def whole_page(state: dict[str, Any], resumed: dict[str, Any]) -> dict[str, Any]:
        # The page shows the earlier replies of the open slice and the resumed one.
        earlier = [t for t in state["active_turns"] if t["turn_id"] != _started(resumed)["user_turn_id"]]
        seen = sum(1 for t in earlier if t["role"] == "agent") + 1
        return {"slice_id": _started(resumed)["slice_id"], "agent_turns_seen": seen}

    state, fourth = _reloaded_page_continues(harness, whole_page)
    assert state["active"]["slice_id"] == SLICE
    assert [(t["role"], t["content"]) for t in state["active_turns"][:4]] == [
        ("user", "First."),
        ("agent", "One."),
        ("user", "Second."),
        ("agent", "Two."),
    ]
    started = _started(fourth)
    assert (started["slice_id"], started["slice_opened"], started["slice_closed"]) == (SLICE, False, None)
    stored = harness.slice(SLICE)
    assert stored.status == "active" and not stored.closed_by
    said = [t.content for t in stored.turns if t.role == "user"]
    assert said == ["First.", "Second.", "Third.", "Fourth."]


def test_a_page_showing_only_the_resumed_reply_has_lost_the_conversation(harness: Harness) -> None:
    def resumed_only(state: dict[str, Any], resumed: dict[str, Any]) -> dict[str, Any]:
        return {"slice_id": _started(resumed)["slice_id"], "agent_turns_seen": 1}

    _, fourth = _reloaded_page_continues(harness, resumed_only)
    started = _started(fourth)
    assert started["slice_closed"] == SLICE and started["slice_opened"] is True
    assert harness.slice(SLICE).closed_by == "context_lost"
    said = [t.content for t in harness.slice(SLICE).turns if t.role == "user"]
    assert said == ["First.", "Second.", "Third."]
