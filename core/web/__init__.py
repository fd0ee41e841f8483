"""The agent's reach beyond memory: webFetch (one page, behind a request-forgery guard) and webSearch."""

from __future__ import annotations

from dataclasses import dataclass

from core.web.fetch import WebFetcher
from core.web.search import SearchBackend


@dataclass(frozen=True)
class WebAccess:
    """What a turn may use of the web: a page fetcher and a search backend, each optional."""

    fetcher: WebFetcher | None = None
    search: SearchBackend | None = None

    @property
    def any(self) -> bool:
        """Whether the agent has any web tool at all."""
        return self.fetcher is not None or self.search is not None
