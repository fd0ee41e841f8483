"""The shell (UI.md §2 A): a clean load, no overflow, the header, theme and language."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import App, Server, assert_fits, save_screenshot, settle
from tests.browser.scripted_turns import ScriptedTurns, full_script

pytestmark = pytest.mark.browser


@pytest.mark.parametrize("size", ["phone", "desktop"])
def test_loads_clean_and_fits_on_every_screen(make_app, demo_server: Server, size: str) -> None:
    app = make_app(demo_server, size=size)
    page = app.open()
    page.wait_for_selector("[data-testid=briefing]")
    assert_fits(app)
    save_screenshot(page, f"briefing-{size}-light")
    page.locator("[role=option][data-slice-id='2026-11-18-2045']").click()
    page.wait_for_selector("[data-testid=slice-view] [data-testid=turn]")
    assert_fits(app)
    page.goto(demo_server.url + "/#/settings")
    page.wait_for_selector("[data-testid=settings-form]")
    assert_fits(app)


def test_header_stays_and_phone_shows_named_icons(make_app, demo_server: Server) -> None:
    app = make_app(demo_server, size="phone")
    page = app.open("/#/slice/2026-11-18-2045", wait="[data-testid=turn]")
    page.locator(".pane-scroll").evaluate("el => el.scrollTo(0, el.scrollHeight)")
    box = page.get_by_test_id("app-header").bounding_box()
    assert box and box["y"] == 0 and box["height"] == 48
    controls = page.locator("[data-testid=app-header] nav button, [data-testid=app-header] nav a")
    assert controls.count() >= 5
    for i in range(controls.count()):
        control = controls.nth(i)
        if not control.is_visible():
            continue
        assert control.get_attribute("aria-label") or control.inner_text().strip(), control.inner_html()
        labels = control.locator(".nav-label")
        assert labels.count() == 0 or not labels.first.is_visible()


def test_theme_follows_the_system_cycles_and_persists_without_a_flash(make_app, demo_server: Server) -> None:
    app = make_app(demo_server, scheme="dark")
    probe = """document.addEventListener('DOMContentLoaded', () => {
      window.__darkAtStart = document.documentElement.classList.contains('dark'); });"""
    app.page.add_init_script(probe)
    page = app.open()
    assert page.evaluate("window.__darkAtStart") is True
    dark = "() => document.documentElement.classList.contains('dark')"
    light = "() => !document.documentElement.classList.contains('dark')"
    # The class follows the toggle in an effect after its render: wait for it, briefly.
    toggle = page.get_by_test_id("theme-toggle")
    assert toggle.get_attribute("data-theme") == "system"
    toggle.click()
    expect(toggle).to_have_attribute("data-theme", "light")
    page.wait_for_function(light, timeout=3000)
    toggle.click()
    expect(toggle).to_have_attribute("data-theme", "dark")
    page.wait_for_function(dark, timeout=3000)
    page.emulate_media(color_scheme="light")
    page.reload()
    page.wait_for_selector("[data-testid=wheel]")
    assert page.evaluate("window.__darkAtStart") is True
    page.get_by_test_id("theme-toggle").click()
    expect(page.get_by_test_id("theme-toggle")).to_have_attribute("data-theme", "system")
    page.wait_for_function(light, timeout=3000)


def test_chinese_from_the_url_sticks_and_the_toggle_switches_back(make_app, demo_server: Server) -> None:
    app = make_app(demo_server)
    page = app.open("/?lang=zh", wait="[data-testid=briefing]")
    assert page.evaluate("document.documentElement.lang") == "zh"
    assert "上回说到" in (page.get_by_test_id("briefing-last-topic").text_content() or "")
    assert "现在" in page.locator("[role=option][data-slice-id=now]").inner_text()
    page.goto(demo_server.url + "/")
    page.wait_for_selector("[data-testid=briefing]")
    assert page.evaluate("document.documentElement.lang") == "zh"
    page.get_by_test_id("locale-toggle").click()
    page.wait_for_function("() => document.documentElement.lang === 'en'")
    # The briefing is read again in the new language: its words follow the request.
    expect(page.get_by_test_id("briefing-last-topic")).to_contain_text("Last time")


CHROME_TEXT = """(selector) => [...document.querySelectorAll(selector)]
  .filter((el) => el.offsetParent !== null)
  .map((el) => el.innerText.trim()).filter(Boolean)"""


def _untranslated(app: App, selectors: list[str]) -> list[str]:
    # Chip labels and topics are memory data; only the interface's own words are checked.
    texts = [t for sel in selectors for t in app.page.evaluate(CHROME_TEXT, sel)]
    assert texts, selectors
    return [t for t in texts if "⟦" not in t]


def test_every_visible_ui_string_comes_from_the_dictionaries(make_app, demo_server: Server) -> None:
    app = make_app(demo_server)
    turns = ScriptedTurns(full_script()).install(app.page)
    page = app.open("/?lang=qps", wait="[data-testid=briefing]")
    assert (
        _untranslated(
            app, [".brief-heading", ".brief-more", ".eyebrow", "[data-testid=app-header] .nav-label"]
        )
        == []
    )
    page.goto(demo_server.url + "/?lang=qps#/slice/2025-06-14-0720")
    page.wait_for_selector("[data-testid=turn]")
    assert _untranslated(app, [".prev-bar", ".slice-nav button", ".thoughts", ".pill-title"]) == []
    page.goto(demo_server.url + "/?lang=qps#/slice/2026-04-02-1840")
    page.wait_for_selector(".empty-state")
    assert _untranslated(app, [".empty-state"]) == []
    page.goto(demo_server.url + "/?lang=qps#/")
    page.wait_for_selector("[data-testid=briefing]")
    page.locator("#message-box").fill("hello")
    page.keyboard.press("Enter")
    page.wait_for_selector("[data-testid=msg-assistant][data-status=done]")
    assert turns.starts()
    # A tool card's label is the server's, in the turn's language (core/turn/labels.py), not the page's.
    own_labels = ".card-label:not([data-testid=tool-card] .card-label)"
    assert (
        _untranslated(app, [own_labels, ".card-meta:not(.mono)", ".card-sub:not(.mono)", ".code-copy"]) == []
    )


@pytest.mark.parametrize("size", ["phone", "desktop"])
def test_the_demo_wears_a_badge_that_explains_itself(
    make_app, demo_server: Server, empty_server: Server, size: str
) -> None:
    app = make_app(demo_server, size=size)
    page = app.open(wait="[data-testid=briefing]")
    badge = page.get_by_test_id("demo-badge")
    badge.wait_for(state="visible")
    assert badge.get_attribute("aria-expanded") == "false"
    badge.click()
    expect(badge).to_have_attribute("aria-expanded", "true")
    popover = page.locator(".popover[role=dialog]")
    expect(popover).to_be_visible()
    expect(popover).to_have_text(re.compile(r"\S"))
    box = popover.bounding_box()
    assert box and box["x"] >= 0 and box["x"] + box["width"] <= page.viewport_size["width"], box
    if size == "phone":
        settle(page)
        save_screenshot(page, "demo-notice-phone")
    page.keyboard.press("Escape")
    popover.wait_for(state="detached")
    own = make_app(empty_server, size=size)
    # The flags come with /api/state; its setup notice shows that it has answered.
    own.open(wait="[data-testid=briefing] .notice")
    expect(own.page.get_by_test_id("demo-badge")).to_have_count(0)


# Open the popover and press Esc as soon as it is drawn (a microtask later), before the next frame.
ESC_AT_ONCE = """async () => {
  const badge = document.querySelector('[data-testid=demo-badge]');
  badge.click();
  await Promise.resolve();
  const drawn = !!document.querySelector('.popover[role=dialog]');
  badge.dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape', bubbles: true }));
  return drawn;
}"""


def test_esc_right_after_a_popover_opens_closes_it(make_app, demo_server: Server) -> None:
    app = make_app(demo_server)
    page = app.open(wait="[data-testid=briefing]")
    badge = page.get_by_test_id("demo-badge")
    badge.wait_for(state="visible")
    assert page.evaluate(ESC_AT_ONCE) is True, "the popover is drawn before the Esc"
    expect(page.locator(".popover[role=dialog]")).to_have_count(0)
    expect(badge).to_have_attribute("aria-expanded", "false")
    expect(badge).to_be_focused()
