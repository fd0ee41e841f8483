"""Recall: the worker model scans the timeline and strands and files pointers.

docs/RECALL.md "The worker scan" describes it.

`run_recall(ctx, query, call_id)` runs a bounded sub-agent on the WORKER model with the
read-only tools of `recall.tools`, then filters its report: the current slice and ids that are
not in memory are dropped, at most five recommended reads survive. With no model the
full-text floor answers alone; when the worker fails or runs out of time, the floor's hits come
back with a note. An empty answer is definitive, and the tool result says so.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, Field

from core.agent.recall import filters as rf
from core.agent.recall.prompt import SYSTEM_PROMPT, user_prompt
from core.agent.recall.tools import RecallScope
from core.agent.runner import ReportSpec, run_subagent
from core.agent.tool_context import ToolContext
from core.llm.types import StreamEvent, ToolCall
from core.memory import paths
from core.reltime import normalize_locale
from core.reltime_blocks import annotate_reason, slice_start_iso

REPORT_TOOL = "recallReport"
MAX_STEPS = 8
BUDGET_SECONDS = 120.0
FLOOR_K = 10
# Word overlap is evidence, not understanding: the floor never claims more than moderate confidence.
FLOOR_CONFIDENCE = 0.6
EMPTY_NOTE = (
    "Nothing in memory matches this. The answer is final: do not call recall again for this topic — "
    "answer from the conversation and what you know."
)
Source = Literal["worker", "floor"]

_WORDS = {
    "en": {"start": "Scanning memory…", "report": "Writing the recall report", "floor": "Falling back to "
           "full-text search", "found": "Found {n} match{es}", "none": "Nothing found"},
    "zh": {"start": "正在扫描记忆…", "report": "正在整理回忆结果", "floor": "改用全文搜索",
           "found": "找到 {n} 条相关记录", "none": "没有找到相关记录"},
}  # fmt: skip

Bounded01 = Annotated[float, BeforeValidator(rf.tolerant_bounded01)]
Text = Annotated[str, BeforeValidator(rf.tolerant_text)]


class HitIn(BaseModel):
    """One slice worth reading."""

    slice_id: str = Field(description="the slice id exactly as the tools showed it, YYYY-MM-DD-HHMM")
    relevance: Bounded01 = Field(0.0, description="0–1: how likely this slice answers the question")
    reason: Text = Field("", description="one line: why it matters")


class ReadIn(BaseModel):
    """A slice the main model should open, and what to look for there."""

    slice_id: str
    priority: Literal["high", "medium", "low"] = "medium"
    reason: Text = ""
    note: Text = Field("", description="what to look for inside")


class RecallReportIn(BaseModel):
    """File what the scan found. Empty `hits` is a valid answer when nothing fits."""

    hits: list[HitIn] = Field(default_factory=list, description="every relevant slice, best first")
    confidence: Bounded01 = Field(0.0, description="0–1: how sure you are the hits answer the question")
    reasoning: Text = Field("", description="one or two sentences on how you searched and what you found")
    recommended_reads: Annotated[list[ReadIn], BeforeValidator(rf.normalize_recommended_reads)] = Field(
        default_factory=list, description="up to five slices to open first"
    )


@dataclass(frozen=True)
class RecallHit:
    """A pointer: which slice, how relevant (0–1), why."""

    slice_id: str
    relevance: float
    reason: str


@dataclass(frozen=True)
class RecommendedRead:
    """A slice to open first: priority high / medium / low, why, and what to look for."""

    slice_id: str
    priority: str
    reason: str
    note: str = ""


@dataclass
class RecallReport:
    """The outcome of one recall: pointers, reads, confidence, and where they came from."""

    query: str
    hits: list[RecallHit] = field(default_factory=list)
    recommended: list[RecommendedRead] = field(default_factory=list)
    confidence: float = 0.0
    reasoning: str = ""
    source: Source = "floor"
    note: str = ""

    def hit_dicts(self) -> list[dict[str, Any]]:
        return [asdict(h) for h in self.hits]

    def read_dicts(self) -> list[dict[str, Any]]:
        return [{k: v for k, v in asdict(r).items() if k != "note" or v} for r in self.recommended]

    def event_payload(self) -> dict[str, Any]:
        """The `recall.hits` event fields (besides call_id)."""
        return {
            "query": self.query,
            "hits": self.hit_dicts(),
            "recommended": self.read_dicts(),
            "confidence": self.confidence,
        }

    def tool_text(self, ctx: ToolContext) -> str:
        """The JSON the main model reads: reasons carry the slice's local time."""
        now = ctx.clock.now()

        def local(h: RecallHit) -> str:
            return annotate_reason(h.reason, slice_start_iso(h.slice_id) or "", ctx.timezone, now, ctx.locale)

        hits = [{**asdict(h), "reason": local(h)} for h in self.hits]
        data: dict[str, Any] = {
            "hits": hits,
            "confidence": self.confidence,
            "reasoning": self.reasoning,
            "recommended_reads": self.read_dicts(),
        }
        if self.note:
            data["note"] = self.note
        return json.dumps(data, ensure_ascii=False)


