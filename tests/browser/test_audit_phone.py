"""Defects of the December audit (docs/UI.md "The December audit"), each checked at the size where it
showed. D1, D2 and D6 (widths and target sizes) are the rules of test_sizes.py."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import Server

pytestmark = pytest.mark.browser

# The bottom of a bar above the split, and the split's top: a bar over the content overprints it.
BAR_AND_SPLIT = """(sel) => [document.querySelector(sel).getBoundingClientRect().bottom,
                         document.querySelector('.split').getBoundingClientRect().top]"""


def test_d3_d4_offline_the_bar_pushes_the_content_down_and_chips_do_not_send(
    make_app: Any, demo_server: Server
) -> None:
    app = make_app(demo_server, size="phone")
    page = app.open(wait="[data-testid=briefing-chip]")
    chip = page.get_by_test_id("briefing-chip").first
    expect(chip).to_be_enabled()
    app.context.set_offline(True)
    expect(page.get_by_test_id("offline")).to_be_visible()
    bottom, top = page.evaluate(BAR_AND_SPLIT, "[data-testid=offline]")
    assert bottom <= top + 0.5, f"the offline bar ends at {bottom}, over the content from {top}"
    expect(chip).to_be_disabled()
    app.context.set_offline(False)
    expect(page.get_by_test_id("offline")).to_have_count(0)
    expect(chip).to_be_enabled()


def test_d3_the_no_such_persona_notice_sits_above_the_content(make_app: Any, demo_server: Server) -> None:
    app = make_app(demo_server, size="phone")
    app.problems.allow("persona=nobody")  # the 400 that says no such persona
    page = app.open("/?persona=nobody", wait="[data-testid=persona-notice]")
    bottom, top = page.evaluate(BAR_AND_SPLIT, "[data-testid=persona-notice]")
    assert bottom <= top + 0.5, f"the notice ends at {bottom}, over the content from {top}"


def test_d4_a_message_the_server_never_got_says_so_in_words(make_app: Any, demo_server: Server) -> None:
    """A network failure reads as a sentence, not the browser's raw "Failed to fetch"."""
    app = make_app(demo_server, size="phone")
    app.problems.allow("/api/turns")
    app.page.add_init_script("window.WebSocket = undefined")  # straight to HTTP, which fails
    app.page.route("**/api/turns", lambda route: route.abort("internetdisconnected"))
    page = app.open(wait="[data-testid=briefing-chip]")
    page.get_by_test_id("briefing-chip").first.click()
    error = page.get_by_test_id("chat-error")
    expect(error).to_contain_text("can't be reached")
    expect(error.locator("p").first).not_to_contain_text("Failed to fetch")


def test_d8_the_search_dialog_has_no_blurred_backdrop(make_app: Any, demo_server: Server) -> None:
    """A blurred backdrop repaints under the growing result list on every keystroke."""
    app = make_app(demo_server)
    page = app.open(wait="[data-testid=briefing]")
    page.keyboard.press("/")
    dialog = page.locator("dialog[open]")
    expect(dialog).to_be_visible()
    filters = dialog.evaluate(
        "d => [getComputedStyle(d, '::backdrop').backdropFilter,"
        " getComputedStyle(document.querySelector('.app-header')).backdropFilter]"
    )
    assert filters == ["none", "none"], filters


LANGS_SEEN = """new MutationObserver((changes) => {
  for (const c of changes) if (c.target === document.documentElement)
    window.__langs = [...(window.__langs || []), c.target.lang];
}).observe(document, { attributes: true, subtree: true, attributeFilter: ['lang'] });"""


def test_d10_a_chinese_browser_gets_the_chinese_demo_without_a_flash(
    make_app: Any, demo_server: Server
) -> None:
    app = make_app(demo_server, size="phone", locale="zh-CN")
    app.page.add_init_script(LANGS_SEEN)
    page = app.open(wait="[data-testid=briefing]")
    expect(page.get_by_test_id("locale-toggle")).to_have_text("EN")
    page.wait_for_load_state("networkidle")
    expect(page.locator("html")).to_have_attribute("lang", "zh")
    assert "en" not in (page.evaluate("window.__langs || []")), "the page switched to English on the way"


def test_d12_d13_the_model_how_to_opens_in_the_page_in_its_language(
    make_app: Any, empty_server: Server
) -> None:
    app = make_app(empty_server, size="phone")
    page = app.open("/?lang=zh", wait="[data-testid=setup-notice]")
    notice = page.get_by_test_id("setup-notice")
    expect(notice.locator("summary .fold-sign")).to_be_visible()  # D13: a sign that it opens
    notice.locator("summary").click()
    page.get_by_test_id("setup-guide").click()
    dialog = page.get_by_test_id("setup-dialog")
    expect(dialog.locator("ol li")).to_have_count(3)
    expect(dialog).to_contain_text("API 密钥")
    expect(dialog.locator("code").first).to_be_visible()
    # The key variables come from the server's presets (GET /api/models), not a hand-kept list.
    expect(dialog).to_contain_text("MISTRAL_API_KEY")
    dialog.get_by_test_id("setup-full").click()
    # The full guide is rendered: its tables are tables, not pipes.
    expect(dialog.locator(".setup-full table").first).to_be_visible()
    expect(dialog.locator(".setup-full")).not_to_contain_text("|---|")
    assert page.url.startswith(empty_server.url + "/")
    assert len(app.context.pages) == 1


def test_d17_opening_a_slice_travels_in_under_a_second_and_says_it_can_be_skipped(
    make_app: Any, demo_server: Server
) -> None:
    app = make_app(demo_server, size="phone")
    page = app.open(wait="[data-testid=briefing]")
    page.locator("[role=option][data-slice-id='2026-11-21-1040']").click()
    overlay = page.get_by_test_id("time-travel")
    expect(overlay).to_be_visible()
    assert int(overlay.get_attribute("data-ms") or 9999) <= 1000
    expect(overlay.locator(".travel-skip")).to_have_text("Tap or press any key to skip")
    expect(page.locator("[data-testid=slice-view] [data-testid=turn]").first).to_be_visible()
    expect(overlay).to_have_count(0)


def test_d27_how_it_learns_shows_what_it_learned_about_the_default_persona(
    make_app: Any, demo_server: Server
) -> None:
    app = make_app(demo_server, size="phone")
    page = app.open("/#/evolution", wait="[data-testid=evo-trait]")
    expect(page.get_by_test_id("evo-trait")).to_have_count(3)
    expect(page.get_by_test_id("evo-hypothesis")).to_have_count(1)
    expect(page.get_by_test_id("evo-hypothesis")).to_contain_text("one concrete next step")


def test_d20_the_read_only_note_sits_under_the_buttons_in_whole_words(
    make_app: Any, demo_server: Server
) -> None:
    app = make_app(demo_server, size="phone", reduced=True)
    page = app.open("/?lang=zh#/slice/2026-11-21-1040", wait="[data-testid=slice-actions]")
    note = page.locator("[data-testid=slice-actions] .read-only-hint")
    expect(note).to_be_visible()
    below = note.evaluate(
        "n => n.getBoundingClientRect().top >="
        " n.parentElement.querySelector('[data-testid=slice-forget]').getBoundingClientRect().bottom"
    )
    assert below, "the note starts under the buttons"
    assert note.evaluate("n => getComputedStyle(n).wordBreak") == "keep-all"
