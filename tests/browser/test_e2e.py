"""One real turn end to end: the page, `previously serve` and the fake model provider (no script)."""

from __future__ import annotations

import pytest

from tests.browser.conftest import REAL_TURN_MS, Server

pytestmark = pytest.mark.browser


def test_a_message_gets_a_reply_and_becomes_a_slice(make_app, own_server: Server) -> None:
    timeline = own_server.get("/api/timeline")
    before = timeline["total"]
    # Other tests on this server may have left a conversation open: the message then joins it.
    opens = 0 if any(e["status"] == "active" for e in timeline["slices"]) else 1
    app = make_app(own_server, now=None)
    page = app.open(wait="[data-testid=briefing]")
    page.locator("#message-box").fill("Hello from the browser test")
    page.locator("#message-box").press("Enter")
    # An open conversation's earlier exchanges are shown above (`data-earlier`): this page's own
    # exchange is the last.
    page.locator("[data-testid=msg-user]:not([data-earlier])").wait_for()
    own = "[data-testid=msg-assistant]:not([data-earlier])"
    page.wait_for_selector(f"{own}:not([data-status=running])", timeout=REAL_TURN_MS)
    assistant = page.locator(own)
    assert assistant.get_attribute("data-status") == "done", assistant.inner_text()
    assert "Hello from the browser test" in assistant.locator(".reply").inner_text()
    page.wait_for_function(
        "(n) => document.querySelector('[role=option][data-slice-id=now]')"
        ".getAttribute('aria-setsize') == n + 1",
        arg=before + opens,
    )
    page.reload()
    page.get_by_test_id("briefing").wait_for()
    after = own_server.get("/api/timeline")
    assert after["total"] == before + opens
    assert any(e["status"] == "active" for e in after["slices"])
