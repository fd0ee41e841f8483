"""webFetch: one page read from the live web, as readable text with its URL and title.

Every URL (the first and each redirect, at most five) passes the `FetchGuard` and the request
goes to the address the guard vetted (the host name kept for the Host header and TLS), so a
private address is never contacted. Timeouts, a byte cap, and text-only content types bound what
a page can cost. The text can be narrowed like readSlice: `search` over its paragraphs, or `lines`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal
from urllib.parse import urljoin, urlsplit

import httpx
from pydantic import BaseModel, Field

from core.errors import InvalidInput, TooLarge, TransientError
from core.memory.slice.segments import lines_output, search_output, split_paragraphs
from core.web.guard import FetchGuard, Target
from core.web.page_text import page_text

MAX_REDIRECTS = 5
MAX_BYTES = 2_000_000
MAX_CHARS = 15_000
TIMEOUT = httpx.Timeout(30.0, connect=10.0)
USER_AGENT = "Previously/0.1 (+webFetch; a personal agent reading one page for its user)"
_TEXT_TYPES = ("text/", "application/json", "application/xml", "application/xhtml+xml")


class FetchRange(BaseModel):
    """Which part of the page to return (leave it out for the first 15,000 characters)."""

    type: Literal["search", "lines"] = Field(
        description="search: paragraphs containing any of `keywords`, with `context` neighbours; "
        "lines: lines `start`–`end` of the page text (1-based, inclusive)"
    )
    keywords: list[str] | None = Field(None, description="for search: words to look for (any case)")
    context: int | None = Field(None, ge=0, le=10, description="for search: paragraphs each side (1)")
    start: int | None = Field(None, ge=1, description="for lines: first line")
    end: int | None = Field(None, ge=1, description="for lines: last line")


@dataclass(frozen=True)
class Page:
    """A fetched page: where it ended up (after redirects), its title and its readable text."""

    url: str
    title: str
    text: str


def _client() -> httpx.Client:
    return httpx.Client(timeout=TIMEOUT, follow_redirects=False, trust_env=False)


@dataclass(frozen=True)
class WebFetcher:
    """Fetches pages through the guard; `client` makes the HTTP client (a test may pass its own)."""

    guard: FetchGuard = field(default_factory=FetchGuard)
    client: Callable[[], httpx.Client] = _client
    max_bytes: int = MAX_BYTES

    def fetch(self, url: str) -> Page:
        """The page at `url`; PathDenied / InvalidInput / TooLarge / TransientError say why not."""
        with self.client() as http:
            target = self.guard.check(url)
            for _ in range(MAX_REDIRECTS + 1):
                response = self._get(http, target)
                if response.is_redirect and "location" in response.headers:
                    target = self.guard.check(urljoin(target.url, response.headers["location"]))
                    continue
                return self._page(target, response)
        raise InvalidInput(f"Cannot fetch {url}: more than {MAX_REDIRECTS} redirects.")

    def _get(self, http: httpx.Client, target: Target) -> _Response:
        pinned = httpx.URL(target.url).copy_with(host=target.address)
        headers = {"Host": _host_header(target), "User-Agent": USER_AGENT, "Accept": "text/html,text/*;q=0.9"}
        extensions = {"sni_hostname": target.host} if target.scheme == "https" else {}
        try:
            with http.stream("GET", pinned, headers=headers, extensions=extensions) as response:
                body = b"" if response.is_redirect else self._read_capped(response, target.url)
                return _Response(response.status_code, response.reason_phrase, response.headers, body)
        except httpx.TimeoutException as exc:
            raise TransientError(
                f"Fetching {target.url} timed out. Try again later or another page."
            ) from exc
        except httpx.HTTPError as exc:
            raise TransientError(f"Fetching {target.url} failed ({type(exc).__name__}: {exc}).") from exc

    def _read_capped(self, response: httpx.Response, url: str) -> bytes:
        if response.status_code >= 400:
            return b""
        kind = response.headers.get("content-type", "text/html").split(";")[0].strip().lower()
        if not kind.startswith(_TEXT_TYPES):
            raise InvalidInput(f"{url} is not a text page ({kind}); webFetch reads HTML and text only.")
        chunks, size = [], 0
        for chunk in response.iter_bytes():
            size += len(chunk)
            if size > self.max_bytes:
                raise TooLarge(f"{url} is larger than {self.max_bytes // 1_000_000} MB; try a smaller page.")
            chunks.append(chunk)
        return b"".join(chunks)

    def _page(self, target: Target, response: _Response) -> Page:
        if not 200 <= response.status < 300:
            raise InvalidInput(f"HTTP {response.status} {response.reason}".rstrip())
        text = _decode(response)
        kind = response.headers.get("content-type", "text/html").lower()
        if "html" in kind or text.lstrip()[:1] == "<":
            page = page_text(text)
            return Page(target.url, page.title, page.text)
        return Page(target.url, "", text.strip())


@dataclass(frozen=True)
class _Response:
    status: int
    reason: str
    headers: httpx.Headers
    body: bytes

    @property
    def is_redirect(self) -> bool:
        return self.status in (301, 302, 303, 307, 308)


def _host_header(target: Target) -> str:
    host = f"[{target.host.strip('[]')}]" if ":" in target.host else target.host
    default = 443 if target.scheme == "https" else 80
    return host if target.port == default else f"{host}:{target.port}"


def _decode(response: _Response) -> str:
    charset = httpx.Response(200, headers=response.headers).charset_encoding or "utf-8"
    try:
        return response.body.decode(charset, errors="replace")
    except LookupError:
        return response.body.decode("utf-8", errors="replace")


def fetch_text(page: Page, rng: FetchRange | None = None) -> str:
    """The tool text: URL and title lines, then the page text (narrowed by `rng`, else capped)."""
    head = f"URL: {page.url}\nTitle: {page.title or '(none)'}\n\n"
    if rng is not None and rng.type == "search":
        parts = urlsplit(page.url)
        label = parts.netloc + parts.path
        keywords = [k for k in rng.keywords or [] if k]
        return head + search_output(
            _capped(page.text), split_paragraphs(page.text), keywords, label, rng.context
        )
    if rng is not None and rng.type == "lines":
        return head + lines_output(page.text, rng.start or 1, rng.end or rng.start or 1, page.url)
    return head + (_capped(page.text) or "(the page has no readable text)")


def _capped(text: str) -> str:
    if len(text) <= MAX_CHARS:
        return text
    return text[:MAX_CHARS] + f"\n\n(Truncated at {MAX_CHARS} characters)"
