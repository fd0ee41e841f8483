"""The demo's persona picker (issue 22): the briefing's name opens a dialog of personas; picking
one reloads the page on that persona's briefing and timeline. Keyboard only, phone and desktop."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import Server, assert_fits, save_screenshot
from tests.browser.test_a11y import serious_violations

pytestmark = pytest.mark.browser

JIA_NEWEST = "2026-11-27-1535"


def test_the_teacher_in_shanghai_brings_the_chinese_page_with_her(make_app, demo_server: Server) -> None:
    app = make_app(demo_server, size="phone")
    page = app.open(wait="[data-testid=briefing]")
    page.get_by_test_id("persona-switch").click()
    dialog = page.get_by_test_id("persona-dialog")
    expect(dialog).to_be_visible()
    dialog.locator("[data-persona=xiaowen]").click()
    expect(page.get_by_test_id("briefing-name")).to_have_text("周晓雯")
    # Her config.json says zh: a visitor who has not chosen a language gets the page in Chinese.
    expect(page.get_by_test_id("persona-switch")).to_have_attribute("title", "切换人物")
    expect(page.locator("[role=option][data-slice-id='2026-11-25-1235']")).to_have_count(1)
    assert serious_violations(page) == []
    assert_fits(app)
    save_screenshot(page, "persona-xiaowen-phone")


@pytest.mark.parametrize("size", ["phone", "desktop"])
def test_the_keyboard_switches_to_jia_and_the_page_reloads_on_her_memory(
    make_app, demo_server: Server, size: str
) -> None:
    app = make_app(demo_server, size=size)
    page = app.open(wait="[data-testid=briefing]")
    switch = page.get_by_test_id("persona-switch")
    expect(switch).to_be_visible()
    expect(page.get_by_test_id("briefing-name")).to_have_text("Nell Marchetti")
    switch.focus()
    page.keyboard.press("Enter")
    dialog = page.get_by_test_id("persona-dialog")
    expect(dialog).to_be_visible()
    options = dialog.get_by_test_id("persona-option")
    expect(options).to_have_count(3)
    expect(dialog.locator("[data-persona=nell]")).to_have_attribute("aria-current", "true")
    expect(dialog.locator("[data-persona=jia]")).to_contain_text("Wen Jia")
    expect(dialog.locator("[data-persona=jia]")).to_contain_text("14 conversations")
    assert serious_violations(page) == []
    assert_fits(app)
    save_screenshot(page, f"persona-picker-{size}")
    dialog.locator("[data-persona=jia]").focus()
    page.keyboard.press("Enter")
    expect(page.get_by_test_id("briefing-name")).to_have_text("Wen Jia")
    expect(page.locator(f"[role=option][data-slice-id='{JIA_NEWEST}']")).to_have_count(1)
    expect(page.get_by_test_id("briefing-last-topic")).to_contain_text("flight for Mum")
    # The choice is remembered: a fresh load stays on Jia, and the switch says who is current.
    page.reload()
    expect(page.get_by_test_id("briefing-name")).to_have_text("Wen Jia")
    page.get_by_test_id("persona-switch").click()
    current = page.locator("[data-testid=persona-dialog] [data-persona=jia]")
    expect(current).to_have_attribute("aria-current", "true")
    assert serious_violations(page) == []


def test_esc_closes_the_picker_back_to_the_name_and_the_current_persona_just_closes(
    make_app, demo_server: Server
) -> None:
    app = make_app(demo_server)
    page = app.open(wait="[data-testid=briefing]")
    switch = page.get_by_test_id("persona-switch")
    switch.click()
    dialog = page.get_by_test_id("persona-dialog")
    expect(dialog).to_be_visible()  # shown modal (Esc before that would reach nothing)
    expect(dialog.get_by_test_id("persona-option")).to_have_count(3)
    page.keyboard.press("Escape")
    expect(dialog.get_by_test_id("persona-option")).to_have_count(0)
    expect(switch).to_be_focused()
    switch.click()
    expect(dialog).to_be_visible()
    dialog.locator("[data-persona=nell]").click()
    expect(dialog.get_by_test_id("persona-option")).to_have_count(0)
    expect(page.get_by_test_id("briefing-name")).to_have_text("Nell Marchetti")


def test_the_chinese_page_shows_chinese_blurbs(make_app, demo_server: Server) -> None:
    app = make_app(demo_server)
    page = app.open(wait="[data-testid=briefing]")
    page.get_by_test_id("locale-toggle").click()
    expect(page.get_by_test_id("persona-switch")).to_have_attribute("title", "切换人物")
    page.get_by_test_id("persona-switch").click()
    jia = page.locator("[data-testid=persona-dialog] [data-persona=jia]")
    expect(jia).to_contain_text("温哥华")
    expect(jia).to_contain_text("14 次对话")


def test_no_picker_outside_the_demo(make_app, empty_server: Server) -> None:
    app = make_app(empty_server)
    page = app.open(wait="[data-testid=briefing]")
    expect(page.get_by_test_id("briefing-name")).to_be_visible()
    expect(page.get_by_test_id("persona-switch")).to_have_count(0)


def test_the_demo_badge_switches_persona_from_any_screen(make_app, demo_server: Server) -> None:
    app = make_app(demo_server, size="phone")
    page = app.open("/#/settings", wait="[data-testid=demo-badge]")
    page.get_by_test_id("demo-badge").click()
    menu = page.get_by_test_id("persona-menu")
    expect(menu.locator("[data-persona=nell]")).to_have_attribute("aria-current", "true")
    assert serious_violations(page) == []
    # Picking reloads the page: wait for that load, or the next navigation would race it.
    with page.expect_navigation():
        menu.locator("[data-persona=jia]").click()
    page.goto(demo_server.url + "/")
    expect(page.get_by_test_id("briefing-name")).to_have_text("Wen Jia")


@pytest.mark.parametrize("size", ["phone", "desktop"])
def test_a_link_naming_jia_opens_her_memory_and_leaves_the_address_clean(
    make_app, demo_server: Server, size: str
) -> None:
    app = make_app(demo_server, size=size)
    page = app.open("/?persona=jia", wait="[data-testid=briefing-name]")
    expect(page.get_by_test_id("briefing-name")).to_have_text("Wen Jia")
    expect(page.locator(f"[role=option][data-slice-id='{JIA_NEWEST}']")).to_have_count(1)
    assert "persona" not in page.url
    expect(page.get_by_test_id("persona-notice")).to_have_count(0)
    # The picker's cookie is set: a plain load afterwards stays on Jia.
    page.goto(demo_server.url + "/")
    expect(page.get_by_test_id("briefing-name")).to_have_text("Wen Jia")
    # The hash's own query works as well, and the rest of the address is kept.
    page.goto(demo_server.url + "/#/card?persona=xiaowen")
    page.reload()
    page.wait_for_selector("[data-testid=card-page], .card-page")
    assert page.url.endswith("/#/card")
    page.goto(demo_server.url + "/")
    expect(page.get_by_test_id("briefing-name")).to_have_text("周晓雯")
    assert_fits(app)


@pytest.mark.parametrize("size", ["phone", "desktop"])
def test_a_link_naming_no_such_persona_says_so_and_keeps_the_current_one(
    make_app, demo_server: Server, size: str
) -> None:
    app = make_app(demo_server, size=size)
    app.problems.allow("persona=zed")  # the 400 that says no such persona
    page = app.open("/?persona=jia", wait="[data-testid=briefing-name]")
    expect(page.get_by_test_id("briefing-name")).to_have_text("Wen Jia")
    page.goto(demo_server.url + "/?persona=zed")
    notice = page.get_by_test_id("persona-notice")
    expect(notice).to_contain_text("no demo persona called “zed”")
    expect(page.get_by_test_id("briefing-name")).to_have_text("Wen Jia")
    assert "persona" not in page.url
    assert serious_violations(page) == []
    assert_fits(app)
    save_screenshot(page, f"persona-unknown-link-{size}")
    notice.get_by_role("button").click()
    expect(notice).to_have_count(0)
    page.reload()
    expect(page.get_by_test_id("briefing-name")).to_have_text("Wen Jia")
    expect(page.get_by_test_id("persona-notice")).to_have_count(0)


def test_offline_each_persona_sees_its_own_last_timeline(make_app, demo_server: Server) -> None:
    app = make_app(demo_server, size="phone")
    page = app.open("/?persona=jia", wait="[data-testid=briefing-name]")
    page.wait_for_function("() => navigator.serviceWorker.ready.then(() => true)")
    page.reload()  # now under the service worker: this load keeps Jia's copy
    page.wait_for_function("() => navigator.serviceWorker.controller !== null")
    expect(page.get_by_test_id("briefing-name")).to_have_text("Wen Jia")
    expect(page.locator(f"[role=option][data-slice-id='{JIA_NEWEST}']")).to_have_count(1)
    jia_rows = page.locator("[role=option]").count()
    page.goto(demo_server.url + "/?persona=nell")  # and Nell's, read last
    expect(page.get_by_test_id("briefing-name")).to_have_text("Nell Marchetti")
    # Nell's rows drawn (no Jia row is true before any row is), and every read answered: a read
    # still in flight when the network goes fails, and its copy is not kept.
    expect(page.locator("[role=option]")).not_to_have_count(0)
    expect(page.locator(f"[role=option][data-slice-id='{JIA_NEWEST}']")).to_have_count(0)
    page.wait_for_load_state("networkidle")
    app.context.set_offline(True)
    app.problems.allow("ERR_INTERNET_DISCONNECTED")
    page.reload()
    expect(page.get_by_test_id("briefing-name")).to_have_text("Nell Marchetti")
    expect(page.get_by_test_id("offline")).to_be_visible()
    # The picker's cookie says Jia again: offline, the page shows her copy, not the last one read.
    page.evaluate("document.cookie = 'previously_persona=jia; path=/'")
    page.reload()
    expect(page.get_by_test_id("briefing-name")).to_have_text("Wen Jia")
    expect(page.locator(f"[role=option][data-slice-id='{JIA_NEWEST}']")).to_have_count(1)
    expect(page.locator("[role=option]")).to_have_count(jia_rows)
