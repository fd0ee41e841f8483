"""The cosmetic and low defects of the December audit (docs/UI.md "The December audit"): D21, D23,
D26, D28, D29, D16 and D24, each checked at the size where it showed."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import Server
from tests.browser.scripted_turns import PAUSE, SLICE_ID, ScriptedTurns, _event

pytestmark = pytest.mark.browser

LABELS = "els => els.map(e => e.innerText.trim())"


def _thinking_script() -> list[Any]:
    start = {"slice_id": SLICE_ID, "slice_opened": True, "slice_closed": None, "user_turn_id": "u1"}
    return [
        _event(1, "turn.started", "save", **start),
        _event(2, "step.started", "save", label="Saving your message"),
        PAUSE,
        _event(3, "step.done", "save", label="Saving your message"),
        _event(4, "step.started", "respond", label="Thinking"),
        _event(5, "reasoning.delta", "respond", text="She asks about the flights."),
        PAUSE,
        _event(6, "text.delta", "respond", text="Saturday."),
        _event(7, "step.done", "respond", label="Thinking"),
        _event(8, "turn.done", "finish", status="done", agent_turn_id="a1"),
    ]


def test_d21_each_stage_is_said_once_and_the_first_seconds_name_the_step(
    make_app: Any, demo_server: Server
) -> None:
    app = make_app(demo_server, size="phone")
    turns = ScriptedTurns(_thinking_script()).install(app.page)
    page = app.open(wait="[data-testid=briefing]")
    page.locator("#message-box").fill("Flights?")
    page.locator("#message-box").press("Enter")
    msg = page.get_by_test_id("msg-assistant")
    labels = msg.locator(".stage-pill, .card-label")
    # Saving: the steps card names the step; no vague "Getting ready…" beside it.
    expect(msg.get_by_test_id("housekeeping")).to_contain_text("Saving your message…")
    expect(msg.get_by_test_id("stage-pill")).to_have_count(0)
    assert "Getting ready…" not in msg.inner_text()
    turns.release()
    # Thinking: only the reasoning card says it (with its timer), not the pill and the steps too.
    expect(msg.get_by_test_id("reasoning")).to_have_attribute("data-state", "running")
    said = [x for x in labels.evaluate_all(LABELS) if "Thinking" in x]
    assert said == ["Thinking…"], said
    expect(msg.get_by_test_id("housekeeping")).to_have_attribute("data-phase", "replying")
    expect(msg.get_by_test_id("housekeeping").locator(".card-label")).to_have_text("Ready — answering")
    turns.release()
    expect(page.locator("[data-testid=msg-assistant][data-status=done]")).to_have_count(1)
