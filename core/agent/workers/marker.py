"""The slice marker: the worker writes a slice's focus and one-line summary.

The fields are `focus`, `summary` and `marked_by` in docs/FORMAT.md "Frontmatter fields".

Used by the dry-slice backfill and by maintenance when it closes a slice nobody marked. The
worker sees the compressed conversation (first turn + last 10, 300 characters a turn, the last
6,000 characters) and reports `{focus, summary, tags?, tone?}`. Any failure returns None, and
the caller falls back to the deterministic mark.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Annotated

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field

from core.agent.runner import ReportSpec, run_subagent
from core.agent.workers.analysis import TONES, as_choice, as_text, as_text_list
from core.agent.workers.analyzer import MAX_MARK_TAGS, SUMMARY_CAP, CloseMarking, compress_turns, shorten
from core.llm.registry import BoundModel
from core.memory.slice.model import Slice
from core.text import collapse_ws

REPORT_TOOL = "report_slice_marking"
BUDGET_SECONDS = 30.0

SYSTEM_PROMPT = """\
You label conversations in a personal assistant's memory. Each conversation ("slice") gets \
a focus — what it was mainly about, in a few words — and a summary of at most 100 characters \
that someone scanning a timeline would find useful. Write in the language of the \
conversation. Be factual: describe what was discussed or decided, never invent details."""

Text = Annotated[str, BeforeValidator(as_text)]


class MarkReport(BaseModel):
    """The marker's report."""

    model_config = ConfigDict(extra="ignore")

    focus: Text = Field(description="What the slice was mainly about, a few words.")
    summary: Text = Field(description="One line, at most 100 characters.")
    tags: Annotated[list[str], BeforeValidator(as_text_list)] = Field(
        default_factory=list, description="Up to 6 topic names."
    )
    tone: Annotated[str, BeforeValidator(lambda v: as_choice(v, TONES, "neutral"))] = "neutral"


def mark_slice(
    worker: BoundModel,
    s: Slice,
    *,
    budget_seconds: float = BUDGET_SECONDS,
    monotonic: Callable[[], float] = time.monotonic,
) -> CloseMarking | None:
    """The worker's marking of `s`, or None (no turns, a failure, or an empty answer)."""
    if not s.turns:
        return None
    tags = ", ".join(s.tags) if s.tags else "(none)"
    prompt = (
        f"Slice {s.slice_id}, shortened:\n{compress_turns(s.turns)}\n\nIts tags: {tags}\n\n"
        f"Call {REPORT_TOOL} with its focus and summary."
    )
    result = run_subagent(
        worker,
        system=SYSTEM_PROMPT,
        prompt=prompt,
        report=ReportSpec(REPORT_TOOL, MarkReport, "Report the slice's focus and summary."),
        max_steps=1,
        budget_seconds=budget_seconds,
        temperature=0.1,
        monotonic=monotonic,
    )
    report = result.report if result.ok else None
    if report is None or not (report.focus.strip() or report.summary.strip()):
        return None
    return CloseMarking(
        focus=collapse_ws(report.focus),
        summary=shorten(collapse_ws(report.summary), SUMMARY_CAP),
        tags=tuple(t for t in (collapse_ws(x) for x in report.tags) if t)[:MAX_MARK_TAGS],
        tone=report.tone,  # type: ignore[arg-type]
    )
