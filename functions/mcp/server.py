"""The MCP server: Previously's memory as tools and resources for other agents (docs/MCP.md).

`build_server(access)` registers typed tools over `core.agent.outside.OutsideAccess` — the
same readers and recall the agent itself uses. Domain errors become MCP tool errors (a
resource read: a protocol error) whose message says what to try; nothing here crashes the
connection. The same server runs over stdio (`previously mcp`) and over HTTP (`/mcp`).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from typing import Annotated, Any, TypeVar

import anyio
from mcp.server.context import ServerRequestContext
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ResourceNotFoundError, ToolError
from mcp.server.mcpserver.tools import Tool
from mcp.shared.exceptions import MCPError
from mcp_types import (
    INTERNAL_ERROR,
    INVALID_PARAMS,
    ListResourcesResult,
    PaginatedRequestParams,
    ToolAnnotations,
)
from mcp_types import Resource as MCPResource
from pydantic import BaseModel, Field

from core.agent import outside_context, time_tools
from core.agent.outside import MAX_K, OutsideAccess
from core.agent.outside_read import OutsideRange
from core.agent.recall.scan import RecallReport
from core.errors import NotFound, PreviouslyError
from core.memory.slice.staged_notes import MAX_NOTE_CHARS, Remembered

NAME = "previously"
INSTRUCTIONS = (
    "Previously is the user's episodic memory: their past conversations, kept as slices (one "
    "conversation each, id YYYY-MM-DD-HHMM, the UTC minute it began), and a user card. Start with "
    "`recall` (or `search` for exact words), check a hit with `read_slice_summary`, then quote from "
    "`read_slice`; `context` does all three in one call within a token budget. `briefing` catches "
    "you up on arrival, `timeline_window` orients by date, `read_card` says who the user is."
)
READ = ToolAnnotations(read_only_hint=True, open_world_hint=False)
WRITE = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=False)

SliceIdArg = Annotated[str, Field(description="a slice id, YYYY-MM-DD-HHMM (the UTC minute it began)")]
K = Annotated[int, Field(ge=1, le=MAX_K, description=f"how many slices at most (1–{MAX_K})")]
Query = Annotated[str, Field(min_length=1, max_length=1000, description="what to look for, in plain words")]
Day = Annotated[str | None, Field(description="a UTC date, YYYY-MM-DD (omit for an open end)")]
F = TypeVar("F", bound=Callable[..., Any])
# The agent's tool names in shared error hints, as this server calls them.
_NAMES = {
    "readTimelineWindow": "timeline_window",
    "readSliceSummary": "read_slice_summary",
    "readSlice": "read_slice",
    "readPreviously": "read_card",
    "searchMemory": "search",
}
_NAME_RE = re.compile(r"\b(" + "|".join(_NAMES) + r")\b")


class HitOut(BaseModel):
    """One slice worth reading."""

    slice_id: str
    relevance: float = Field(description="0–1")
    reason: str


class ReadOut(BaseModel):
    """A slice to open first, and what to look for there."""

    slice_id: str
    priority: str
    reason: str
    note: str = ""


class RecallOut(BaseModel):
    """What recall found: pointers best first, the reads to start with, how sure it is, how it searched."""

    hits: list[HitOut]
    recommended_reads: list[ReadOut]
    confidence: float
    source: str = Field(description="worker: a model scanned the timeline; floor: full-text search")
    reasoning: str = ""
    note: str = ""


class SearchOut(BaseModel):
    """Full-text hits, best first."""

    hits: list[HitOut]


def translated(fn: F) -> F:
    """Run a tool, turning a domain error into a tool error whose message says what to do."""

    @functools.wraps(fn)
    def run(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except PreviouslyError as exc:
            raise ToolError(mcp_names(str(exc))) from exc

    return run  # type: ignore[return-value]


def mcp_names(message: str) -> str:
    """A domain error's hint with the agent's tool names replaced by this server's."""
    return _NAME_RE.sub(lambda m: _NAMES[m.group(1)], message)


def client_name(ctx: Context) -> str:
    """The name the client gave when it connected ("" when it gave none, as stateless HTTP may)."""
    params = getattr(ctx.request_context.session, "client_params", None)
    info = getattr(params, "client_info", None)
    return str(getattr(info, "name", "") or "")


def recall_out(report: RecallReport) -> RecallOut:
    """The report as the tool's structured result."""
    return RecallOut(
        hits=[HitOut(slice_id=h.slice_id, relevance=h.relevance, reason=h.reason) for h in report.hits],
        recommended_reads=[ReadOut(**r) for r in report.read_dicts()],
        confidence=report.confidence,
        source=report.source,
        reasoning=report.reasoning,
        note=report.note,
    )


def remembered_text(done: Remembered) -> str:
    """What the caller is told a note became."""
    if done.outcome == "appended":
        return f"Remembered: added as turn {done.turn_id} of the open conversation (slice {done.slice_id})."
    assert done.note is not None
    why = f" ({done.why_staged})" if done.why_staged else ""
    return (
        f"Staged as note {done.note.note_id}{why}: it joins the memory once the owner accepts it "
        "(`previously notes accept`)."
    )


