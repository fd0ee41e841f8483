"""The recall scan's world: the catalog, the strands and the full-text floor, as read-only tools.

The worker model never reads slice bodies. It pages the global timeline newest first, scopes
date windows, follows strands, and may ask the full-text index — then files pointers. A
`RecallScope` loads each source once per scan, lazily, and answers "does this slice exist?".
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from functools import cached_property
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field

from core.agent.catalog_view import known_ids, read_catalog, settle_before
from core.agent.time_tools import check_day
from core.agent.timeline_brief import brief_line, in_window, newest_first, paginate_lines, pointer_lines
from core.agent.tool_context import ToolContext
from core.errors import InvalidInput, PreviouslyError
from core.llm.tools import Tool, spec_from_model
from core.memory import paths
from core.memory.catalog.entry import CatalogEntry
from core.memory.catalog.strand_shards import Menu, read_menu, read_strand
from core.memory.catalog.timeline_md import entries_of
from core.reltime import normalize_locale
from core.search import OpenIndex, open_index

PAGE_SIZE = 40
WINDOW_MAX = 40
STRAND_IDS = 20
SEARCH_K = 10
CATALOG_MAX_AGE = timedelta(hours=6)
Progress = Callable[[str], None]

_LABELS = {
    "en": {
        "timeline": "Reading the timeline",
        "window": "Scoping the timeline: {x}",
        "strand": "Tracing strand: {x}",
        "search": "Searching memory for “{x}”",
    },
    "zh": {
        "timeline": "正在阅读时间线",
        "window": "正在查看时间段：{x}",
        "strand": "正在追踪话题：{x}",
        "search": "正在全文搜索“{x}”",
    },
}


class RecallScope:
    """One scan's read-only view of the memory (each source loaded at most once)."""

    def __init__(self, ctx: ToolContext) -> None:
        self.ctx = ctx
        self.now: datetime = ctx.clock.now()
        self.current = ctx.slice_id

    @cached_property
    def catalog(self) -> dict[str, Any] | None:
        """The catalog, rebuilt in memory when missing or more than six hours old."""
        index = read_catalog(self.ctx.reader, self.now, max_age=CATALOG_MAX_AGE)
        return settle_before(self.ctx.reader, index, self.current or "9999")

    @property
    def entries(self) -> list[CatalogEntry]:
        return entries_of(self.catalog or {})

    @cached_property
    def menu(self) -> Menu:
        """The strands' names, counts and newest slices (menu.json: not every strand's paths)."""
        return read_menu(self.ctx.reader)

    def strand(self, name: str) -> tuple[str, list[str]] | None:
        """The strand `name` names or matches, with its paths (its shard alone is read)."""
        return read_strand(self.ctx.reader, name)

    @cached_property
    def floor(self) -> OpenIndex:
        """The full-text index (the context's, else opened once per scan)."""
        return self.ctx.search_index or open_index(self.ctx.reader)

    @cached_property
    def _catalog_ids(self) -> set[str] | None:
        return known_ids(self.catalog)

    def exists(self, slice_id: str) -> bool:
        """Whether a slice with this id is in memory (the catalog, else its file)."""
        if not paths.is_slice_id(slice_id):
            return False
        if self._catalog_ids is not None and slice_id in self._catalog_ids:
            return True
        try:
            return self.ctx.reader.read(paths.core_md(slice_id)) is not None
        except InvalidInput:
            return True  # it is there, only unreadable

    def line(self, entry: CatalogEntry) -> str:
        """A pointer line with the local date, the current slice flagged."""
        loc = normalize_locale(self.ctx.locale)
        text = brief_line(entry, timezone=self.ctx.timezone, locale=loc, labels=loc)
        return text + (" ← the current conversation (never a hit)" if entry.id == self.current else "")

    def tools(self, progress: Progress) -> list[Tool]:
        """The worker's tools, reporting what they do through `progress`."""
        words = _LABELS[normalize_locale(self.ctx.locale)]

        def say(key: str) -> Callable[[str], None]:
            return lambda what: progress(words[key].format(x=what))

        return [
            Tool.from_function(_global_timeline(self, say("timeline")), "readGlobalTimeline"),
            _window_tool(self, say("window")),
            Tool.from_function(_strand(self, say("strand")), "readStrand"),
            Tool.from_function(_search(self, say("search")), "searchMemory"),
        ]


