"""Accessibility (UI.md §2 G): axe-core finds nothing serious, the keyboard reaches everything, replies
are announced once."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import Server, save_screenshot, settle
from tests.browser.scripted_turns import ScriptedTurns, full_script

pytestmark = pytest.mark.browser

AXE = Path(__file__).with_name("vendor") / "axe.min.js"
RUN_AXE = """async () => {
  const r = await axe.run(document, {resultTypes: ['violations']});
  return r.violations.filter(v => v.impact === 'serious' || v.impact === 'critical')
    .map(v => ({id: v.id, impact: v.impact, help: v.help,
                nodes: v.nodes.slice(0, 3).map(n => n.target.join(' '))}));
}"""


def serious_violations(page: Page) -> list[dict[str, Any]]:
    """Serious and critical axe-core violations on the page as it is now, once its finite
    animations (a dialog fading in) have ended: colours measured mid-fade read as low contrast."""
    settle(page)
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        page.add_script_tag(path=str(AXE))
    return list(page.evaluate(RUN_AXE))


def _scan_screens(page: Page, server: Server, shot: str, everything: bool) -> dict[str, list[dict[str, Any]]]:
    found: dict[str, list[dict[str, Any]]] = {"briefing": serious_violations(page)}
    if everything:
        page.locator(".brief-more").click()
        page.get_by_test_id("previously-dialog").locator(".md").wait_for()
        found["card dialog"] = serious_violations(page)
        page.keyboard.press("Escape")
    page.locator("[role=option][data-slice-id='2026-11-26-2010']").click()
    page.locator("[data-testid=slice-view] [data-testid=turn]").first.wait_for()
    found["slice view"] = serious_violations(page)
    save_screenshot(page, f"slice-{shot}")
    if everything:
        page.locator(".turn.agent .thoughts").first.click()
        page.get_by_test_id("cognition-dialog").locator(".md").wait_for()
        found["thoughts dialog"] = serious_violations(page)
        page.keyboard.press("Escape")
    page.locator("#message-box").fill("When are the flights?")
    page.locator("#message-box").press("Enter")
    page.wait_for_selector("[data-testid=msg-assistant][data-status=done]")
    for head in page.locator(".card-head[role=button]").all():
        head.click()
        expect(head).to_have_attribute("aria-expanded", "true")
    found["live chat"] = serious_violations(page)
    save_screenshot(page, f"chat-{shot}")
    if everything:
        page.get_by_test_id("open-search").click()
        page.locator("#search-q").fill("flights")
        page.get_by_test_id("search-result").first.wait_for()
        found["search"] = serious_violations(page)
        page.keyboard.press("Escape")
        page.goto(server.url + "/#/settings")
        page.get_by_test_id("settings-form").wait_for()
        found["settings"] = serious_violations(page)
        page.goto(server.url + "/#/card")
        page.get_by_test_id("card-entry").first.wait_for()
        found["card"] = serious_violations(page)
    return found


@pytest.mark.parametrize(("size", "scheme"), [("desktop", "light"), ("desktop", "dark"), ("phone", "light")])
def test_no_serious_violations_across_the_screens(
    make_app, demo_server: Server, size: str, scheme: str
) -> None:
    """Every screen and dialog on a light desktop; the main screens in the dark and on a phone."""
    app = make_app(demo_server, size=size, scheme=scheme, reduced=True)
    turns = ScriptedTurns(full_script()).install(app.page)
    page = app.open(wait="[data-testid=briefing]")
    everything = (size, scheme) == ("desktop", "light")
    found = _scan_screens(page, demo_server, f"{size}-{scheme}", everything)
    assert turns.starts()
    assert {k: v for k, v in found.items() if v} == {}


def test_the_keyboard_reaches_every_region_with_a_visible_focus_ring(make_app, demo_server: Server) -> None:
    app = make_app(demo_server)
    page = app.open(wait="[data-testid=briefing]")
    page.evaluate("document.activeElement && document.activeElement.blur()")
    order: list[str] = []
    ring: dict[str, bool] = {}
    for _ in range(40):
        page.keyboard.press("Tab")
        where = page.evaluate(
            """() => { const a = document.activeElement;
              if (a.classList.contains('skip-link')) return 'skip';
              if (a.dataset.testid === 'wheel') return 'wheel';
              if (a.id === 'message-box') return 'input';
              if (a.closest('.pane-scroll')) return 'content';
              if (a.closest('.app-header')) return 'header';
              return a.tagName; }"""
        )
        if where not in order:
            order.append(where)
            ring[where] = page.evaluate(
                """() => { const a = document.activeElement;
                  return [a, a.closest('.input-bar')].filter(Boolean).some((el) => {
                    const s = getComputedStyle(el);
                    const outline = s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) > 0;
                    return outline || s.boxShadow !== 'none';
                  }); }"""
            )
        if where == "input":
            break
    wanted = ["skip", "wheel", "content", "input"]
    assert [w for w in order if w in wanted] == wanted, order
    assert {w: ring[w] for w in wanted} == dict.fromkeys(wanted, True)


def test_the_reply_is_announced_once_when_it_is_finished(make_app, demo_server: Server) -> None:
    app = make_app(demo_server)
    turns = ScriptedTurns(full_script(paused=True)).install(app.page)
    page = app.open(wait="[data-testid=briefing]")
    announcer = page.get_by_test_id("announcer")
    assert announcer.get_attribute("aria-live") == "polite"
    page.locator("#message-box").fill("When are the flights?")
    page.locator("#message-box").press("Enter")
    page.locator("[data-tool=readSliceSummary][data-state=running]").wait_for()
    assert announcer.inner_text() == ""
    turns.release()
    page.wait_for_selector("[data-testid=msg-assistant][data-status=done]")
    expect(announcer).to_have_text(re.compile(r"^The plan"))
