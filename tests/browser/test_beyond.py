"""Beyond the original: search, jump to a date, the strand filter, the editable card, sign-in."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import Server, save_screenshot
from tests.browser.test_wheel import press_and_read_cursor

pytestmark = pytest.mark.browser


def test_search_finds_slices_and_opens_one(make_app, demo_server: Server) -> None:
    app = make_app(demo_server, reduced=True)
    page = app.open(wait="[data-testid=briefing]")
    page.keyboard.press("/")
    page.locator("#search-q").fill("half marathon")
    results = page.get_by_test_id("search-result")
    results.first.wait_for()
    expect(page.locator(".result mark")).not_to_have_count(0)
    # The timeline's matches come first; the full-text ones are added below them later, so the
    # first result stays where it is.
    target = results.first.get_attribute("data-slice-id")
    save_screenshot(page, "search-desktop-light")
    page.locator(f"[data-testid=search-result][data-slice-id='{target}']").first.click()
    page.locator(f"[data-testid=slice-view][data-slice-id='{target}'] [data-testid=turn]").first.wait_for()
    row = page.locator(f"[role=option][data-slice-id='{target}']")
    expect(row).to_have_attribute("aria-selected", "true")


def test_jump_to_a_date_opens_the_last_slice_of_that_day(make_app, demo_server: Server) -> None:
    app = make_app(demo_server, reduced=True)
    page = app.open(wait="[data-testid=briefing]")
    page.get_by_test_id("open-search").click()
    page.get_by_test_id("jump-date").fill("2025-06-20")
    page.get_by_role("button", name="Go", exact=True).click()
    page.locator(
        "[data-testid=slice-view][data-slice-id='2025-06-14-0720'] [data-testid=turn]"
    ).first.wait_for()


def test_the_strand_filter_narrows_the_wheel(make_app, demo_server: Server) -> None:
    strands = demo_server.get("/api/strands")["strands"]
    members = {s.replace("/", "-", 2).replace("/", "-") for s in strands["mandarin"]}
    app = make_app(demo_server)
    asked: list[str] = []
    app.page.on("request", lambda r: "/api/strands" in r.url and asked.append(r.url.split("/api/", 1)[1]))
    page = app.open(wait="[data-testid=briefing]")
    page.get_by_test_id("strand-filter").click()
    # Arrival asks only for the counts (the whole map is megabytes at 10,000 slices; issue 33).
    assert "strands?counts=true" in asked and "strands" not in asked
    expect(page.locator(".strand-menu label", has_text="#mandarin")).to_contain_text(str(len(members)))
    page.locator(".strand-menu label", has_text="#mandarin").click()
    now = page.locator("[role=option][data-slice-id=now]")
    expect(now).to_have_attribute("aria-setsize", str(len(members) + 1))
    for _ in range(50):  # the strand's own ids are asked for once it is picked
        if "strands?name=mandarin" in asked:
            break
        page.wait_for_timeout(100)
    assert "strands?name=mandarin" in asked and "strands" not in asked
    page.get_by_test_id("wheel").focus()
    seen = [press_and_read_cursor(page, "Home")]
    for _ in range(len(members) - 1):
        seen.append(press_and_read_cursor(page, "ArrowDown", seen[-1]))
    assert set(seen) == members
    page.get_by_test_id("strand-filter").click()
    page.locator(".strand-menu label", has_text="All strands").click()
    expect(now).to_have_attribute("aria-setsize", str(len(demo_server.get("/api/timeline")["slices"]) + 1))


def test_the_card_can_be_edited_deleted_and_restored(make_app, own_server: Server) -> None:
    app = make_app(own_server)
    page = app.open("/#/card", wait="[data-testid=card-entry]")
    now_items = page.locator("[data-testid=card-entry][data-section=now]")
    count = now_items.count()
    first = now_items.first
    original = first.locator(".entry-text > span").first.inner_text()
    first.get_by_role("button", name="Edit").click()
    box = page.locator("[data-testid=card-entry].editing textarea")
    box.fill("Flights booked for 9 January, £940 each")
    page.locator("[data-testid=card-entry].editing").get_by_role("button", name="Save").click()
    expect(page.locator("[data-testid=card-entry].editing")).to_have_count(0)
    page.get_by_text("Flights booked for 9 January, £940 each").wait_for()
    assert any(
        e["text"] == "Flights booked for 9 January, £940 each" for e in own_server.get("/api/card")["entries"]
    )
    save_screenshot(page, f"card-{app.size}-light")
    doomed = now_items.first.locator(".entry-text > span").first.inner_text()
    now_items.first.get_by_role("button", name="Delete").click()
    # D7: a delete asks first, naming the entry; "Keep it" keeps it.
    dialog = page.get_by_test_id("card-delete-dialog")
    expect(dialog).to_contain_text(doomed)
    dialog.get_by_role("button", name="Keep it").click()
    expect(dialog).not_to_be_visible()
    expect(now_items).to_have_count(count)
    now_items.first.get_by_role("button", name="Delete").click()
    page.get_by_test_id("card-delete-confirm").click()
    expect(now_items).to_have_count(count - 1)
    # Undo brings back the card as it was before the last change: the edited entry returns.
    page.get_by_test_id("card-undo").click()
    expect(now_items).to_have_count(count)
    page.get_by_text("Flights booked for 9 January, £940 each").wait_for()
    assert original not in [e["text"] for e in own_server.get("/api/card")["entries"]]
