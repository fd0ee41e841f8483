"""A tools round whose calls run side by side (API.md "A turn's events": `item`), one call retried.

The page must keep every call's tool card live while one call starts over at attempt 2, and a
reload mid-round (the stored events replayed) must show the same cards.
"""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Page

from tests.browser.conftest import Server
from tests.browser.scripted_turns import PAUSE, SLICE_ID, TURN_ID, ScriptedTurns

pytestmark = pytest.mark.browser

DONE = "[data-testid=msg-assistant][data-status=done]"
SLICES = ["2026-07-25-1430", "2026-07-01-0900", "2026-06-12-1800"]


def retried_round() -> list[Any]:
    """Three readSlice calls of one round; call 1 fails at attempt 1 and is retried."""
    events: list[Any] = []

    def add(type_: str, step: str, attempt: int = 1, item: int | None = None, **fields: Any) -> None:
        stamp = {} if item is None else {"item": item}
        events.append(
            {"turn_id": TURN_ID, "seq": len([e for e in events if e != PAUSE]) + 1, "type": type_}
            | {"step": step, "attempt": attempt, **stamp, **fields}
        )

    def call(item: int, state: str, attempt: int = 1, **out: Any) -> None:
        fields = {"call_id": f"c{item}", "tool": "readSlice", "label": "", "state": state}
        add("tool.call", "tools", attempt, item, input={"sliceId": SLICES[item]}, **fields, **out)

    add("turn.started", "save", slice_id=SLICE_ID, slice_opened=False, slice_closed=None, user_turn_id="u1")
    add("step.started", "respond", label="Thinking")
    add("text.delta", "respond", text="Let me look. ")
    add("step.done", "respond", label="Thinking")
    for item in range(3):
        add("step.started", "tools", 1, item, label="Using tools")
    for item in range(3):
        call(item, "running")
    call(1, "error", output="lost")
    add("step.started", "tools", 2, 1, label="Using tools")  # only call 1 starts over
    call(1, "running", 2)
    call(0, "completed", output="zero")  # the other calls' attempt-1 events still count
    add("step.done", "tools", 1, 0, label="Using tools")
    events.append(PAUSE)
    call(2, "completed", output="two")
    add("step.done", "tools", 1, 2, label="Using tools")
    call(1, "completed", 2, output="one")
    add("step.done", "tools", 2, 1, label="Using tools")
    add("step.started", "respond", label="Thinking")
    add("text.delta", "respond", text="All three are read.")
    add("turn.done", "finalize", status="done", agent_turn_id="a1", usage={})
    return events


def _cards(page: Page) -> list[list[str]]:
    return page.get_by_test_id("tool-card").evaluate_all(
        "els => els.map(e => [e.dataset.tool, e.dataset.state])"
    )


@pytest.mark.parametrize("size", ["phone", "desktop"])
def test_a_retried_call_keeps_the_other_calls_cards_live_and_after_a_reload(
    make_app, demo_server: Server, size: str
) -> None:
    app = make_app(demo_server, size=size)
    turns = ScriptedTurns(retried_round()).install(app.page)
    app.open(wait="[data-testid=briefing]")
    page = app.page
    box = page.locator("#message-box")
    box.fill("Read those three slices.")
    box.press("Enter")
    page.locator("[data-tool=readSlice][data-state=completed]").wait_for()
    live = [["readSlice", "completed"], ["readSlice", "running"], ["readSlice", "running"]]
    assert _cards(page) == live, "call 0 done, call 2 still at attempt 1, call 1 at attempt 2"
    page.reload()
    page.locator("[data-tool=readSlice][data-state=completed]").wait_for()
    assert _cards(page) == live, "the replayed events show the same cards"
    turns.release()
    page.wait_for_selector(DONE)
    assert _cards(page) == [["readSlice", "completed"]] * 3
    replies = page.locator(f"{DONE} .reply").all_inner_texts()
    assert [r.strip() for r in replies] == ["Let me look.", "All three are read."]
