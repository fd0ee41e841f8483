"""Live chat from the event stream (UI.md §2 E), over a scripted turn transport."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import App, Server, eventually, save_screenshot
from tests.browser.scripted_turns import ScriptedTurns, closing_script, error_script, full_script

pytestmark = pytest.mark.browser

DONE = "[data-testid=msg-assistant][data-status=done]"


def _send(page: Page, text: str) -> None:
    box = page.locator("#message-box")
    box.fill(text)
    box.press("Enter")


def _chat(make_app, server: Server, script: list, **kw) -> tuple[App, ScriptedTurns]:
    app = make_app(server, **kw)
    turns = ScriptedTurns(script).install(app.page)
    app.open(wait="[data-testid=briefing]")
    return app, turns


def test_enter_sends_shift_enter_breaks_the_line_and_the_request_is_complete(
    make_app, demo_server: Server
) -> None:
    app, turns = _chat(make_app, demo_server, full_script())
    page = app.page
    send = page.get_by_test_id("send")
    expect(send).to_be_disabled()
    box = page.locator("#message-box")
    box.fill("When")
    box.press("Shift+Enter")
    box.type("are the flights?")
    expect(box).to_have_value("When\nare the flights?")
    expect(send).to_be_enabled()
    box.press("Enter")
    page.wait_for_selector(DONE)
    expect(box).to_have_value("")
    start = turns.starts()[0]
    assert start["action"] == "turn.start"
    assert start["message"] == "When\nare the flights?"
    assert start["timezone"] == "Europe/London"
    assert start["locale"] == "en"
    assert start["effort"] in ("low", "medium", "high")
    assert isinstance(start["thinking"], bool)
    assert start["client"] == {"slice_id": None, "agent_turns_seen": 0}
    models = demo_server.get("/api/models")
    if models["models"]:
        assert start.get("model") in [m["id"] for m in models["models"]] or "model" not in start
    _send(page, "And the visa?")
    expect(page.locator(DONE)).to_have_count(2)
    second = turns.starts()[1]
    assert second["client"] == {"slice_id": "2026-11-30-1200", "agent_turns_seen": 1}


@pytest.mark.parametrize("size", ["phone", "desktop"])
def test_cards_arrive_in_order_with_their_labels_and_states(make_app, demo_server: Server, size: str) -> None:
    app, _ = _chat(make_app, demo_server, full_script(), size=size)
    page = app.page
    _send(page, "When are the flights?")
    page.wait_for_selector(DONE)
    msg = page.locator(DONE)
    # The whole stream is drawn once the reply is done: the steps card's summary shows it.
    expect(msg.get_by_test_id("housekeeping")).to_contain_text("All steps done")
    expect(msg.get_by_test_id("housekeeping")).to_contain_text("2/2")
    order = msg.locator(".item > *").evaluate_all("els => els.map(e => e.dataset.testid || e.className)")
    assert order[:4] == ["housekeeping", "evolution", "reasoning", "tool-card"]
    assert order[-1].startswith("md")
    expect(msg.get_by_test_id("evolution")).to_have_text(re.compile(r"^Card updated: Flights moved"))
    expect(msg.get_by_test_id("reasoning")).to_have_text(re.compile(r"^Thought"))
    cards = msg.get_by_test_id("tool-card")
    expect(cards).to_have_count(6)
    states = cards.evaluate_all(
        "els => els.map(e => [e.dataset.tool, e.dataset.state, e.querySelector('.card-label').innerText])"
    )
    # Each card shows the label its event carries (the server's, core/turn/labels.py).
    assert states == [
        ["recall", "completed", 'Recalled "flights"'],
        ["readSlice", "completed", "Viewed Jul 25 14:30"],
        ["readTimelineWindow", "completed", "Viewed Jul 2026"],
        ["webFetch", "error", "Could not fetch example.org/fares"],
        ["webSearch", "denied", 'Searching the web for "cheap flights" — not allowed'],
        ["readSliceSummary", "interrupted", "Skimming Nov 26 20:10"],
    ]
    expect(cards.nth(4)).to_contain_text("Denied: web search is off")


def test_every_card_opens_by_click_enter_and_space_and_hides_when_shut(make_app, demo_server: Server) -> None:
    app, _ = _chat(make_app, demo_server, full_script())
    page = app.page
    _send(page, "When are the flights?")
    page.wait_for_selector(DONE)
    # Every card, in the page (fast): click, Enter and Space each toggle it; shut panels are inert.
    report = page.evaluate(
        """async (sel) => {
          const frame = () => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
          const key = (el, k) => el.dispatchEvent(new KeyboardEvent('keydown', {key: k, bubbles: true}));
          const out = [];
          for (const head of document.querySelectorAll(sel)) {
            const panel = head.parentElement.querySelector('.card-panel');
            const row = [head.getAttribute('aria-expanded'), panel.inert];
            head.click(); await frame(); row.push(head.getAttribute('aria-expanded'), panel.inert);
            key(head, 'Enter'); await frame(); row.push(head.getAttribute('aria-expanded'));
            key(head, ' '); await frame(); row.push(head.getAttribute('aria-expanded'));
            out.push(row);
          }
          return out;
        }""",
        f"{DONE} .card-head[role=button]",
    )
    assert len(report) >= 8
    assert all(row == ["false", True, "true", False, "false", "true"] for row in report), report
    head = page.locator(f"{DONE} .card-head[role=button]").first
    head.press("Enter")
    expect(head).to_have_attribute("aria-expanded", "false")
    evolution = page.get_by_test_id("evolution")
    expect(evolution.locator(".diff .add")).to_have_text(re.compile(r"^\+"))
    expect(evolution.locator(".diff .del")).to_have_text(re.compile(r"^-"))
    expect(page.get_by_test_id("reasoning")).to_contain_text("She is asking about the flights.")
    expect(page.locator("[data-tool=webFetch]")).to_contain_text("ERROR: HTTP 500")
    expect(page.locator("[data-tool=readSliceSummary]")).to_contain_text("Stopped before it finished")


def test_the_recall_card_lists_hits_that_open_their_slices(make_app, demo_server: Server) -> None:
    app, _ = _chat(make_app, demo_server, full_script(), reduced=True)
    page = app.page
    _send(page, "When are the flights?")
    page.wait_for_selector(DONE)
    recall = page.locator("[data-tool=recall]")
    recall.locator(".card-head").click()
    expect(recall.locator(".card-head")).to_have_attribute("aria-expanded", "true")
    hits = recall.get_by_test_id("recall-hit")
    expect(hits).to_have_count(2)
    assert hits.evaluate_all("els => els.map(e => e.dataset.sliceId)") == [
        "2026-11-21-1040",
        "2026-07-30-1920",
    ]
    expect(hits.first).to_contain_text("92%")
    expect(hits.first).to_contain_text("The fare ceiling was set here")
    expect(recall).to_contain_text("High")
    expect(recall).to_contain_text("Confidence: 88%")
    save_screenshot(page, "recall-desktop-light")
    hits.first.locator(".slice-link").click()
    page.locator(
        "[data-testid=slice-view][data-slice-id='2026-11-21-1040'] [data-testid=turn]"
    ).first.wait_for()


def test_markdown_is_rich_but_inert(make_app, demo_server: Server) -> None:
    app, _ = _chat(make_app, demo_server, full_script())
    app.context.grant_permissions(["clipboard-read", "clipboard-write"])
    page = app.page
    _send(page, "Plan?")
    page.wait_for_selector(DONE)
    reply = page.locator(f"{DONE} .reply")
    expect(reply.locator("h2")).to_have_text("The plan")
    expect(reply.locator("ol li")).to_have_count(2)
    expect(reply.locator("table td")).to_have_count(4)
    expect(reply.locator("p code")).to_have_text("fares.csv")
    expect(reply.locator(".code-lang")).to_have_text("python")
    link = reply.locator("a[href='https://example.org/visa']")
    expect(link).to_have_attribute("target", "_blank")
    expect(link).to_have_attribute("rel", re.compile(r"\bnoopener\b"))
    expect(reply.locator("script, img, [onerror]")).to_have_count(0)
    assert page.evaluate("window.__xss") is None
    reply.locator(".code-copy").click()
    expect(reply.locator(".code-copy")).to_have_text("Copied")
    assert page.evaluate("navigator.clipboard.readText()") == "print('£1,000 per ticket')"
    # The announcement is set in an effect after the finished reply is drawn.
    announcer = page.get_by_test_id("announcer")
    expect(announcer).to_have_text(re.compile(r"^The plan Two things"))
    assert "#" not in announcer.inner_text()


def test_stop_interrupts_running_tools_and_asks_the_server_to_stop(make_app, demo_server: Server) -> None:
    app, turns = _chat(make_app, demo_server, full_script(paused=True))
    page = app.page
    _send(page, "When are the flights?")
    running = page.locator("[data-tool=readSliceSummary][data-state=running]")
    running.wait_for()
    expect(running.locator(".spin")).to_have_count(1)
    expect(page.get_by_test_id("send")).to_have_count(0)
    with page.expect_request("**/api/turns/*/cancel"):
        page.get_by_test_id("stop").click()
    page.locator("[data-tool=readSliceSummary][data-state=interrupted]").wait_for()
    expect(page.get_by_test_id("send")).to_have_count(1)
    expect(page.get_by_test_id("msg-assistant")).to_have_attribute("data-status", "interrupted")
    eventually(page, lambda: turns.cancels, "the cancel request reached the route")
    assert turns.cancels == ["turnscripted1"]


def test_a_failed_turn_and_a_refused_request_both_say_what_happened(make_app, demo_server: Server) -> None:
    app, _ = _chat(make_app, demo_server, error_script())
    page = app.page
    _send(page, "Hello?")
    card = page.get_by_test_id("turn-error")
    expect(card).to_contain_text("The model provider refused the request.")
    expect(page.get_by_test_id("msg-assistant")).to_have_attribute("data-status", "error")

    app2 = make_app(demo_server)
    app2.problems.allow("/api/turns")
    turns = ScriptedTurns(full_script())
    turns.http_status = 500
    turns.install(app2.page, websocket=False)
    app2.open(wait="[data-testid=briefing]")
    _send(app2.page, "Hello?")
    banner = app2.page.get_by_test_id("chat-error")
    expect(banner).to_contain_text("The server broke.")
    banner.locator("summary").click()
    expect(banner.locator("pre")).to_be_visible()
    expect(banner.locator("pre")).to_contain_text('"status": 500')


def test_without_a_websocket_the_turn_is_polled_over_http(make_app, demo_server: Server) -> None:
    app = make_app(demo_server)
    turns = ScriptedTurns(full_script()).install(app.page, websocket=False)
    page = app.open(wait="[data-testid=briefing]")
    _send(page, "When are the flights?")
    page.wait_for_selector(DONE)
    assert turns.starts()[0]["action"] == "POST"
    expect(page.locator(f"{DONE} .reply h2")).to_have_text("The plan")


@pytest.mark.parametrize("size", ["phone", "desktop"])
def test_a_closing_turns_card_change_shows_when_it_comes_after_the_reply(
    make_app, demo_server: Server, size: str
) -> None:
    app, turns = _chat(make_app, demo_server, closing_script(), size=size)
    page = app.page
    _send(page, "I booked the flights.")
    page.wait_for_selector(DONE)
    expect(page.get_by_test_id("evolution")).to_have_count(0)
    turns.release()  # the close passes finish after turn.done; the page reads the turn's log on
    expect(page.locator(DONE).get_by_test_id("evolution")).to_have_text(
        re.compile(r"^Card updated: Flights moved to Now"), timeout=10_000
    )
    expect(page.get_by_test_id("evolution")).to_have_count(1)


def test_a_reload_mid_turn_resumes_it_without_duplicates(make_app, demo_server: Server) -> None:
    app, turns = _chat(make_app, demo_server, full_script(paused=True))
    page = app.page
    _send(page, "When are the flights?")
    page.locator("[data-tool=readSliceSummary][data-state=running]").wait_for()
    page.reload()
    page.locator("[data-tool=readSliceSummary][data-state=running]").wait_for()
    expect(page.get_by_test_id("msg-user")).to_have_text("When are the flights?")
    # The stored events are drawn (over HTTP) before the socket that follows the turn is open.
    follow = {"action": "turn.follow", "turn_id": "turnscripted1", "after": 18}
    eventually(page, lambda: follow in turns.sent, "the reloaded page follows the turn")
    assert turns.sent[-1] == follow
    turns.release()
    page.wait_for_selector(DONE)
    expect(page.locator(f"{DONE} .reply")).to_contain_text("Check the visa rules")
    text = page.locator(f"{DONE} .reply").inner_text()
    assert text.count("The plan") == 1
    expect(page.get_by_test_id("tool-card")).to_have_count(6)
    page.reload()
    page.get_by_test_id("briefing").wait_for()
    expect(page.get_by_test_id("msg-assistant")).to_have_count(0)


def test_the_view_follows_the_stream_unless_the_user_scrolls_up(make_app, demo_server: Server) -> None:
    app, turns = _chat(make_app, demo_server, full_script(paused=True), size="phone")
    page = app.page
    page.set_viewport_size({"width": 390, "height": 560})
    _send(page, "When are the flights?")
    page.locator("[data-tool=readSliceSummary][data-state=running]").wait_for()
    at_bottom = """() => { const p = document.querySelector('.pane-scroll');
      return p.scrollHeight - p.scrollTop - p.clientHeight < 80; }"""
    page.wait_for_function(at_bottom)
    page.locator(".pane-scroll").evaluate("el => el.scrollTo(0, 0)")
    page.locator(".jump-latest").wait_for()
    turns.release()
    page.wait_for_selector(DONE)
    assert page.locator(".pane-scroll").evaluate("el => el.scrollTop") == 0
