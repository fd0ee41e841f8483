"""D7 at 360 px: the card's Undo steps back through every change, Redo steps forward again, and
History lists every version with a Restore button that brings any of them back."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import Server, assert_fits, save_screenshot

pytestmark = pytest.mark.browser
ONE, TWO = "Card history test: first edit", "Card history test: second edit"


def _edit(page: Page, text: str) -> None:
    entry = page.locator("[data-testid=card-entry][data-section=now]").first
    entry.get_by_role("button", name="Edit").click()
    page.locator("[data-testid=card-entry].editing textarea").fill(text)
    page.locator("[data-testid=card-entry].editing").get_by_role("button", name="Save").click()
    expect(page.locator("[data-testid=card-entry].editing")).to_have_count(0)
    expect(page.get_by_text(text, exact=True)).to_be_visible()


def _tall_enough(page: Page, selector: str) -> None:
    for box in (b.bounding_box() for b in page.locator(selector).all()):
        assert box is not None and box["height"] >= 44 and box["x"] >= 0 and box["x"] + box["width"] <= 360


def test_undo_twice_redo_once_and_restore_the_first_version(make_app, own_server: Server) -> None:
    app = make_app(own_server, size="phone360")
    page = app.open("/#/card", wait="[data-testid=card-entry]")
    start = own_server.get("/api/card")["markdown"]
    undo, redo = page.get_by_test_id("card-undo"), page.get_by_test_id("card-redo")
    _edit(page, ONE)
    first_version = own_server.get("/api/card/history")["undo_to"]
    _edit(page, TWO)
    expect(redo).to_be_disabled()
    undo.click()
    expect(page.get_by_text(ONE, exact=True)).to_be_visible()
    expect(page.get_by_text(TWO, exact=True)).to_have_count(0)
    undo.click()
    expect(page.get_by_text(ONE, exact=True)).to_have_count(0)
    assert own_server.get("/api/card")["markdown"] == start, "two undos: back where it started"
    expect(redo).to_be_enabled()
    redo.click()
    expect(page.get_by_text(ONE, exact=True)).to_be_visible()
    _tall_enough(page, ".card-page .page-head .ghost-btn")

    page.get_by_test_id("card-history-toggle").click()
    history = page.get_by_test_id("card-history")
    expect(history.get_by_test_id("card-version").first).to_contain_text("redo")
    _tall_enough(page, "[data-testid=card-restore]")
    assert_fits(app)
    save_screenshot(page, "card-history-phone360-light")
    row = history.locator(f"[data-testid=card-version][data-id='{first_version}']")
    row.get_by_test_id("card-restore").click()
    expect(page.get_by_text(ONE, exact=True)).to_have_count(0)
    assert own_server.get("/api/card")["markdown"] == start
    expect(history.get_by_test_id("card-version").first).to_contain_text("restore")
    expect(undo).to_be_enabled()  # the restore is a change like any other: it can be undone
