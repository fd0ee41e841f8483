"""The web tools' cards: labels in each state, webSearch's sources as links, the unseen-picture note."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from core.web.search import SearchResult, results_text
from tests.browser.conftest import Server
from tests.browser.scripted_turns import SLICE_ID, ScriptedTurns, _event

pytestmark = pytest.mark.browser
DONE = "[data-testid=msg-assistant][data-status=done]"
RESULTS = results_text(
    "balcony tomatoes",
    [
        SearchResult(
            "Growing Tomatoes on a Balcony", "https://gardens.example/tomatoes", "Six hours of sun."
        ),
        SearchResult("Tomato feeding guide", "https://feed.example/guide", "Every two weeks."),
    ],
)


def _tool(
    call_id: str, tool: str, state: str, input: dict[str, Any], output: str | None = None
) -> dict[str, Any]:
    fields: dict[str, Any] = {"call_id": call_id, "tool": tool, "label": "", "state": state, "input": input}
    return fields if output is None else {**fields, "output": output}


def _script() -> list[Any]:
    search = {"query": "balcony tomatoes"}
    rows: list[tuple[str, dict[str, Any]]] = [
        ("turn.started", {"slice_id": SLICE_ID, "slice_opened": True, "user_turn_id": "u1"}),
        ("tool.call", _tool("s1", "webSearch", "running", search)),
        ("tool.call", _tool("s1", "webSearch", "completed", search, RESULTS)),
        ("tool.call", _tool("f1", "webFetch", "running", {"url": "https://gardens.example/tomatoes"})),
        ("tool.call", _tool("f1", "webFetch", "error", {"url": "http://192.168.1.1/"},
                             "ERROR: Cannot fetch local or private network addresses.")),
        ("tool.call", _tool("f2", "webFetch", "interrupted", {"url": "https://feed.example/guide"})),
        ("tool.call", _tool("s2", "webSearch", "denied", {"query": "x"}, "Web search is off.")),
        ("attachment.unseen", {"count": 1, "model": "deepseek-v4-flash"}),
        ("text.delta", {"text": "Six hours of sun (gardens.example)."}),
        ("turn.done", {"status": "done", "agent_turn_id": "a1", "usage": {}}),
    ]  # fmt: skip
    return [_event(i + 1, t, **f) for i, (t, f) in enumerate(rows)]


@pytest.mark.parametrize("size", ["phone", "desktop"])
def test_web_cards_show_their_states_and_sources(make_app, demo_server: Server, size: str) -> None:
    app = make_app(demo_server, size=size)
    ScriptedTurns(_script()).install(app.page)
    page = app.open(wait="[data-testid=briefing]")
    page.locator("#message-box").fill("How do I grow tomatoes?")
    page.locator("#message-box").press("Enter")
    page.wait_for_selector(DONE)
    cards = page.locator(f"{DONE} [data-testid=tool-card]")
    states = cards.evaluate_all(
        "els => els.map(e => [e.dataset.tool, e.dataset.state, e.querySelector('.card-label').innerText])"
    )
    assert states[0] == ["webSearch", "completed", 'Searched the web for "balcony tomatoes"']
    assert [s[1] for s in states] == ["completed", "error", "interrupted", "denied"]
    assert states[1][2] == "Could not fetch 192.168.1.1"
    first = cards.first
    first.locator(".card-head").first.click()
    links = first.locator("[data-testid=web-source] a")
    expect(links).to_have_count(2)
    assert links.evaluate_all("els => els.map(a => [a.innerText, a.getAttribute('href')])") == [
        ["Growing Tomatoes on a Balcony", "https://gardens.example/tomatoes"],
        ["Tomato feeding guide", "https://feed.example/guide"],
    ]
    expect(page.get_by_test_id("attach-unseen")).to_contain_text("cannot see images")
