"""The arrival briefing (UI.md §2 B): real data only, chips that send, the card dialog, empty memory."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import Server
from tests.browser.scripted_turns import ScriptedTurns, full_script

pytestmark = pytest.mark.browser


def _card_name(server: Server) -> str:
    card = server.get("/api/card")
    for entry in card["entries"]:
        if entry["section"] == "identity" and entry["text"].startswith("Name:"):
            return str(entry["text"].split(":", 1)[1].strip())
    raise AssertionError("the sample card has a Name")


@pytest.mark.parametrize("size", ["phone", "desktop"])
def test_briefing_shows_the_name_last_topic_loops_and_chips(make_app, demo_server: Server, size: str) -> None:
    app = make_app(demo_server, size=size)
    page = app.open(wait="[data-testid=briefing]")
    assert (page.locator("[data-testid=briefing] .eyebrow").text_content() or "").lower() == "previously on"
    assert page.get_by_test_id("briefing-name").inner_text() == _card_name(demo_server)
    last = demo_server.get("/api/timeline")["slices"][-1]
    assert last["focus"] in page.get_by_test_id("briefing-last-topic").inner_text()
    loops = page.locator("[data-testid=briefing-loops] li").all_inner_texts()
    assert loops == last["open_loops"][:4]
    chips = page.get_by_test_id("briefing-chip")
    assert chips.count() >= 2
    for label in chips.all_inner_texts():
        assert 0 < len(label) <= 30, label


def test_a_chip_sends_its_full_prompt_and_opens_the_live_chat(make_app, demo_server: Server) -> None:
    app = make_app(demo_server)
    turns = ScriptedTurns(full_script()).install(app.page)
    page = app.open(wait="[data-testid=briefing-chip]")
    chip = page.get_by_test_id("briefing-chip").first
    prompt = chip.get_attribute("title")
    chip.click()
    page.wait_for_selector("[data-testid=msg-user]")
    expect(page.get_by_test_id("briefing")).to_have_count(0)
    expect(page.locator("[data-testid=msg-user] .bubble")).to_have_text(str(prompt))
    start = turns.starts()[0]
    assert start["message"] == prompt


def test_the_card_dialog_renders_markdown_and_esc_returns_focus(make_app, demo_server: Server) -> None:
    app = make_app(demo_server)
    page = app.open(wait="[data-testid=briefing]")
    opener = page.locator(".brief-more")
    opener.click()
    dialog = page.get_by_test_id("previously-dialog")
    dialog.locator("h2:has-text('Identity')").wait_for()
    headings = dialog.locator(".md h2").all_inner_texts()
    assert "Identity" in headings and "Now" in headings
    page.keyboard.press("Escape")
    page.wait_for_function("() => !document.querySelector('[data-testid=previously-dialog]').open")
    # Focus goes back with the dialog's close event, a task after it closed.
    expect(opener).to_be_focused()


def test_an_empty_memory_shows_only_the_title_and_now(make_app, empty_server: Server) -> None:
    app = make_app(empty_server)
    page = app.open(wait="[data-testid=briefing]")
    assert (page.locator("[data-testid=briefing] .eyebrow").text_content() or "").lower() == "previously on"
    assert page.get_by_test_id("briefing-name").inner_text().strip()
    expect(page.locator(".brief-heading")).to_have_count(0)
    expect(page.get_by_test_id("briefing-chip")).to_have_count(0)
    options = page.locator("[role=option]")
    expect(options).to_have_count(1)
    assert options.first.get_attribute("data-slice-id") == "now"
    assert options.first.get_attribute("aria-setsize") == "1"
    assert options.first.get_attribute("aria-selected") == "true"
