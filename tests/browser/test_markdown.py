"""Replies in Markdown as a modern chat shows them: highlighted code and typeset math, loaded only
when a reply needs them; GitHub's alerts; tables (docs/UI.md "The screens")."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import Server
from tests.browser.scripted_turns import ScriptedTurns, reply_script

pytestmark = pytest.mark.browser

RICH = (
    "> [!WARNING]\n> Book before **Monday**.\n\n"
    "Einstein: $E=mc^2$, and it costs $5 or $10.\n\n"
    "$$\n\\int_0^1 x\\,dx = \\tfrac12\n$$\n\n"
    "| Item | When |\n|---|---|\n| Flights | Saturday |\n\n"
    "```python\ndef fare(n):\n    return 940 * n\n```\n"
)


def _reply(page: Page, text: str) -> Any:
    turns = ScriptedTurns(reply_script(text)).install(page)
    page.locator("#message-box").fill("Show me")
    page.locator("#message-box").press("Enter")
    reply = page.locator("[data-testid=msg-assistant][data-status=done] .md").last
    expect(reply).to_be_visible()
    assert turns.starts()
    return reply


def _loaded(page: Page) -> list[str]:
    return page.evaluate(
        "performance.getEntriesByType('resource').map((e) => e.name)"
        ".filter((n) => n.includes('/vendor/highlight/') || n.includes('/vendor/katex/'))"
    )


def test_code_math_alerts_and_tables_render(make_app: Any, demo_server: Server) -> None:
    app = make_app(demo_server, size="phone")
    page = app.open(wait="[data-testid=briefing]")
    assert _loaded(page) == [], "the libraries are not part of the first load"
    reply = _reply(page, RICH)
    alert = reply.locator(".md-alert-warning")
    expect(alert.locator(".md-alert-title")).to_have_text("Warning")
    expect(alert).to_contain_text("Book before Monday.")
    expect(alert).not_to_contain_text("[!WARNING]")
    expect(reply.locator("table td").first).to_have_text("Flights")
    expect(reply.locator("code[data-lang=python] .hljs-keyword").first).to_have_text("def")
    expect(reply.locator(".math .katex").first).to_be_visible()
    expect(reply.locator(".math.display .katex-display")).to_have_count(1)
    expect(reply.locator(".math")).to_have_count(2)  # "$5 or $10" stays money
    expect(reply).to_contain_text("it costs $5 or $10.")


def test_a_plain_reply_loads_neither_library(make_app: Any, demo_server: Server) -> None:
    app = make_app(demo_server)
    page = app.open(wait="[data-testid=briefing]")
    reply = _reply(page, "Just words, and `inline code`, no block.\n\n```\nplain block\n```\n")
    expect(reply.locator("code")).to_have_count(2)
    page.wait_for_load_state("networkidle")
    assert _loaded(page) == []
