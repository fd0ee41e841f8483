"""The main screens render on a phone in the dark theme and on a dark desktop (saved to
docs/screenshots/ with SAVE_SCREENSHOTS=1; the light ones are saved by the other tests)."""

from __future__ import annotations

import pytest

from tests.browser.conftest import Server, save_screenshot
from tests.browser.scripted_turns import ScriptedTurns, full_script

pytestmark = pytest.mark.browser


def test_phone_screens_in_the_dark(make_app, demo_server: Server) -> None:
    app = make_app(demo_server, size="phone", scheme="dark")
    turns = ScriptedTurns(full_script()).install(app.page)
    page = app.open(wait="[data-testid=briefing]")
    page.wait_for_timeout(300)
    save_screenshot(page, "briefing-phone-dark")
    page.locator("[role=option][data-slice-id='2026-11-21-1040']").click()
    page.locator("[data-testid=slice-view] [data-testid=turn]").first.wait_for()
    save_screenshot(page, "slice-phone-dark")
    page.locator("#message-box").fill("When are the flights?")
    page.locator("#message-box").press("Enter")
    page.wait_for_selector("[data-testid=msg-assistant][data-status=done]")
    page.locator("[data-tool=recall] .card-head").click()
    page.locator(".pane-scroll").evaluate("el => el.scrollTo(0, 0)")
    assert turns.starts()
    save_screenshot(page, "chat-phone-dark")


def test_desktop_briefing_in_the_dark(make_app, demo_server: Server) -> None:
    app = make_app(demo_server, scheme="dark")
    page = app.open(wait="[data-testid=briefing]")
    page.wait_for_timeout(300)
    assert page.evaluate("document.documentElement.classList.contains('dark')")
    save_screenshot(page, "briefing-desktop-dark")
