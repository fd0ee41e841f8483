"""Time travel and the historical slice view (UI.md §2 D)."""

from __future__ import annotations

import time
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import Server, save_screenshot

pytestmark = pytest.mark.browser

NEWEST = "2026-11-26-2010"  # 3 days and 16 hours before the demo's "today"
NO_SNAPSHOT = "2025-06-14-0720"
NO_TURNS = "2026-04-02-1840"
MISSING = "2020-01-01-0000"


def _clock_text(page: Page) -> str:
    return page.locator(".travel-clock").inner_text().replace("\n", "").replace(" ", "")


def test_travel_rolls_the_clock_to_the_slice_then_lands(make_app, demo_server: Server) -> None:
    app = make_app(demo_server)
    page = app.open(wait="[data-testid=briefing]")
    start = time.monotonic()
    row = page.locator(f"[role=option][data-slice-id='{NEWEST}']")
    row.click()
    expect(row).to_have_attribute("aria-selected", "true")
    overlay = page.get_by_test_id("time-travel")
    overlay.wait_for()
    assert (overlay.locator(".eyebrow").text_content() or "").lower() == "previously on nell marchetti"
    assert page.get_by_test_id("relative-time").inner_text() in (
        "3 days ago",
        "0 days ago",
        "1 days ago",
        "2 days ago",
    )
    page.wait_for_function(
        "() => document.querySelector('.travel-clock')?.innerText.replace(/\\s/g, '') === '2026/11/2620:10'",
        timeout=3000,
    )
    expect(page.get_by_test_id("relative-time")).to_have_text("3 days ago")
    save_screenshot(page, "travel-desktop-light")
    page.get_by_test_id("slice-view").locator("[data-testid=turn]").first.wait_for()
    expect(overlay).to_have_count(0)
    assert time.monotonic() - start < 6  # the travel lasts about 2 s; the slack is for a loaded CI machine


def test_reduced_motion_skips_the_travel(make_app, demo_server: Server) -> None:
    app = make_app(demo_server, reduced=True)
    page = app.open(wait="[data-testid=briefing]")
    seen = page.evaluate_handle(
        """() => { const s = {overlay: false};
          new MutationObserver(() => {
              if (document.querySelector('[data-testid=time-travel]')) s.overlay = true; })
            .observe(document.body, {childList: true, subtree: true});
          return s; }"""
    )
    page.locator(f"[role=option][data-slice-id='{NEWEST}']").click()
    # The observer sees any overlay, however briefly shown: no tight timeout is needed for that.
    page.get_by_test_id("slice-view").locator("[data-testid=turn]").first.wait_for()
    assert page.evaluate("(s) => s.overlay", seen) is False


def _slice(server: Server, slice_id: str) -> dict[str, Any]:
    return dict(server.get(f"/api/slices/{slice_id}"))


@pytest.mark.parametrize("size", ["phone", "desktop"])
def test_turns_in_order_with_times_sides_and_pills(make_app, demo_server: Server, size: str) -> None:
    data = _slice(demo_server, NEWEST)
    # The slice's own evening is "today": its turns show the time only.
    app = make_app(demo_server, size=size, now="2026-11-26T22:00:00Z")
    page = app.open(f"/#/slice/{NEWEST}", wait="[data-testid=turn]")
    turns = page.get_by_test_id("turn")
    expect(turns).to_have_count(len(data["turns"]))
    assert [turns.nth(i).get_attribute("data-role") for i in range(turns.count())] == [
        t["role"] for t in data["turns"]
    ]
    for i, turn in enumerate(data["turns"]):
        stamp = turns.nth(i).locator("time").inner_text()
        assert len(stamp) == 5 and stamp[2] == ":", stamp
        assert turn["content"].split("\n")[0][:40] in turns.nth(i).inner_text()
    column = page.get_by_test_id("slice-view").bounding_box()
    user = page.locator(".turn.user .bubble").first.bounding_box()
    agent = page.locator(".turn.agent .md").first.bounding_box()
    assert column and user and agent
    assert abs((user["x"] + user["width"]) - (column["x"] + column["width"])) < 40
    assert abs(agent["x"] - column["x"]) < 40
    assert page.get_by_test_id("slice-loops").locator("li").all_inner_texts() == [
        f"↗ {x}" for x in data["open_loops"]
    ]
    assert page.get_by_test_id("slice-decisions").locator("li").all_inner_texts() == [
        f"✓ {x}" for x in data["decisions"]
    ]
    assert page.get_by_test_id("slice-summary").inner_text() == data["summary"]