def _tools(access: OutsideAccess) -> list[Tool]:
    @translated
    def recall(query: Query, k: K = 10) -> RecallOut:
        """Search the user's whole past for conversations about something. Returns pointers (slice
        id, relevance 0–1, reason) best first and the slices to read first. An empty result is
        final. Then open the slices that matter with read_slice_summary or read_slice. Cost: one
        worker model call when a model is configured (seconds), else a full-text search."""
        return recall_out(access.recall(query, k))

    @translated
    def read_slice(slice_id: SliceIdArg, range: OutsideRange | None = None) -> str:
        """Read what was actually said in a slice, every word exactly as written: the whole
        conversation (up to 60,000 characters), or the part `range` picks (turns by number, the
        last N, turns after a time, turns matching keywords, a line range, or exact characters by
        offset). Turn headers carry UTC and local times. Read this before quoting or dating
        anything. Cost: one file read, no model."""
        return access.read_slice(slice_id, range)

    @translated
    def read_slice_summary(slice_id: SliceIdArg) -> str:
        """A slice's summary only: when it ran, turns, focus, summary, tags, tone, open loops,
        decisions. The cheapest check of whether a slice is worth opening. Cost: one file read, no
        model."""
        return access.read_slice_summary(slice_id)

    @translated
    def briefing() -> str:
        """The arrival briefing ("Previously on…"): who the user is, where they left off, what is
        open, the newest conversations. Start here when you arrive. Cost: a few file reads, no model."""
        return access.briefing()

    @translated
    def read_card() -> str:
        """The user card: what Previously has learned about the user (who they are, what matters).
        Cost: one file read, no model."""
        return access.read_card()

    @translated
    def context(
        query: Query,
        k: Annotated[int, Field(ge=1, le=20, description="how many slices at most (1–20)")] = 5,
        budget_tokens: Annotated[
            int,
            Field(
                ge=outside_context.MIN_BUDGET,
                le=outside_context.MAX_BUDGET,
                description="the most the answer may cost you, in tokens (about 4 characters each)",
            ),
        ] = outside_context.DEFAULT_BUDGET,
    ) -> str:
        """Everything the memory holds about something, in one answer: recall's best slices, each
        with its summary and the turns that match the question word for word, best first, cut to
        `budget_tokens`. Slices that did not fit are named. Cost: recall (one worker model call
        when a model is configured, else a search) plus one file read per slice shown."""
        return access.about(query, k, budget_tokens)

    @translated
    def remember(
        ctx: Context,
        text: Annotated[
            str, Field(min_length=1, max_length=MAX_NOTE_CHARS, description="the note, as it should be kept")
        ],
    ) -> str:
        """Ask the user's memory to keep a note (a fact, a decision, something the user said). Only
        when the owner allows it: the note waits for their acceptance, or joins the open conversation
        as a turn marked with where it came from. Refused when writes are off. Cost: one commit to
        the memory (when allowed)."""
        return remembered_text(access.remember(text, client_name(ctx)))

    tools = [Tool.from_function(fn, annotations=READ) for fn in (recall, read_slice, read_slice_summary)]
    tools.append(_window_tool(access))
    tools += [Tool.from_function(fn, annotations=READ) for fn in (briefing, read_card)]
    tools.append(_search_tool(access))
    tools.append(Tool.from_function(context, annotations=READ))
    tools.append(Tool.from_function(remember, annotations=WRITE))
    return tools


def _window_tool(access: OutsideAccess) -> Tool:
    """`timeline_window(from?, to?, limit?)`: `from` is a Python keyword, so the wire name is an alias."""

    def timeline_window(
        start: Annotated[Day, Field(alias="from")] = None,
        to: Day = None,
        limit: Annotated[int, Field(ge=1, le=time_tools.WINDOW_MAX, description="at most 50")] = 20,
    ) -> str:
        """Pointer lines for the slices between two dates (the UTC dates of their ids), newest first:
        id, local date, focus or summary, turns, tone, tags. Use it to orient by time or find an id.
        Cost: the catalog, no model."""
        return access.timeline_window(start, to, limit)

    tool = Tool.from_function(timeline_window, annotations=READ)

    # The SDK passes validated arguments by their wire names (`from`); map it back.
    @translated
    def call(**kwargs: Any) -> str:
        return timeline_window(kwargs.get("from"), kwargs.get("to"), kwargs.get("limit", 20))

    return tool.model_copy(update={"fn": call})


def _search_tool(access: OutsideAccess) -> Tool:
    """`search(q, k?, from?, to?, strand?)`; `from` is a Python keyword, so its wire name is an alias."""

    def search(
        q: Query,
        k: K = 10,
        start: Annotated[Day, Field(alias="from", description="only slices from this UTC date on")] = None,
        to: Annotated[Day, Field(description="only slices up to this UTC date (inclusive)")] = None,
        strand: Annotated[
            str | None,
            Field(max_length=200, description="only slices this strand (a topic tag) runs through"),
        ] = None,
    ) -> SearchOut:
        """Full-text search over every slice's words (and the dates a question names), best first,
        optionally only between two UTC dates (`from`, `to`) or along one strand. Deterministic and
        fast; use recall for questions that need judgement. Cost: the full-text index, no model."""
        hits = access.search(q, k, start, to, strand)
        return SearchOut(
            hits=[HitOut(slice_id=h.slice_id, relevance=h.relevance, reason=h.reason) for h in hits]
        )

    tool = Tool.from_function(search, annotations=READ)

    @translated
    def call(**kwargs: Any) -> SearchOut:
        got = kwargs.get
        return search(kwargs["q"], got("k", 10), got("from"), got("to"), got("strand"))

    return tool.model_copy(update={"fn": call})


