"""The main screens render on a phone in the dark theme and on a dark desktop, an empty memory on
both, Chinese with real glyphs (saved to docs/screenshots/ with SAVE_SCREENSHOTS=1; the light ones
are saved by the other tests)."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import Server, assert_fits, save_screenshot, settle
from tests.browser.scripted_turns import ScriptedTurns, full_script

pytestmark = pytest.mark.browser


def test_phone_screens_in_the_dark(make_app, demo_server: Server) -> None:
    app = make_app(demo_server, size="phone", scheme="dark")
    turns = ScriptedTurns(full_script()).install(app.page)
    page = app.open(wait="[data-testid=briefing]")
    settle(page)
    save_screenshot(page, "briefing-phone-dark")
    page.locator("[role=option][data-slice-id='2026-11-21-1040']").click()
    page.locator("[data-testid=slice-view] [data-testid=turn]").first.wait_for()
    settle(page)
    save_screenshot(page, "slice-phone-dark")
    page.locator("#message-box").fill("When are the flights?")
    page.locator("#message-box").press("Enter")
    page.wait_for_selector("[data-testid=msg-assistant][data-status=done]")
    page.locator("[data-tool=recall] .card-head").click()
    expect(page.locator("[data-tool=recall] .card-head")).to_have_attribute("aria-expanded", "true")
    page.locator(".pane-scroll").evaluate("el => el.scrollTo(0, 0)")
    assert turns.starts()
    settle(page)
    save_screenshot(page, "chat-phone-dark")


def test_desktop_briefing_in_the_dark(make_app, demo_server: Server) -> None:
    app = make_app(demo_server, scheme="dark")
    page = app.open(wait="[data-testid=briefing]")
    expect(page.locator("html")).to_have_class(re.compile(r"\bdark\b"))
    settle(page)
    save_screenshot(page, "briefing-desktop-dark")


@pytest.mark.parametrize("size", ["phone", "desktop"])
def test_a_first_run_on_an_empty_memory_looks_finished(make_app, empty_server: Server, size: str) -> None:
    """What a newcomer sees first: the title, an invitation, NOW on the wheel, and nothing broken."""
    app = make_app(empty_server, size=size)
    page = app.open(wait="[data-testid=briefing]")
    settle(page)
    assert_fits(app)
    expect(page.locator("#message-box")).to_be_visible()
    expect(page.locator("[role=option][data-slice-id=now]")).to_be_visible()
    save_screenshot(page, f"empty-{size}-light")


# Tofu (a missing glyph) draws the same box for every character; real glyphs differ.
GLYPHS_DIFFER = """([a, b]) => {
  const font = getComputedStyle(document.body).fontFamily;
  const draw = (ch) => {
    const c = document.createElement('canvas'); c.width = c.height = 40;
    const g = c.getContext('2d'); g.font = `32px ${font}`; g.fillText(ch, 2, 32);
    return c.toDataURL();
  };
  return draw(a) !== draw(b);
}"""


def test_chinese_renders_with_real_glyphs_on_a_phone(make_app, demo_server: Server) -> None:
    app = make_app(demo_server, size="phone")
    page = app.open("/?lang=zh", wait="[data-testid=briefing]")
    settle(page)
    assert_fits(app)
    assert page.evaluate(GLYPHS_DIFFER, ["现", "在"]), "no CJK font: Chinese would show as boxes"
    save_screenshot(page, "briefing-phone-zh")
