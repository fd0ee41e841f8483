"""The timeline wheel (UI.md §2 C): a listbox of every slice, keys, preview without requests, two gears."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import Server

pytestmark = pytest.mark.browser

CURSOR = """() => {
  const list = document.querySelector('[data-testid=wheel]');
  const el = document.getElementById(list.getAttribute('aria-activedescendant'));
  return el && el.dataset.sliceId;
}"""


def press_and_read_cursor(page: Page, key: str, before: str | None = None) -> str:
    """Press `key` on the wheel and return the slice id under the cursor once it has moved off
    `before` (the row it was on)."""
    page.keyboard.press(key)
    page.wait_for_function(f"(before) => ({CURSOR})() !== before", arg=before)
    return str(page.evaluate(CURSOR))


def _catalog_ids(server: Server) -> list[str]:
    return [s["id"] for s in server.get("/api/timeline")["slices"]]


def _centre_offset(page: Page, selector: str) -> float:
    return float(
        page.evaluate(
            """(sel) => { const w = document.querySelector('[data-testid=wheel]').getBoundingClientRect();
              const r = document.querySelector(sel).getBoundingClientRect();
              return Math.abs((r.top + r.height / 2) - (w.top + w.height / 2)); }""",
            selector,
        )
    )


@pytest.mark.parametrize("size", ["phone", "desktop"])
def test_every_slice_then_now_in_order_by_keyboard(make_app, demo_server: Server, size: str) -> None:
    ids = _catalog_ids(demo_server)
    app = make_app(demo_server, size=size)
    page = app.open()
    now = page.locator("[role=option][data-slice-id=now]")
    expect(now).to_have_attribute("aria-setsize", str(len(ids) + 1))
    expect(now).to_have_attribute("aria-posinset", str(len(ids) + 1))
    expect(now).to_have_attribute("aria-selected", "true")
    page.wait_for_function(f"() => ({CURSOR})() === 'now'")
    assert _centre_offset(page, "[role=option][data-slice-id=now]") < 4
    assert len(ids) > page.locator("[role=option]").count()  # virtualised

    page.get_by_test_id("wheel").focus()
    assert press_and_read_cursor(page, "Home", "now") == ids[0]
    first = page.locator(f"[role=option][data-slice-id='{ids[0]}']")
    expect(first).to_have_attribute("aria-posinset", "1")
    assert press_and_read_cursor(page, "PageDown", ids[0]) not in (ids[0], ids[1])
    seen = [press_and_read_cursor(page, "End", page.evaluate(CURSOR))]
    for _ in range(len(ids)):
        seen.append(press_and_read_cursor(page, "ArrowUp", seen[-1]))
    assert list(reversed(seen)) == [*ids, "now"]
    # Moving the cursor only previews: nothing was opened.
    page.keyboard.press("End")
    expect(now).to_have_attribute("aria-selected", "true")
    expect(page.get_by_test_id("briefing")).to_have_count(1)


def test_scrolling_and_dragging_preview_without_requests(make_app, demo_server: Server) -> None:
    app = make_app(demo_server)
    page = app.open(wait="[data-testid=briefing]")
    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    readout = page.get_by_test_id("wheel-readout")
    page.wait_for_function(f"() => ({CURSOR})() === 'now'")
    before = readout.inner_text()
    wheel = page.get_by_test_id("wheel").bounding_box()
    assert wheel
    x, y = wheel["x"] + wheel["width"] / 2, wheel["y"] + wheel["height"] / 2
    page.mouse.move(x, y)
    page.mouse.wheel(0, -400)
    page.wait_for_function(
        "(b) => document.querySelector('[data-testid=wheel-readout]').innerText !== b", arg=before
    )
    after_scroll = readout.inner_text()
    page.mouse.move(x, y - 100)
    page.mouse.down()
    page.mouse.move(x, y + 60, steps=6)
    page.mouse.move(x, y + 200, steps=6)
    page.mouse.up()
    page.wait_for_function(
        "(b) => document.querySelector('[data-testid=wheel-readout]').innerText !== b", arg=after_scroll
    )
    expect(page.locator("[role=option][aria-selected=true]")).to_have_attribute("data-slice-id", "now")
    expect(page.get_by_test_id("briefing")).to_have_count(1)
    assert page.evaluate("location.hash") in ("", "#/")
    assert requests == []


def test_desktop_rows_and_readout_use_local_time(make_app, demo_server: Server) -> None:
    zone = "America/New_York"
    last = demo_server.get("/api/timeline")["slices"][-1]
    local = datetime.fromisoformat(last["start"].replace("Z", "+00:00")).astimezone(ZoneInfo(zone))
    app = make_app(demo_server, timezone_id=zone)
    page = app.open()
    row = page.locator(f"[role=option][data-slice-id='{last['id']}']")
    expect(row.locator(".wheel-date")).to_have_text(local.strftime("%Y/%m/%d"))
    expect(row.locator(".wheel-time")).to_have_text(local.strftime("%H:%M"))
    expect(row).to_contain_text(last["focus"])
    page.get_by_test_id("wheel").focus()
    assert press_and_read_cursor(page, "ArrowUp", "now") == last["id"]
    readout = page.get_by_test_id("wheel-readout")
    expect(readout).to_contain_text(last["focus"])
    # The readout's digits roll to the new time: wait until they have landed.
    page.wait_for_function(
        "(t) => document.querySelector('[data-testid=wheel-readout]').innerText"
        ".replace(/\\s/g, '').includes(t)",
        arg=local.strftime("%H:%M"),
    )


def test_phone_gear_is_a_narrow_clock_spine(make_app, demo_server: Server) -> None:
    last = demo_server.get("/api/timeline")["slices"][-1]
    local = datetime.fromisoformat(last["start"].replace("Z", "+00:00")).astimezone(ZoneInfo("Europe/London"))
    app = make_app(demo_server, size="phone")
    page = app.open()
    row = page.locator(f"[role=option][data-slice-id='{last['id']}']")
    expect(row.locator(".wheel-md")).to_have_text(local.strftime("%m/%d"))
    expect(row.locator(".wheel-big")).to_have_text([local.strftime("%H"), local.strftime("%M")])
    expect(page.get_by_test_id("wheel-readout")).to_have_count(0)
    wheel = page.locator(".wheel-col").bounding_box()
    pane = page.locator("main.pane").bounding_box()
    assert wheel and pane
    assert wheel["width"] <= 72
    assert pane["width"] >= 300


def _many_slices(n: int) -> list[dict[str, object]]:
    """n closed slices, one a day from 2024-01-01 at noon."""
    from datetime import timedelta

    first = datetime(2024, 1, 1, 12, 0, tzinfo=ZoneInfo("UTC"))
    out: list[dict[str, object]] = []
    for i in range(n):
        at = first + timedelta(days=i)
        out.append(
            {
                "id": at.strftime("%Y-%m-%d-%H%M"),
                "date": at.strftime("%Y-%m-%d"),
                "start": at.strftime("%Y-%m-%dT%H:%M:00.000Z"),
                "status": "closed",
                "focus": f"Day {i}",
                "turn_count": 2,
            }
        )
    return out


def test_travelling_past_the_first_window_loads_older_slices(make_app, demo_server: Server) -> None:
    import json
    from urllib.parse import parse_qs, urlparse

    from core.memory.catalog.window import window

    entries = _many_slices(700)
    asked: list[str] = []

    def timeline(route) -> None:  # type: ignore[no-untyped-def]
        query = {k: v[0] for k, v in parse_qs(urlparse(route.request.url).query).items()}
        asked.append(query.get("before", ""))
        w = window(entries, before=query.get("before"))
        body = {"slices": w.slices, "total": w.total, "offset": w.offset, "months": []}
        route.fulfill(status=200, content_type="application/json", body=json.dumps(body))

    # Every timeline read must reach the stand-in: a fetch the service worker makes once it
    # controls the page is not seen by page.route, and would bring the demo's own slices.
    app = make_app(demo_server, service_workers="block")
    app.page.route("**/api/timeline*", timeline)
    page = app.open()
    now = page.locator("[role=option][data-slice-id=now]")
    expect(now).to_have_attribute("aria-setsize", "301")  # the newest window only
    page.get_by_test_id("wheel").focus()
    first_window = str(entries[400]["id"])
    assert press_and_read_cursor(page, "Home", "now") == first_window
    # Near the start, the next 300 older slices arrive above, and the cursor stays where it was.
    row = page.locator(f"[role=option][data-slice-id='{first_window}']")
    expect(row).to_have_attribute("aria-setsize", "601")
    expect(row).to_have_attribute("aria-posinset", "301")
    assert asked[:2] == ["", first_window]
    page.wait_for_function(f"() => ({CURSOR})() === '{first_window}'")
    assert press_and_read_cursor(page, "Home", first_window) == entries[100]["id"]
    expect(page.locator("[role=option]").first).to_have_attribute("aria-setsize", "701")
    assert press_and_read_cursor(page, "Home", str(entries[100]["id"])) == entries[0]["id"]
    assert len(asked) == 3  # the start of the timeline asks for nothing more
