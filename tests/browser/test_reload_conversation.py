"""D9: a reload in the middle of a conversation keeps it whole (docs/UI.md "The December audit").

A real server and the fake model provider: two exchanges, a third whose reply is slow, a reload
while it runs. The page shows the earlier exchanges again (from `GET /api/state`'s open slice),
the resumed reply finishes, and the next message lands in the same slice — no `context_lost`.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import REAL_TURN_MS, Server, save_screenshot, settle
from tests.fakes.fake_model_server import FakeModelServer, RecordedRequest, Reply, echo_responder

pytestmark = pytest.mark.browser

SLOW = "SLOWTEST"


@pytest.fixture
def slow_model(fake_model: FakeModelServer) -> Iterator[FakeModelServer]:
    """The session's fake model, answering the first reply to a SLOWTEST message after 6 s."""
    waited: list[bool] = []

    def respond(request: RecordedRequest) -> Reply:
        reply = echo_responder(request)
        if SLOW in request.last_user_text and not request.forced_tool and not waited:
            waited.append(True)
            return Reply(text=reply.text, delay=6.0)
        return reply

    fake_model.responder = respond
    yield fake_model
    fake_model.responder = echo_responder


def _send(page: Page, text: str) -> None:
    page.locator("#message-box").fill(text)
    page.locator("#message-box").press("Enter")


def _reply_done(page: Page, words: str) -> None:
    done = page.locator("[data-testid=msg-assistant][data-status=done]", has_text=f"You said: {words}")
    expect(done).to_have_count(1, timeout=REAL_TURN_MS)


def test_a_reload_mid_reply_keeps_the_conversation_and_its_slice(
    make_app, fresh_own_server: Server, slow_model: FakeModelServer
) -> None:
    app = make_app(fresh_own_server, size="phone", now=None)
    page = app.open(wait="[data-testid=briefing]")
    _send(page, "D9 one: the seedlings")
    _reply_done(page, "D9 one")
    _send(page, "D9 two: the tomatoes")
    _reply_done(page, "D9 two")
    sid = fresh_own_server.get("/api/state")["active"]["slice_id"]
    total = fresh_own_server.get("/api/timeline")["total"]

    _send(page, f"{SLOW} D9 three: the basil")
    page.wait_for_function("() => localStorage.getItem('previously:turn') !== null")
    expect(page.locator("[data-testid=msg-assistant][data-status=running]")).to_have_count(1)
    page.reload()

    # The earlier exchanges are back above the resumed one, said to be earlier.
    expect(page.get_by_test_id("earlier-note")).to_be_visible()
    users = page.get_by_test_id("msg-user")
    expect(users.filter(has_text="D9 one: the seedlings")).to_have_count(1)
    expect(users.filter(has_text="D9 two: the tomatoes")).to_have_count(1)
    expect(users.filter(has_text="D9 one: the seedlings")).to_have_attribute("data-earlier", "")
    earlier_reply = page.locator("[data-testid=msg-assistant][data-earlier]", has_text="You said: D9 two")
    expect(earlier_reply).to_have_count(1)
    _reply_done(page, f"{SLOW} D9 three")
    page.get_by_test_id("earlier-note").scroll_into_view_if_needed()
    settle(page)
    save_screenshot(page, "reload-earlier-phone")
    assert page.locator(".reply", has_text=f"{SLOW} D9 three").inner_text().count("You said") == 1

    _send(page, "D9 four: the harvest")
    _reply_done(page, "D9 four")
    state = fresh_own_server.get("/api/state")
    assert state["active"]["slice_id"] == sid, "the next message started a new slice"
    assert fresh_own_server.get("/api/timeline")["total"] == total
    stored = fresh_own_server.get(f"/api/slices/{sid}")
    assert stored["status"] == "active" and stored["closed_by"] is None
    said = [t["content"] for t in stored["turns"] if t["role"] == "user"]
    for words in ("D9 one", "D9 two", f"{SLOW} D9 three", "D9 four"):
        assert sum(words in s for s in said) == 1, said
    # The page still shows the whole conversation, each exchange once.
    expect(users).to_have_count(len(said))


def test_after_a_reload_between_replies_the_next_messages_stay_in_the_slice(
    make_app, fresh_own_server: Server
) -> None:
    """A finished reply, a reload (the briefing, as designed), then two more messages: the first
    joins the open slice and brings its earlier exchanges back; the second is not a lost context."""
    app = make_app(fresh_own_server, size="phone360", now=None)
    page = app.open(wait="[data-testid=briefing]")
    _send(page, "D9b one: the shed")
    _reply_done(page, "D9b one")
    _send(page, "D9b two: the roof")
    _reply_done(page, "D9b two")
    sid = fresh_own_server.get("/api/state")["active"]["slice_id"]
    page.reload()
    page.get_by_test_id("briefing").wait_for()
    _send(page, "D9b three: the gutter")
    _reply_done(page, "D9b three")
    expect(page.get_by_test_id("earlier-note")).to_be_visible()
    expect(page.get_by_test_id("msg-user").filter(has_text="D9b one: the shed")).to_have_count(1)
    _send(page, "D9b four: the paint")
    _reply_done(page, "D9b four")
    stored = fresh_own_server.get(f"/api/slices/{sid}")
    assert stored["status"] == "active" and stored["closed_by"] is None, "the fourth message split the slice"
    said = [t["content"] for t in stored["turns"] if t["role"] == "user"]
    assert [w for w in ("D9b one", "D9b two", "D9b three", "D9b four") if not any(w in s for s in said)] == []
