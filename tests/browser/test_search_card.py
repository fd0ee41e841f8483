"""A webSearch card with the search helper's answer shows the answer above the sources, at both sizes."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from core.agent.workers.search_agent import SearchReportIn, answer_text
from core.web.search import SearchResult
from tests.browser.conftest import Server
from tests.browser.scripted_turns import SLICE_ID, ScriptedTurns, _event

pytestmark = pytest.mark.browser
DONE = "[data-testid=msg-assistant][data-status=done]"
SOURCES = [SearchResult("Growing Tomatoes on a Balcony", "https://gardens.example/tomatoes", "Sun.")]
OUTPUT = answer_text(
    "balcony tomatoes",
    SearchReportIn(answer="Six hours of sun [1].", recommendation="Open [1] for the pot size."),
    SOURCES,
)


def _script() -> list[Any]:
    call = {"call_id": "s1", "tool": "webSearch", "label": "", "input": {"query": "balcony tomatoes"}}
    rows: list[tuple[str, dict[str, Any]]] = [
        ("turn.started", {"slice_id": SLICE_ID, "slice_opened": True, "user_turn_id": "u1"}),
        ("tool.call", {**call, "state": "running"}),
        ("tool.call", {**call, "state": "completed", "output": OUTPUT}),
        ("text.delta", {"text": "Six hours of sun."}),
        ("turn.done", {"status": "done", "agent_turn_id": "a1", "usage": {}}),
    ]
    return [_event(i + 1, t, **f) for i, (t, f) in enumerate(rows)]


@pytest.mark.parametrize("size", ["phone", "desktop"])
def test_the_helper_answer_heads_the_sources(make_app, demo_server: Server, size: str) -> None:
    app = make_app(demo_server, size=size)
    ScriptedTurns(_script()).install(app.page)
    page = app.open(wait="[data-testid=briefing]")
    page.locator("#message-box").fill("How do I grow tomatoes?")
    page.locator("#message-box").press("Enter")
    card = page.locator(f"{DONE} [data-testid=tool-card]").first
    card.locator(".card-head").first.click()
    expect(card.get_by_test_id("web-answer")).to_have_text(
        "Six hours of sun [1].\n\nRecommendation: Open [1] for the pot size."
    )
    expect(card.locator("[data-testid=web-source] a")).to_have_text(["Growing Tomatoes on a Balcony"])
