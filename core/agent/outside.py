"""The memory as other agents reach it (the MCP server): the agent's own readers and recall.

Every call reads a fresh snapshot through a `ToolContext` outside any conversation, so an
outside agent sees exactly what Previously's own tools see — the same recall (worker scan when
a model is configured, the full-text floor otherwise), the same slice reads and limits. The one
write, `remember`, goes through `core.memory.slice.staged_notes` and the owner's config.json.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from core.actions.briefing import arrival
from core.agent import outside_context, outside_read, slice_tools, time_tools
from core.agent.recall.scan import BUDGET_SECONDS, RecallReport, run_recall
from core.agent.slice_tools import SliceRange
from core.agent.tool_context import ToolContext
from core.clock import Clock, IdSource
from core.errors import InvalidInput, NotFound, PreviouslyError, ReadOnly
from core.llm.registry import Resolution
from core.memory.catalog.strand_shards import read_menu, read_strand
from core.memory.config import UserConfig
from core.memory.config_store import read_config
from core.memory.paths import SliceId
from core.memory.slice import staged_notes
from core.memory.slice.model import parse_core_frontmatter
from core.search import Hit
from core.search.warm import WarmIndex
from core.storage.base import Reader, Storage, WriteBatch

MAX_K = 50
MAX_QUERY_CHARS = 1000
ModelsFor = Callable[[UserConfig], Resolution | None]


def _no_models(_: UserConfig) -> Resolution | None:
    return None


@dataclass
class OutsideAccess:
    """Read (and, when the owner allows, remember) on behalf of another agent.

    `models` resolves the worker for the memory's own config (None: the floor answers);
    `timezone` is the reader's clock for local times (None: a slice's own zone when reading
    it, else UTC); `source` names the caller
    in what `remember` writes; `recall_budget` bounds a worker scan (a gateway's timeout).
    """

    storage: Storage
    clock: Clock
    ids: IdSource
    models: ModelsFor = _no_models
    timezone: str | None = None
    source: str = "MCP"
    recall_budget: float = BUDGET_SECONDS
    writes_allowed: bool = True
    # Kept open across calls: a question reloads only what changed (core/search/warm.py).
    index: WarmIndex = field(default_factory=WarmIndex)

    def context(self, *, with_models: bool = False) -> ToolContext:
        """A read-only tool context over a fresh snapshot, with the memory's locale and config."""
        view = self.storage.snapshot()
        config = read_config(view)[0]  # a damaged config.json: the defaults, the file left as it is
        return ToolContext(
            view=view,
            clock=self.clock,
            models=self.models(config) if with_models else None,
            timezone=self.timezone,
            locale=config.locale,
            config=config,
        )

    def recall(self, query: str, k: int = 10) -> RecallReport:
        """The agent's recall for `query`, at most `k` hits (best first)."""
        text, most = _query(query), _k(k)
        ctx = self.context(with_models=True)
        ctx.search_index = self.index.open(ctx.reader)
        report = run_recall(ctx, text, budget=self.recall_budget)
        report.hits = report.hits[:most]
        return report

    def slice_context(self, slice_id: str) -> ToolContext:
        """A context whose clock is the slice's own timezone when the reader gave none."""
        ctx = self.context()
        if self.timezone is None:
            try:
                _, text = slice_tools.slice_text(ctx, slice_id)
                ctx.timezone = parse_core_frontmatter(text).timezone or None
            except PreviouslyError:
                pass  # the read itself reports what is wrong with the id or the file
        return ctx

    def read_slice(self, slice_id: str, rng: SliceRange | None = None) -> str:
        """A slice's words exactly as written (or the part `rng` picks), turn headers with local
        times; a `chars` range is the plain text's characters alone (core/agent/outside_read.py)."""
        ctx = self.slice_context(slice_id)
        sid, text = slice_tools.slice_text(ctx, slice_id)
        plain = outside_read.plain_text(text)
        if isinstance(rng, outside_read.OutsideRange) and rng.type == "chars":
            return outside_read.chars(plain, rng)
        more = "read the rest exactly with range type chars, offset 60000 (then on) and length 60000"
        return slice_tools.read_text(ctx, sid, plain, rng, more)

    def read_slice_summary(self, slice_id: str) -> str:
        """A slice's frontmatter as plain lines."""
        return slice_tools.read_slice_summary(self.slice_context(slice_id), slice_id)

    def timeline_window(self, start: str | None, end: str | None, limit: int) -> str:
        """Pointer lines for the slices between two UTC dates, newest first."""
        return time_tools.timeline_window(self.context(), start, end, limit)

    def briefing(self) -> str:
        """The arrival briefing ("Previously on…") on the reader's clock, as plain lines."""
        ctx = self.context()
        now = self.clock.now()
        return outside_read.briefing_text(arrival(ctx.view, now, self.timezone, ctx.locale or "en"))

    def read_card(self) -> str:
        """The live user card."""
        return slice_tools.read_previously(self.context(), None)

    def search(
        self,
        q: str,
        k: int = 10,
        start: str | None = None,
        end: str | None = None,
        strand: str | None = None,
    ) -> list[Hit]:
        """The full-text floor alone: the `k` best slices for the words of `q`, only among the
        slices whose UTC id date lies in [start, end] and that `strand` runs through (when given)."""
        text, most = _query(q), _k(k)
        a, b = time_tools.check_day(start, "from"), time_tools.check_day(end, "to")
        if a and b and a > b:
            raise InvalidInput(f"`from` ({a}) is after `to` ({b}). Swap them.")
        view = self.storage.snapshot()
        members = self._strand_members(view, strand) if strand and strand.strip() else None
        if a is None and b is None and members is None:
            return self.index.open(view).search(text, most, self.clock.now(), self.timezone).hits

        def within(slice_id: str) -> bool:
            day = slice_id[:10]
            in_dates = (a is None or day >= a) and (b is None or day <= b)
            return in_dates and (members is None or slice_id in members)

        return self.index.open(view).search(text, most, self.clock.now(), self.timezone, within).hits

    @staticmethod
    def _strand_members(view: Reader, strand: str) -> set[str]:
        """The slice ids a strand runs through (its name matched as the weave matches tags)."""
        found = read_strand(view, strand)
        if found is None:
            names = ", ".join(list(read_menu(view))[:30]) or "(none yet)"
            raise NotFound(f'No strand named "{strand}". Known strands: {names}')
        return {sid.dash for rel in found[1] if (sid := SliceId.from_either(rel))}

    def about(self, query: str, k: int = 5, budget_tokens: int = outside_context.DEFAULT_BUDGET) -> str:
        """Everything about `query` in one answer: recall's best slices with their summaries and
        matching turns, inside `budget_tokens` (core/agent/outside_context.py)."""
        outside_context.check_budget(budget_tokens)
        report = self.recall(query, k)
        ctx = self.context()

        def material(hit: outside_context.Pointer) -> outside_context.SliceMaterial | None:
            try:
                _, text = slice_tools.slice_text(ctx, hit.slice_id)
                summary = slice_tools.read_slice_summary(ctx, hit.slice_id)
            except PreviouslyError:
                return None
            return outside_context.SliceMaterial(hit, summary, text)

        found = f"{len(report.hits)} slice{'s' if len(report.hits) != 1 else ''}"
        how = "a model scanned the timeline" if report.source == "worker" else "full-text search"
        head = f'Context for "{query}": {found}, best first ({how}; confidence {report.confidence:.2f}).'
        if report.note:
            head += f" {report.note}"
        if not report.hits:
            return head + " Nothing in the memory matches; that answer is final."
        return outside_context.gather(query, head, report.hits, material, budget_tokens)

    def months(self) -> list[tuple[str, int]]:
        """The timeline's months (`YYYY-MM`, UTC) with their slice counts, newest first."""
        return time_tools.months(self.context())

    def month(self, month: str) -> str:
        """A month's slices as pointer lines, newest first."""
        return time_tools.month_text(self.context(), month)

    def slice_pointers(self) -> list[tuple[str, str]]:
        """Every slice in the catalog as (id, one-line focus or summary), newest first."""
        entries = time_tools.catalog_entries(self.context())
        return [(e.id, e.focus or e.summary or "") for e in sorted(entries, key=lambda e: e.id, reverse=True)]

    def remember(self, text: str, client: str = "") -> staged_notes.Remembered:
        """Stage a note, or append it as a turn, as config.json allows; committed before returning.

        `client` is the name the caller gave for itself; it is added to `source` in the mark.
        """
        if self.storage.read_only:
            raise ReadOnly("This memory is read-only: remember cannot write to it.")
        if not self.writes_allowed:
            raise ReadOnly(
                "This server was started with --read-only: remember is refused whatever config.json says."
            )
        batch = WriteBatch.open(self.storage)
        config = read_config(batch)[0]
        source = staged_notes.clean_source(f"{self.source} · {client}" if client.strip() else self.source)
        done = staged_notes.remember(batch, text, source, config, self.clock.now(), self.ids)
        what = "Stage a note" if done.outcome == "staged" else f"Remember a note in slice {done.slice_id}"
        batch.commit(f"{what} (from {source})")
        return done


def _query(text: Any) -> str:
    if not isinstance(text, str) or not text.strip():
        raise InvalidInput('The query is empty: say what to look for, e.g. "the trip to Lisbon".')
    if len(text) > MAX_QUERY_CHARS:
        raise InvalidInput(f"The query is longer than {MAX_QUERY_CHARS} characters; ask something shorter.")
    return text


def _k(k: int) -> int:
    if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= MAX_K:
        raise InvalidInput(f"k must be a whole number from 1 to {MAX_K} (got {k!r}).")
    return k
