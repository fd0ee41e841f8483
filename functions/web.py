"""The web tools a deployment offers, from its settings (docs/WEB.md)."""

from __future__ import annotations

from core.web import WebAccess
from core.web.fetch import WebFetcher
from core.web.guard import FetchGuard
from core.web.search import BraveSearch, SearchBackend, SearxngSearch
from functions.settings import Settings


def build_search(settings: Settings) -> SearchBackend | None:
    """SearXNG when SEARXNG_URL is set, else Brave Search when its key is, else none."""
    if settings.searxng_url:
        return SearxngSearch(settings.searxng_url)
    key = settings.brave_search_api_key.get_secret_value().strip() if settings.brave_search_api_key else ""
    return BraveSearch(key) if key else None


def build_web(settings: Settings) -> WebAccess:
    """webFetch (unless PREVIOUSLY_WEB_FETCH is off) behind the guard, and the search backend."""
    fetcher = WebFetcher(FetchGuard.from_setting(settings.fetch_allow_hosts)) if settings.web_fetch else None
    return WebAccess(fetcher=fetcher, search=build_search(settings))