def test_thoughts_open_the_turns_cognition_and_show_only_where_there_is_some(
    make_app, demo_server: Server
) -> None:
    data = _slice(demo_server, NEWEST)
    agent = next(t for t in data["turns"] if t["role"] == "agent" and t["cognition"])
    bare_id = "2024-08-04-1932"
    bare = _slice(demo_server, bare_id)
    assert any(t["role"] == "agent" and not t["cognition"] for t in bare["turns"])
    app = make_app(demo_server)
    page = app.open(f"/#/slice/{NEWEST}", wait="[data-testid=turn]")
    page.locator(".turn.agent .thoughts").first.click()
    dialog = page.get_by_test_id("cognition-dialog")
    first_line = agent["cognition"].splitlines()[-1].strip()
    dialog.get_by_text(first_line[:30]).first.wait_for()
    save_screenshot(page, "thoughts-desktop-light")
    page.keyboard.press("Escape")
    with_thoughts = sum(1 for t in data["turns"] if t["role"] == "agent" and (t["cognition"] or "").strip())
    expect(page.locator(".turn.agent .thoughts")).to_have_count(with_thoughts)
    page.goto(f"{demo_server.url}/#/slice/{bare_id}")
    view = page.locator(f"[data-testid=slice-view][data-slice-id='{bare_id}']")
    view.locator("[data-testid=turn]").first.wait_for()
    wanted = sum(1 for t in bare["turns"] if t["role"] == "agent" and (t["cognition"] or "").strip())
    expect(view.locator(".thoughts")).to_have_count(wanted)


def test_the_snapshot_bar_opens_or_stays_inert(make_app, demo_server: Server) -> None:
    app = make_app(demo_server)
    page = app.open(f"/#/slice/{NEWEST}", wait="[data-testid=turn]")
    page.get_by_test_id("previously-bar").click()
    dialog = page.get_by_test_id("previously-dialog")
    dialog.locator(".md h2").first.wait_for()
    assert "Identity" in dialog.locator(".md h2").all_inner_texts()
    page.keyboard.press("Escape")
    page.goto(f"{demo_server.url}/#/slice/{NO_SNAPSHOT}")
    bar = page.locator(
        f"[data-testid=slice-view][data-slice-id='{NO_SNAPSHOT}'] [data-testid=previously-bar]"
    )
    bar.wait_for()
    assert bar.evaluate("el => el.tagName") == "DIV"
    assert bar.get_attribute("aria-disabled") == "true"


def test_empty_and_missing_slices_say_so(make_app, demo_server: Server) -> None:
    app = make_app(demo_server)
    app.problems.allow(MISSING)
    app.problems.allow("404")
    page = app.open(f"/#/slice/{NO_TURNS}", wait=".empty-state")
    assert "no turns" in page.locator(".empty-state").inner_text()
    page.goto(f"{demo_server.url}/#/slice/{MISSING}")
    page.wait_for_selector(f"[data-slice-id='{MISSING}'] [role=alert]")
    assert "doesn't exist" in page.locator("[role=alert]").inner_text()


def test_a_slice_seen_recently_is_not_fetched_again_and_now_returns(make_app, demo_server: Server) -> None:
    app = make_app(demo_server, reduced=True)
    page = app.open(wait="[data-testid=briefing]")
    fetched: list[str] = []
    page.on("request", lambda r: "/api/slices/" in r.url and fetched.append(r.url))
    page.locator(f"[role=option][data-slice-id='{NEWEST}']").click()
    page.locator(f"[data-testid=slice-view][data-slice-id='{NEWEST}'] [data-testid=turn]").first.wait_for()
    page.get_by_test_id("wheel").focus()
    page.keyboard.press("End")
    page.keyboard.press("Enter")
    page.get_by_test_id("briefing").wait_for()
    page.locator(f"[role=option][data-slice-id='{NEWEST}']").click()
    page.locator(f"[data-testid=slice-view][data-slice-id='{NEWEST}'] [data-testid=turn]").first.wait_for()
    assert len(fetched) == 1
