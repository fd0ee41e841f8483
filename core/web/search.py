"""webSearch: cited results from a configured search backend, and the one text form they take.

Backends: a self-hosted SearXNG (its JSON API, SEARXNG_URL) or the Brave Search API (a key,
BRAVE_SEARCH_API_KEY). The deployment configures the backend's address, so it is not passed
through the fetch guard. The tool text numbers each result — `[n] title`, the URL, a snippet —
and `parse_sources` reads the title/URL pairs back (the tool card and agent.md use it), which
also works on a text cut short.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

import httpx

from core.errors import InvalidInput, TransientError
from core.memory.slice.agent_md import CitedSource

MAX_RESULTS = 8
SNIPPET_CHARS = 300
TIMEOUT = httpx.Timeout(20.0, connect=10.0)
BRAVE_URL = "https://api.search.brave.com/res/v1/web/search"
_SOURCE_RE = re.compile(r"^\[(\d+)\] (.*)\n(https?://\S+)$", re.M)


@dataclass(frozen=True)
class SearchResult:
    """One result: its title, URL and the backend's snippet."""

    title: str
    url: str
    snippet: str = ""


class SearchBackend(Protocol):
    """Anything that answers a web query with results, best first."""

    @property
    def name(self) -> str: ...

    def search(self, query: str) -> list[SearchResult]: ...


def _client() -> httpx.Client:
    return httpx.Client(timeout=TIMEOUT, trust_env=False)


def _get_json(client: Callable[[], httpx.Client], url: str, **kwargs: Any) -> Any:
    try:
        with client() as http:
            response = http.get(url, **kwargs)
    except httpx.HTTPError as exc:
        raise TransientError(f"The web search backend did not answer ({type(exc).__name__}).") from exc
    if response.status_code >= 500 or response.status_code == 429:
        raise TransientError(f"The web search backend is busy (HTTP {response.status_code}); try again.")
    if response.status_code >= 400:
        raise InvalidInput(f"The web search backend refused the query (HTTP {response.status_code}).")
    try:
        return response.json()
    except ValueError as exc:
        raise TransientError("The web search backend sent something that is not JSON.") from exc


def _result(title: Any, url: Any, snippet: Any) -> SearchResult | None:
    if not isinstance(url, str) or not url.startswith(("http://", "https://")):
        return None
    text = " ".join(str(snippet or "").split())
    return SearchResult(" ".join(str(title or url).split()), url, text[:SNIPPET_CHARS])


@dataclass(frozen=True)
class SearxngSearch:
    """A SearXNG instance's JSON API (`format=json` must be enabled in its settings)."""

    base_url: str
    client: Callable[[], httpx.Client] = _client
    name: str = "searxng"

    def search(self, query: str) -> list[SearchResult]:
        data = _get_json(
            self.client, self.base_url.rstrip("/") + "/search", params={"q": query, "format": "json"}
        )
        items = data.get("results") if isinstance(data, dict) else None
        found = [
            _result(i.get("title"), i.get("url"), i.get("content"))
            for i in items or []
            if isinstance(i, dict)
        ]
        return [r for r in found if r][:MAX_RESULTS]


@dataclass(frozen=True)
class BraveSearch:
    """The Brave Search API (a subscription token)."""

    api_key: str
    url: str = BRAVE_URL
    client: Callable[[], httpx.Client] = _client
    name: str = "brave"

    def search(self, query: str) -> list[SearchResult]:
        headers = {"X-Subscription-Token": self.api_key, "Accept": "application/json"}
        data = _get_json(self.client, self.url, params={"q": query, "count": MAX_RESULTS}, headers=headers)
        web = data.get("web") if isinstance(data, dict) else None
        items = web.get("results") if isinstance(web, dict) else None
        found = [
            _result(i.get("title"), i.get("url"), i.get("description"))
            for i in items or []
            if isinstance(i, dict)
        ]
        return [r for r in found if r][:MAX_RESULTS]


RESULTS_HEAD = "Web results for "


def results_text(query: str, results: list[SearchResult]) -> str:
    """The tool text of a search: numbered results the model cites by URL."""
    if not results:
        return f'No web results for "{query}". Try other words, or answer without the web.'
    blocks = [
        f"[{n}] {r.title}\n{r.url}" + (f"\n{r.snippet}" if r.snippet else "")
        for n, r in enumerate(results, 1)
    ]
    head = f'{RESULTS_HEAD}"{query}" (cite the URLs you rely on; webFetch reads a page in full):'
    return head + "\n\n" + "\n\n".join(blocks)


def parse_sources(text: str) -> list[CitedSource]:
    """The title/URL pairs of a `results_text` (as many as survive a cut), in order.

    Only what follows the results' head line counts, so text above it (the search helper's
    answer, which a model wrote) can never pass for a source. The head is the last paragraph that
    starts so: result blocks start with `[n]`, and their titles and snippets hold no line breaks.
    """
    text = text or ""
    start = 0 if text.startswith(RESULTS_HEAD) else text.rfind("\n\n" + RESULTS_HEAD)
    body = text[start:] if start >= 0 else text
    return [CitedSource(m.group(2), m.group(3)) for m in _SOURCE_RE.finditer(body)]
