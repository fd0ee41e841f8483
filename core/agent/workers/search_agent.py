"""The search helper behind webSearch: the worker model turns raw results into a cited answer.

The main model's query always runs on the search backend first (so the sources never depend on
the worker). With a worker model, it then reads those results — with the user's search
playbook appended to its prompt at call time, never to the turn's frozen system prompt — may
search again in its own words (at most `MAX_EXTRA_SEARCHES` more), and files a report: a short
answer citing the results by number, a recommendation, up to three suggested pages, each a URL
the searches showed. The tool text is that answer above the numbered results (the format the
tool card and agent.md read; only the results count as sources). Without a worker, when it files
nothing usable, or when no search found anything, the results alone come back.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Annotated

from pydantic import BaseModel, BeforeValidator, Field

from core.agent.playbooks import playbook_note
from core.agent.recall import filters as rf
from core.agent.runner import ReportSpec, run_subagent
from core.agent.tool_context import ToolContext
from core.llm.tools import Tool
from core.web.search import SearchBackend, SearchResult, results_text

REPORT_TOOL = "report_web_search"
MAX_EXTRA_SEARCHES = 2
MAX_STEPS = 4
BUDGET_SECONDS = 60.0
MAX_SOURCES = 12
MAX_READS = 3
SYSTEM_PROMPT = f"""\
You are the web search helper of a personal assistant. The assistant asked the web a question; \
you see the results of its query. Answer the question from them in a few plain sentences, citing \
the results you rely on by their number, like [2]. If the results miss the question, search again \
with other words (searchWeb, at most {MAX_EXTRA_SEARCHES} more times). Then call {REPORT_TOOL} \
once: the answer, a one-line recommendation for the assistant (what to open or how far to trust \
this), and up to {MAX_READS} pages worth reading in full. Use only URLs the searches showed. If \
nothing answers the question, say so in the answer; do not guess."""

Text = Annotated[str, BeforeValidator(rf.tolerant_text)]


class ReadIn(BaseModel):
    """A page the assistant should open with webFetch."""

    url: Text = ""
    title: Text = ""
    reason: Text = Field("", description="one line: what it holds")


class SearchReportIn(BaseModel):
    """File the answer: what the results say, and what to read next."""

    answer: Text = Field("", description="a few sentences citing the results by number, e.g. [1]")
    recommendation: Text = Field(
        "", description="one line for the assistant: what to open, how far to trust it"
    )
    suggested_reads: list[ReadIn] = Field(default_factory=list, description="up to three pages worth reading")


@dataclass
class _Searches:
    """Every result the searches of one call found, numbered in the order they came."""

    backend: SearchBackend
    results: list[SearchResult] = field(default_factory=list)
    extra: int = 0

    def add(self, found: list[SearchResult]) -> list[SearchResult]:
        seen = {r.url for r in self.results}
        self.results += [r for r in found if r.url not in seen][: MAX_SOURCES - len(self.results)]
        return found

    def tool(self) -> Tool:
        def searchWeb(
            query: Annotated[str, Field(min_length=1, description="other words for the same question")],
        ) -> str:
            """Search the web again with a different query; returns numbered results."""
            if self.extra >= MAX_EXTRA_SEARCHES:
                return f"No more searches in this call ({MAX_EXTRA_SEARCHES} at most): file your report."
            self.extra += 1
            return results_text(query, self.add(self.backend.search(query)))

        return Tool.from_function(searchWeb)


def _prompt(ctx: ToolContext, query: str, first: list[SearchResult]) -> str:
    today = ctx.clock.now().date().isoformat()
    lines = [f"Question: {query.strip()}", f"Today (UTC): {today}", "", results_text(query, first)]
    return "\n".join(lines) + playbook_note(ctx.reader, "search")


def _read_line(r: ReadIn) -> str:
    url, reason = r.url.strip(), r.reason.strip()
    return f"- {r.title.strip() or url} — {url}" + (f": {reason}" if reason else "")


def answer_text(query: str, report: SearchReportIn, sources: list[SearchResult]) -> str:
    """The tool text: the helper's answer, recommendation and known suggested pages, then the results."""
    known = {r.url for r in sources}
    reads = [r for r in report.suggested_reads if r.url.strip() in known][:MAX_READS]
    parts = [f'Web search for "{query}" — the search helper\'s answer:\n{report.answer.strip()}']
    if report.recommendation.strip():
        parts.append(f"Recommendation: {report.recommendation.strip()}")
    if reads:
        rows = [_read_line(r) for r in reads]
        parts.append("Suggested reads (open them with webFetch):\n" + "\n".join(rows))
    parts.append(results_text(query, sources))
    return "\n\n".join(parts)


def web_search(ctx: ToolContext, backend: SearchBackend, query: str) -> str:
    """The webSearch tool's text for `query`: the helper's cited answer over the results, or the results."""
    searches = _Searches(backend)
    first = searches.add(backend.search(query))
    worker = ctx.models.worker if ctx.models is not None else None
    if worker is None:
        return results_text(query, first)
    result = run_subagent(
        worker,
        system=SYSTEM_PROMPT,
        prompt=_prompt(ctx, query, first),
        report=ReportSpec(REPORT_TOOL, SearchReportIn, "File the answer and the pages to read."),
        tools=[searches.tool()],
        max_steps=MAX_STEPS,
        budget_seconds=BUDGET_SECONDS,
        monotonic=ctx.monotonic,
    )
    report = result.report if result.ok else None
    if report is None or not report.answer.strip() or not searches.results:
        return results_text(query, searches.results)
    return answer_text(query, report, searches.results)