Page = Annotated[int, Field(ge=1, description="1 = the newest 40 slices, 2 = the 40 before them, …")]
StrandName = Annotated[str, Field(description="a topic name from the list you were given")]
Words = Annotated[str, Field(min_length=1, description="words, names or dates to look for")]


def _global_timeline(scope: RecallScope, announce: Callable[[str], None]) -> Callable[..., str]:
    def read_global_timeline(page: Page = 1) -> str:
        """The whole timeline, newest first, 40 pointer lines a page: id, local date, focus, turns, tags."""
        announce("")
        entries = scope.entries
        if not entries:
            md = scope.ctx.reader.read(paths.TIMELINE_MD) or ""
            return paginate_lines(pointer_lines(md), PAGE_SIZE, page)
        return paginate_lines([scope.line(e) for e in newest_first(entries)], PAGE_SIZE, page)

    return read_global_timeline


class Window(BaseModel):
    """The slices whose UTC date lies between `from` and `to` (inclusive), newest first, at most 40."""

    model_config = ConfigDict(extra="ignore", populate_by_name=True)
    from_: str | None = Field(None, alias="from", description="first day, YYYY-MM-DD (open if left out)")
    to: str | None = Field(None, description="last day, YYYY-MM-DD (open if left out)")


def _window_tool(scope: RecallScope, announce: Callable[[str], None]) -> Tool:
    def read_window(from_: str | None = None, to: str | None = None) -> str:
        a, b = check_day(from_, "from"), check_day(to, "to")
        announce(f"{a or '…'} → {b or '…'}")
        picked = in_window(scope.entries, a, b)
        span = f"between {a or 'the beginning'} and {b or 'now'}"
        if not picked:
            return f"No slices {span}."
        more = f" (the newest {WINDOW_MAX} shown; narrow the window)" if len(picked) > WINDOW_MAX else ""
        head = f"{len(picked)} slices {span}{more}:"
        return "\n".join([head, *(scope.line(e) for e in picked[:WINDOW_MAX])])

    return Tool(spec_from_model(Window, "readTimelineWindow"), Window, read_window)


def _strand(scope: RecallScope, announce: Callable[[str], None]) -> Callable[..., str]:
    def read_strand(strand: StrandName) -> str:
        """The slices a topic (strand) runs through, newest first (at most 20)."""
        found = scope.strand(strand)
        if found is None:
            names = ", ".join(list(scope.menu)[:30]) or "(none yet)"
            return f'No strand named "{strand}". Known strands: {names}'
        key, members = found
        announce(key)
        rels = {p for p in members if isinstance(p, str)}
        ids = sorted((s.dash for r in rels if (s := paths.SliceId.from_either(r))), reverse=True)
        shown = [f"{i} (current — never a hit)" if i == scope.current else i for i in ids[:STRAND_IDS]]
        more = f", newest {STRAND_IDS} shown" if len(ids) > STRAND_IDS else ""
        return f'Strand "{key}" appears in {len(ids)} slices{more}: ' + ", ".join(shown)

    return read_strand


def _search(scope: RecallScope, announce: Callable[[str], None]) -> Callable[..., str]:
    def search_memory(query: Words) -> str:
        """Full-text search over every slice's words (and the dates a question names); best first."""
        announce(query)
        try:
            result = scope.floor.search(query, SEARCH_K + 1, scope.now, scope.ctx.timezone)
        except PreviouslyError as exc:
            return f"The full-text index could not be read ({exc}); rely on the timeline and strands."
        hits = [h for h in result.hits if h.slice_id != scope.current][:SEARCH_K]
        if not hits:
            return "Nothing in the full-text index matches."
        return "\n".join(f"- {h.slice_id} (relevance {h.relevance:.2f}): {h.reason}" for h in hits)

    return search_memory
