"""webFetch and webSearch against a local web: pages, redirects, refusals, both search APIs, a whole turn."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from core.clock import FixedClock
from core.errors import InvalidInput, PathDenied, TooLarge, TransientError
from core.memory.paths import agent_md
from core.storage.memory import InMemoryStorage
from core.web import WebAccess
from core.web.fetch import WebFetcher
from core.web.guard import PRIVATE_REFUSAL, FetchGuard
from core.web.search import BraveSearch, SearxngSearch
from functions.compose.backends import build_web
from functions.settings import load_settings
from tests.fakes.fake_model_server import FakeModelServer, RecordedRequest, Reply, ToolCall
from tests.fakes.fake_web import BRAVE_KEY, FakeWeb
from tests.functional.turn_support import make_harness

pytestmark = pytest.mark.functional
SLICE = "2026-08-11-1115"
TOMATO_ROWS = [
    ("Growing Tomatoes on a Balcony", "https://gardens.example/tomatoes", "Six hours of sun, a big pot."),
    ("Tomato feeding guide", "https://feed.example/guide", "Feed every two weeks."),
]


@pytest.fixture
def web() -> Iterator[FakeWeb]:
    server = FakeWeb().start()
    server.results["balcony tomatoes"] = TOMATO_ROWS
    yield server
    server.stop()


def fetcher(max_bytes: int = 1_000_000, **dns: list[str]) -> WebFetcher:
    table = {k.replace("_", "."): v for k, v in dns.items()}
    guard = FetchGuard.from_setting("127.0.0.1", lambda host, port: table.get(host, []))
    return WebFetcher(guard, max_bytes=max_bytes)


def test_a_page_comes_back_as_text_with_url_and_title(web: FakeWeb) -> None:
    page = fetcher().fetch(web.url("/article"))
    assert page.url == web.url("/article") and page.title == "Growing Tomatoes on a Balcony"
    assert "twenty litres" in page.text and "track()" not in page.text


def test_plain_text_is_kept_as_it_is(web: FakeWeb) -> None:
    assert fetcher().fetch(web.url("/plain.txt")).text == "line one\nline two\n\nline four"


def test_a_redirect_is_followed_and_checked_again(web: FakeWeb) -> None:
    page = fetcher().fetch(web.url("/redirect?to=/article"))
    assert page.url == web.url("/article")
    assert [r["path"] for r in web.requests] == ["/redirect", "/article"]


@pytest.mark.parametrize(
    "target", ["http://10.0.0.1/", "http://[::1]:8080/", "http://169.254.169.254/latest"]
)
def test_a_redirect_to_a_private_host_is_refused_before_it_is_requested(web: FakeWeb, target: str) -> None:
    with pytest.raises(PathDenied, match=PRIVATE_REFUSAL):
        fetcher().fetch(web.url(f"/redirect?to={target}"))
    assert [r["path"] for r in web.requests] == ["/redirect"]


def test_a_redirect_to_a_name_resolving_privately_is_refused(web: FakeWeb) -> None:
    with pytest.raises(PathDenied):
        fetcher(evil_example=["192.168.1.20"]).fetch(web.url("/redirect?to=http://evil.example/"))


def test_loopback_is_refused_unless_allowed(web: FakeWeb) -> None:
    with pytest.raises(PathDenied, match=PRIVATE_REFUSAL):
        WebFetcher(FetchGuard()).fetch(web.url("/article"))
    assert web.requests == []


def test_a_name_is_fetched_from_the_address_it_was_vetted_at(web: FakeWeb) -> None:
    guard = FetchGuard.from_setting("pages.test", lambda host, port: ["127.0.0.1"])
    page = WebFetcher(guard).fetch(f"http://pages.test:{web.port}/article")
    assert page.title.startswith("Growing") and web.requests[-1]["host"] == f"pages.test:{web.port}"


def test_redirect_loops_end(web: FakeWeb) -> None:
    with pytest.raises(InvalidInput, match="more than 5 redirects"):
        fetcher().fetch(web.url("/loop"))


def test_oversized_non_text_and_missing_pages_are_clear_errors(web: FakeWeb) -> None:
    with pytest.raises(TooLarge, match="larger than"):
        fetcher(max_bytes=1_000_000).fetch(web.url("/big"))
    with pytest.raises(InvalidInput, match="not a text page"):
        fetcher().fetch(web.url("/photo.png"))
    with pytest.raises(InvalidInput, match=r"^HTTP 404 Not Found$"):
        fetcher().fetch(web.url("/missing"))


def test_an_unreachable_server_is_transient() -> None:
    with pytest.raises(TransientError):
        fetcher().fetch("http://127.0.0.1:9/")


def test_searxng_and_brave_give_the_same_results(web: FakeWeb) -> None:
    searx = SearxngSearch(web.searx_url).search("balcony tomatoes")
    brave = BraveSearch(BRAVE_KEY, url=web.brave_url).search("balcony tomatoes")
    assert (
        [(r.title, r.url, r.snippet) for r in searx]
        == TOMATO_ROWS
        == [(r.title, r.url, r.snippet) for r in brave]
    )
    with pytest.raises(InvalidInput, match="HTTP 401"):
        BraveSearch("wrong", url=web.brave_url).search("x")


def test_settings_choose_the_backends(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in (
        "SEARXNG_URL",
        "BRAVE_SEARCH_API_KEY",
        "PREVIOUSLY_WEB_FETCH",
        "PREVIOUSLY_FETCH_ALLOW_HOSTS",
    ):
        monkeypatch.delenv(name, raising=False)
    plain = build_web(load_settings(STORAGE="local"))
    assert plain.search is None and plain.fetcher is not None
    brave = build_web(load_settings(STORAGE="local", BRAVE_SEARCH_API_KEY="k", PREVIOUSLY_WEB_FETCH="false"))
    assert isinstance(brave.search, BraveSearch) and brave.fetcher is None
    searx = build_web(load_settings(STORAGE="local", SEARXNG_URL="http://127.0.0.1:8888"))
    assert isinstance(searx.search, SearxngSearch)
    with pytest.raises(InvalidInput, match="SEARXNG_URL"):
        load_settings(STORAGE="local", SEARXNG_URL="search.example")


def tool_outputs(request: RecordedRequest) -> list[str]:
    """The tool results a request carries back to the model (either wire format)."""
    out: list[str] = []
    for message in request.body.get("messages", []):
        if message.get("role") == "tool":
            out.append(str(message.get("content")))
        content = message.get("content")
        if isinstance(content, list):
            out += [
                str(c.get("content"))
                for c in content
                if isinstance(c, dict) and c.get("type") == "tool_result"
            ]
    return out


def _events(state: Any, tool: str) -> list[tuple[str, str]]:
    return [(e["state"], e["label"]) for e in state.events if e["type"] == "tool.call" and e["tool"] == tool]


def test_a_turn_searches_then_fetches_and_cites(web: FakeWeb, fake_models: FakeModelServer) -> None:
    h = make_harness(InMemoryStorage(), FixedClock.at("2026-08-11T11:15:00.000Z"), fake_models)
    h.deps.web = WebAccess(fetcher(), SearxngSearch(web.searx_url))
    assert h.brain is not None
    h.brain.main(
        Reply(tool_calls=[ToolCall("webSearch", {"query": "balcony tomatoes"}, id="s1")]),
        Reply(tool_calls=[ToolCall("webFetch", {"url": web.url("/article")}, id="f1")]),
        "Six hours of sun and a twenty-litre pot (gardens.example).",
    )
    state = h.turn("How do I grow tomatoes on my balcony?")
    assert state.status == "done"
    first, second, third = h.brain.requests["main"]
    assert {"webSearch", "webFetch"} <= set(first.tool_names)
    assert "[1] Growing Tomatoes on a Balcony\nhttps://gardens.example/tomatoes" in tool_outputs(second)[0]
    fetched = tool_outputs(third)[1]
    assert fetched.startswith(f"URL: {web.url('/article')}\nTitle: Growing Tomatoes on a Balcony\n\n")
    assert _events(state, "webSearch") == [
        ("running", 'Searching the web for "balcony tomatoes"'),
        ("completed", 'Searched the web for "balcony tomatoes"'),
    ]
    assert _events(state, "webFetch")[-1] == ("completed", f"Fetched 127.0.0.1:{web.port}/article")
    log = h.read(str(agent_md(SLICE))) or ""
    assert '- `webSearch`(query: "balcony tomatoes") → ok' in log and "- `webFetch`(url: " in log
    assert (
        "### Sources\n- <https://gardens.example/tomatoes> — Growing Tomatoes on a Balcony\n"
        "- <https://feed.example/guide> — Tomato feeding guide\n"
    ) in log


def test_a_refused_fetch_is_an_error_the_model_reads(web: FakeWeb, fake_models: FakeModelServer) -> None:
    h = make_harness(InMemoryStorage(), FixedClock.at("2026-08-11T11:15:00.000Z"), fake_models)
    h.deps.web = WebAccess(WebFetcher(FetchGuard()), None)
    assert h.brain is not None
    h.brain.main(
        Reply(tool_calls=[ToolCall("webFetch", {"url": "http://192.168.1.1/"}, id="f1")]), "I can't."
    )
    state = h.turn("Open my router page")
    second = h.brain.requests["main"][1]
    assert tool_outputs(second) == [f"ERROR: {PRIVATE_REFUSAL}"]
    assert _events(state, "webFetch")[-1] == ("error", "Could not fetch 192.168.1.1")
    assert "→ error: ERROR: Cannot fetch local" in (h.read(str(agent_md(SLICE))) or "")
    assert "webSearch" not in h.brain.requests["main"][0].tool_names


def test_without_web_no_tool_is_offered_and_the_model_is_told(fake_models: FakeModelServer) -> None:
    h = make_harness(InMemoryStorage(), FixedClock.at("2026-08-11T11:15:00.000Z"), fake_models)
    h.deps.web = WebAccess()
    assert h.brain is not None
    h.brain.main("I have no web here.")
    h.turn("What's the weather?")
    request = h.brain.requests["main"][0]
    assert not {"webSearch", "webFetch"} & set(request.tool_names)
    assert "You have no access to the web" in h.brain.system_prompts()[0]
