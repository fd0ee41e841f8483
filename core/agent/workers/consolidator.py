"""The strand consolidator (docs/ARCHITECTURE.md, step "after"; docs/FORMAT.md "strands"): the worker
proposes merges of duplicate strands.

Runs only when at least 25 strands remain after the deterministic prune. The worker sees each
strand with its slice count and proposes up to 30 merges `{from, to, reason}`; the caller keeps
those whose target exists and applies them with `strands.apply_merges`, which unions paths —
a merge can rename a strand but never lose a slice from the index. Any failure: no merges.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field

from core.agent.runner import ReportSpec, run_subagent
from core.agent.workers.analysis import as_text
from core.llm.registry import BoundModel
from core.memory.catalog.strands import MAX_MERGES, MERGE_PASS_MIN_KEYS, MergeProposal, Strands, js_key_order

REPORT_TOOL = "report_strand_merges"
BUDGET_SECONDS = 30.0
MAX_STEPS = 4

SYSTEM_PROMPT = """\
You tidy the topic index of a personal assistant's memory. Each topic ("strand") names a \
subject and lists the conversations about it. Over time the index collects near-duplicates: \
the same subject spelled differently, in another language, singular and plural, a nickname \
and a full name.

Propose merges only for strands that clearly mean the same subject. Merge the less common \
spelling into the better-established one (usually the one with more slices). Never merge \
related-but-different subjects (a person and their project, a city and a trip there). \
Copy names exactly as listed. When nothing should merge, report an empty list."""

Text = Annotated[str, BeforeValidator(as_text)]


class MergeItem(BaseModel):
    """One proposed merge."""

    model_config = ConfigDict(populate_by_name=True, extra="ignore")

    source: Text = Field(alias="from", description="The strand to fold in, copied exactly.")
    to: Text = Field(description="The strand that stays, copied exactly.")
    reason: Text = ""


class MergeReport(BaseModel):
    """The consolidator's report."""

    model_config = ConfigDict(extra="ignore")

    merges: list[MergeItem] = Field(default_factory=list, description=f"At most {MAX_MERGES} merges.")
    reasoning: Text = ""


def strand_list(strands: Strands) -> str:
    """The prompt's list: `- <name> (<n> slice|slices)` in index order."""
    lines = []
    for key in js_key_order(strands):
        n = len(strands[key])
        lines.append(f"- {key} ({n} {'slice' if n == 1 else 'slices'})")
    return "\n".join(lines)


def propose_merges(
    worker: BoundModel,
    strands: Strands,
    *,
    budget_seconds: float = BUDGET_SECONDS,
    monotonic: Callable[[], float] = time.monotonic,
) -> list[MergeProposal]:
    """The worker's merge proposals ([] below the threshold, on any failure, or when none fit)."""
    if len(strands) < MERGE_PASS_MIN_KEYS:
        return []
    prompt = (
        f"The strands ({len(strands)}):\n{strand_list(strands)}\n\n"
        f"Call {REPORT_TOOL} with the merges (at most {MAX_MERGES})."
    )
    result = run_subagent(
        worker,
        system=SYSTEM_PROMPT,
        prompt=prompt,
        report=ReportSpec(REPORT_TOOL, MergeReport, "Report the strand merges."),
        max_steps=MAX_STEPS,
        force_report_from=1,
        budget_seconds=budget_seconds,
        temperature=0.0,
        monotonic=monotonic,
    )
    if not result.ok or result.report is None:
        return []
    return proposals_from(result.report)


def proposals_from(report: MergeReport | dict[str, Any]) -> list[MergeProposal]:
    """The report's merges as proposals (at most 30, blanks dropped)."""
    if isinstance(report, dict):
        report = MergeReport.model_validate(report)
    out = [MergeProposal(m.source, m.to, m.reason) for m in report.merges if m.source and m.to]
    return out[:MAX_MERGES]
