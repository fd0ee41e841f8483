"""Sizes as rules (docs/UI.md "Sizes"): every main screen at 360×800, 390×844 and 1440×900 — light
and dark, English and Chinese, the demo and an own memory — has no sideways overflow, every
visible control wholly on screen and at least 24 px, and on a phone the primary controls (Send,
the wheel's rows, the suggestion chips, dialog buttons, reply actions) at least 44 px."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import App, Server, settle
from tests.browser.scripted_turns import ScriptedTurns, full_script

pytestmark = pytest.mark.browser

SLICE = "2026-11-21-1040"

# Every visible control, measured; what breaks a rule comes back as a sentence.
MEASURE = """([phone, screen]) => {
  const CONTROLS = 'button, a[href], input:not([type=hidden]), select, textarea, summary, ' +
    '[role=button], [role=option], [role=switch], [role=tab], [role=menuitem]';
  const PRIMARY = '[data-testid=send], [data-testid=stop], [data-testid=wheel] [role=option], ' +
    '[data-testid=briefing-chip], dialog[open] button, [data-testid=reply-actions] button';
  const out = [];
  const d = document.documentElement;
  if (d.scrollWidth > window.innerWidth) out.push(`${screen}: the page is ${d.scrollWidth} px wide`);
  const tag = (el) => el.tagName.toLowerCase() + (el.dataset.testid ? '[' + el.dataset.testid + ']' : '');
  const label = (el) => (el.getAttribute('aria-label') || el.textContent || '').trim().slice(0, 30);
  const name = (el) => `${tag(el)} "${label(el)}"`;
  for (const box of document.querySelectorAll('.app-header, .split, .pane, .pane-input, .column')) {
    const right = Math.round(box.getBoundingClientRect().right);
    const what = box.className.split(' ')[0];
    if (right > window.innerWidth + 0.5) out.push(`${screen}: .${what} ends at ${right}`);
  }
  // Behind a modal dialog the page is inert: only the dialog counts.
  const scope = document.querySelector('dialog[open]') || document;
  for (const el of scope.querySelectorAll(CONTROLS)) {
    if (!el.checkVisibility({ opacityProperty: true, visibilityProperty: true })) continue;
    const r = el.getBoundingClientRect();
    if (r.width <= 2 || r.height <= 2) continue;  // visually hidden (a label stands for it)
    // A link inside running text is exempt from the target size (WCAG 2.5.8 "inline").
    if (el.tagName === 'A' && el.closest('.md p, .md li, .md td')) continue;
    // Rows of a scrolled list may be cut at the list's top and bottom; sideways nothing may be.
    if (r.left < -0.5 || r.right > window.innerWidth + 0.5)
      out.push(`${screen}: ${name(el)} is off screen (${Math.round(r.left)}–${Math.round(r.right)})`);
    const min = phone && el.matches(PRIMARY) ? 44 : 24;
    if (r.width < min - 0.5 || r.height < min - 0.5)
      out.push(`${screen}: ${name(el)} is ${Math.round(r.width)}×${Math.round(r.height)} (at least ${min})`);
  }
  return out;
}"""


def check(page: Page, phone: bool, screen: str, problems: list[str]) -> None:
    settle(page)
    problems.extend(page.evaluate(MEASURE, [phone, screen]))


def walk(app: App, zh: bool) -> list[str]:
    """Every main screen in turn: the briefing, a reply, a slice, search, settings, the card, import."""
    page = app.page
    phone = app.size != "desktop"
    problems: list[str] = []
    turns = ScriptedTurns(full_script()).install(page)
    page.goto(app.server.url + ("/?lang=zh" if zh else "/"))
    expect(page.locator("[data-testid=briefing]")).to_be_visible()
    check(page, phone, "briefing", problems)
    page.locator("#message-box").fill("When are the flights?")
    expect(page.locator("[data-testid=send]")).to_be_enabled()
    check(page, phone, "input", problems)
    page.locator("#message-box").press("Enter")
    expect(page.locator("[data-testid=msg-assistant][data-status=done]")).to_be_visible()
    assert turns.starts()
    check(page, phone, "reply", problems)
    page.evaluate(f"location.hash = '#/slice/{SLICE}'")
    expect(page.locator("[data-testid=slice-view] [data-testid=turn]").first).to_be_visible()
    check(page, phone, "slice", problems)
    page.locator("[data-testid=open-search]").click()
    expect(page.locator("dialog[open] input").first).to_be_focused()
    page.keyboard.type("flights")
    expect(page.locator("dialog[open] [data-testid=search-result]").first).to_be_visible()
    check(page, phone, "search", problems)
    page.keyboard.press("Escape")
    expect(page.locator("dialog[open]")).to_have_count(0)
    for screen, ready in (
        ("settings", "[data-testid=settings]"),
        ("card", "[data-testid=card-page] [data-testid=card-entry]"),
        ("import", "[data-testid=import-page]"),
    ):
        page.evaluate(f"location.hash = '#/{screen}'")
        expect(page.locator(ready).first).to_be_visible()
        check(page, phone, screen, problems)
    return problems


COMBOS = [
    *[
        ("phone360", scheme, zh, memory)
        for scheme in ("light", "dark")
        for zh in (False, True)
        for memory in ("demo", "own")
    ],
    ("phone", "light", False, "demo"),
    ("phone", "dark", True, "own"),
    ("desktop", "light", False, "own"),
    ("desktop", "dark", True, "demo"),
]


@pytest.mark.parametrize(("size", "scheme", "zh", "memory"), COMBOS)
def test_every_screen_keeps_the_size_rules(
    make_app: Any, servers: dict[str, Server], size: str, scheme: str, zh: bool, memory: str
) -> None:
    app = make_app(servers[memory], size=size, scheme=scheme, reduced=True)
    problems = walk(app, zh)
    assert not problems, "\n".join(problems)