def _resources(server: MCPServer, access: OutsideAccess) -> None:
    def resource_errors(fn: Callable[[], str]) -> str:
        try:
            return fn()
        except NotFound as exc:
            raise ResourceNotFoundError(mcp_names(str(exc))) from exc
        except PreviouslyError as exc:
            raise ResourceError(mcp_names(str(exc))) from exc

    @server.resource("previously://card", name="card", mime_type="text/markdown")
    def card() -> str:
        """The user card (Markdown)."""
        return resource_errors(access.read_card)

    @server.resource("previously://slice/{slice_id}", name="slice", mime_type="text/markdown")
    def slice_(slice_id: str) -> str:
        """One slice's conversation (Markdown), turn headers with their times."""
        return resource_errors(lambda: access.read_slice(slice_id))

    @server.resource("previously://timeline", name="timeline", mime_type="text/plain")
    def timeline() -> str:
        """The timeline's months, newest first, with how many slices each holds."""
        return resource_errors(lambda: months_text(access.months()))

    @server.resource("previously://timeline/{month}", name="timeline-month", mime_type="text/plain")
    def timeline_month(month: str) -> str:
        """One month (YYYY-MM, the UTC dates of slice ids): a pointer line per slice, newest first."""
        return resource_errors(lambda: access.month(month))


def months_text(months: list[tuple[str, int]]) -> str:
    """The month index as lines a reader can follow (each month is a resource of its own)."""
    if not months:
        return "The memory has no slices yet."
    lines = [f"{m}: {n} slice{'s' if n != 1 else ''} — previously://timeline/{m}" for m, n in months]
    return "\n".join(["Months of the timeline (UTC dates of slice ids), newest first:", "", *lines])


class PreviouslyServer(MCPServer):
    """The SDK's server, with every slice and month listed as a resource (in pages).

    The SDK lists only resources registered one by one; a memory's slices change with every
    conversation, so the list is made from the catalog when a client asks, `PAGE` at a time
    (the request's cursor is the offset), newest first.
    """

    PAGE = 200

    def __init__(self, access: OutsideAccess, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.access = access

    async def _handle_list_resources(
        self, ctx: ServerRequestContext[Any], params: PaginatedRequestParams | None
    ) -> ListResourcesResult:
        start = _cursor(params.cursor if params else None)
        fixed = await self.list_resources() if start == 0 else []
        try:
            listed = await anyio.to_thread.run_sync(self._memory_resources)
        except PreviouslyError as exc:
            raise MCPError(code=INTERNAL_ERROR, message=mcp_names(str(exc))) from exc
        page = listed[start : start + self.PAGE]
        after = start + self.PAGE
        cursor = str(after) if after < len(listed) else None
        return ListResourcesResult(resources=fixed + page, next_cursor=cursor)

    def _memory_resources(self) -> list[MCPResource]:
        months = [
            MCPResource(
                uri=f"previously://timeline/{m}",
                name=f"timeline-{m}",
                title=f"Timeline {m}",
                description=f"{n} slice{'s' if n != 1 else ''}",
                mime_type="text/plain",
            )
            for m, n in self.access.months()
        ]
        slices = [
            MCPResource(
                uri=f"previously://slice/{sid}",
                name=f"slice-{sid}",
                title=f"Slice {sid}",
                description=line[:200] or None,
                mime_type="text/markdown",
            )
            for sid, line in self.access.slice_pointers()
        ]
        return months + slices


def _cursor(cursor: str | None) -> int:
    """The offset a list cursor stands for; a cursor this server did not hand out is an error."""
    if cursor is None:
        return 0
    if not cursor.isdigit() or len(cursor) > 9:
        message = f"Unknown cursor {cursor[:40]!r}: list again from the start."
        raise MCPError(code=INVALID_PARAMS, message=message)
    return int(cursor)


def build_server(access: OutsideAccess, version: str = "") -> MCPServer:
    """The MCP server over `access` (tools and resources; transport chosen by the caller)."""
    server = PreviouslyServer(
        access,
        name=NAME,
        title="Previously",
        instructions=INSTRUCTIONS,
        version=version,
        tools=_tools(access),
        log_level="WARNING",
    )
    _resources(server, access)

    @server.prompt(name="previously_on", title="Previously on…")
    def previously_on() -> str:
        """Catch up on the user before you start: the arrival briefing from their memory."""
        try:
            text = access.briefing()
        except PreviouslyError as exc:
            text = mcp_names(str(exc))
        return f"Here is what the user's memory says, to pick up where they left off:\n\n{text}"

    return server