def run_recall(
    ctx: ToolContext, query: str, call_id: str = "", *, budget: float = BUDGET_SECONDS
) -> RecallReport:
    """Scan memory for `query` on the worker model (or the floor alone), reporting progress."""
    words = _WORDS[normalize_locale(ctx.locale)]

    def progress(label: str) -> None:
        ctx.progress(call_id, label)

    progress(words["start"])
    scope = RecallScope(ctx)
    worker = ctx.models.worker if ctx.models is not None else None
    if worker is None:
        report = floor_report(scope, query)
    else:
        result = run_subagent(
            worker,
            system=SYSTEM_PROMPT,
            prompt=user_prompt(scope, query),
            report=ReportSpec(REPORT_TOOL, RecallReportIn),
            tools=scope.tools(progress),
            max_steps=MAX_STEPS,
            force_report_from=rf.first_forced_step(MAX_STEPS, REPORT_TOOL),
            budget_seconds=budget,
            on_event=_on_report(lambda: progress(words["report"])),
            monotonic=ctx.monotonic,
        )
        if result.ok and result.report is not None:
            report = worker_report(scope, query, result.report)
        else:
            progress(words["floor"])
            why = "it ran out of time" if result.timed_out else (result.error or "it filed no report")
            report = floor_report(scope, query, failure=why)
    n = len(report.hits)
    progress(words["found"].format(n=n, es="" if n == 1 else "es") if n else words["none"])
    ctx.hits(call_id, report.event_payload())
    return report


def _on_report(announce: Callable[[], None]) -> Callable[[StreamEvent], None]:
    """Say so as soon as the worker starts writing its report."""

    def on_event(event: StreamEvent) -> None:
        if isinstance(event, ToolCall) and event.name == REPORT_TOOL:
            announce()

    return on_event


def _canonical(slice_id: str) -> str:
    """Models sometimes write the folder form (2026/08/11/1115) or pad with spaces."""
    sid = paths.SliceId.from_either(slice_id.strip())
    return sid.dash if sid else slice_id.strip()


def worker_report(scope: RecallScope, query: str, raw: RecallReportIn) -> RecallReport:
    """The worker's report with the current slice and unknown ids removed."""
    hits = [{**h.model_dump(), "slice_id": _canonical(h.slice_id)} for h in raw.hits]
    reads = [{**r.model_dump(), "slice_id": _canonical(r.slice_id)} for r in raw.recommended_reads]
    kept = rf.exclude_current(hits, scope.current)
    dropped_current = len(kept) < len(hits)
    known = {h["slice_id"] for h in [*kept, *reads] if scope.exists(h["slice_id"])}
    kept = rf.best_first(rf.filter_known(kept, known))
    reads = rf.filter_known(rf.exclude_current(reads, scope.current), known)
    reasoning, confidence = raw.reasoning.strip(), raw.confidence
    if dropped_current:
        reasoning = f"{reasoning} [Excluded current slice {scope.current}]".strip()
        confidence = confidence if kept else 0.0
    return RecallReport(
        query=query,
        hits=[RecallHit(h["slice_id"], round(h["relevance"], 2), h["reason"]) for h in kept],
        recommended=[RecommendedRead(r["slice_id"], r["priority"], r["reason"], r["note"]) for r in reads],
        confidence=round(confidence, 2),
        reasoning=reasoning,
        source="worker",
        note="" if kept else EMPTY_NOTE,
    )


def floor_report(scope: RecallScope, query: str, failure: str | None = None) -> RecallReport:
    """The full-text floor's answer (with a note saying why the scan did not answer, if it failed)."""
    result = scope.floor.search(query, FLOOR_K + 1, scope.now, scope.ctx.timezone)
    hits = [
        RecallHit(h.slice_id, round(h.relevance, 2), h.reason)
        for h in result.hits
        if h.slice_id != scope.current and paths.is_slice_id(h.slice_id)
    ][:FLOOR_K]
    reads = [RecommendedRead(h.slice_id, _priority(h.relevance), h.reason) for h in hits[:3]]
    how = "Full-text search over every slice (no model scan)."
    notes = []
    if failure:
        how = "Full-text search over every slice."
        notes.append(
            f"The memory scan did not finish ({failure}); these pointers come from full-text search."
        )
    if not hits:
        notes.append(EMPTY_NOTE)
    return RecallReport(
        query=query,
        hits=hits,
        recommended=reads,
        confidence=round(FLOOR_CONFIDENCE * hits[0].relevance, 2) if hits else 0.0,
        reasoning=how,
        source="floor",
        note=" ".join(notes),
    )


def _priority(relevance: float) -> str:
    return "high" if relevance >= 0.66 else "medium" if relevance >= 0.33 else "low"
