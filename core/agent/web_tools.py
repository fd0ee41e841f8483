"""The main agent's web tools, offered only when the deployment gives the agent the web.

webFetch reads one page (through the request-forgery guard); webSearch asks the configured
search backend, and the search helper (core/agent/workers/search_agent.py) answers from the results.
Both return text the model cites by URL; refusals come back as `ERROR: …`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

from pydantic import Field

from core.agent.tool_context import ToolContext, ToolLabel
from core.agent.workers.search_agent import web_search
from core.web.fetch import FetchRange, fetch_text

WEB_TOOL_NAMES = ("webSearch", "webFetch")
# Their labels' catalogue keys (see main_tools.TOOL_LABELS; the phrases are in core/i18n).
WEB_TOOL_LABELS: dict[str, ToolLabel] = {
    "webSearch": "tool.webSearch",
    "webFetch": "tool.webFetch",
}
NO_WEB_NOTE = (
    "You have no access to the web in this deployment: you cannot search or open pages. "
    "If an answer needs current information from the web, say so plainly."
)


def web_tools(ctx: ToolContext) -> list[Callable[..., Any]]:
    """The web tool functions `ctx.web` allows (none without a fetcher or a search backend)."""
    web = ctx.web
    if web is None:
        return []
    out: list[Callable[..., Any]] = []
    search, fetcher = web.search, web.fetcher
    if search is not None:

        def webSearch(
            query: Annotated[str, Field(min_length=1, description="what to look up, as you would type it")],
        ) -> str:
            """Search the live web. A search helper answers from the results, citing them; then come
            the numbered results (title, URL, snippet). Cite the URLs you rely on in your answer;
            open a promising page with webFetch before quoting it."""
            return web_search(ctx, search, query)

        out.append(webSearch)
    if fetcher is not None:

        def webFetch(
            url: Annotated[str, Field(min_length=1, description="an http:// or https:// URL")],
            range: FetchRange | None = None,
        ) -> str:
            """Read one web page as plain text, with its final URL and title: the first 15,000
            characters, or the part `range` picks (paragraphs matching keywords, or a line range).
            Local and private network addresses are refused."""
            return fetch_text(fetcher.fetch(url), range)

        out.append(webFetch)
    return out
