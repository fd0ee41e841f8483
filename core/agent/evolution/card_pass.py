"""The card pass: a worker-model agent edits the user card through validated tools, then we write back.

`evolve_card` runs one pass (docs/CARD.md "Evolution"): the agent sees the time context, why it runs, the
card and the conversation, edits an in-memory `CardSession`, and reports through `finish`. The
live card (its history keeps the replaced text) and the slice's `previously.md` are queued on the
caller's batch only when the card's substance changed — or the stored card is in a legacy format, or the
request forces it. It never raises: a failed pass writes nothing and says why.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime

from core.agent.evolution.card_prompt import SYSTEM_PROMPT, CardView, build_prompt
from core.agent.evolution.card_tools import CardSession
from core.agent.evolution.read_tools import (
    REPORT_TOOL,
    FinishReport,
    card_tools,
    progress_label,
    read_tools,
    slice_exists,
)
from core.agent.evolution.triggers import (
    EvolutionDecision,
    at_boundary,
    at_maintenance_close,
    explicit_request,
    mid_slice,
    record_evolution_summary,
    should_evolve,
)
from core.agent.evolution.types import EvolutionOutcome, EvolutionRequest, skipped
from core.agent.runner import ReportSpec, RunResult, run_subagent
from core.clock import Clock
from core.llm.registry import BoundModel
from core.llm.types import StreamEvent, ToolCall
from core.memory.card.diff import summarize_card_changes, summary_line, unified_card_diff
from core.memory.card.model import is_card, render_card
from core.memory.card.snapshot import ensure_snapshot
from core.memory.card.store import ChangeBy, write_card
from core.memory.card.timing import time_flags
from core.memory.paths import CARD, card_snapshot
from core.storage.base import WriteBatch
from core.text import collapse_ws

__all__ = [
    "EvolutionDecision",
    "EvolutionOutcome",
    "EvolutionRequest",
    "at_boundary",
    "at_maintenance_close",
    "ensure_snapshot",
    "evolve_card",
    "explicit_request",
    "mid_slice",
    "record_evolution_summary",
    "should_evolve",
    "skipped",
]

MAX_STEPS = 30
BUDGET_SECONDS = 90.0
RETRY_DELAY = 0.3
TEMPERATURE, RETRY_TEMPERATURE = 0.1, 0.4
PARTIAL = "[partial] "

Progress = Callable[[str], None]


def _failed(error: str, mutations: Sequence[str] = ()) -> EvolutionOutcome:
    return EvolutionOutcome(
        changed=False,
        reason=f"The card was left as it was: the evolution pass failed ({error}).",
        mutations=tuple(mutations),
        error=error,
    )


@dataclass
class _Pass:
    """Everything one attempt needs besides the model."""

    batch: WriteBatch
    request: EvolutionRequest
    stored: str | None
    now: datetime
    on_progress: Progress | None
    budget_seconds: float
    max_steps: int
    monotonic: Callable[[], float]

    def session(self) -> CardSession:
        exists = slice_exists(self.batch)
        return CardSession(
            self.stored,
            slice_id=self.request.slice_id,
            now=self.now,
            slice_exists=exists,
            timezone=self.request.timezone,
        )

    def prompt(self, session: CardSession) -> str:
        legacy = self.stored if session.migrated else None
        r = self.request
        return build_prompt(
            signal=r.signal,
            slice_id=r.slice_id,
            turns=r.turns,
            tags=r.tags,
            focus_hint=r.focus_hint,
            card=CardView(session.render(), legacy),
            flags=time_flags(session.card, session.today),
            timezone=r.timezone,
        )

    def progress(self, label: str) -> None:
        if self.on_progress is not None:
            self.on_progress(label)

    def on_event(self, event: StreamEvent) -> None:
        if isinstance(event, ToolCall):
            self.progress(progress_label(event.name, event.arguments))


def _attempt(worker: BoundModel, p: _Pass, temperature: float) -> tuple[CardSession, RunResult[FinishReport]]:
    session = p.session()
    result = run_subagent(
        worker,
        system=SYSTEM_PROMPT,
        prompt=p.prompt(session),
        report=ReportSpec(REPORT_TOOL, FinishReport, "End the pass and say what changed."),
        tools=[*card_tools(session), *read_tools(p.batch)],
        max_steps=p.max_steps,
        budget_seconds=p.budget_seconds,
        temperature=temperature,
        on_event=p.on_event,
        monotonic=p.monotonic,
    )
    return session, result


def _is_partial(session: CardSession, result: RunResult[FinishReport], max_steps: int) -> bool:
    """No report, but the pass got somewhere: the step cap ran out, or time ran out after edits."""
    return not result.ok and (result.steps >= max_steps or (result.timed_out and bool(session.log)))


def evolve_card(
    batch: WriteBatch,
    request: EvolutionRequest,
    *,
    worker: BoundModel | None,
    clock: Clock,
    on_progress: Progress | None = None,
    budget_seconds: float = BUDGET_SECONDS,
    max_steps: int = MAX_STEPS,
    sleep: Callable[[float], None] = time.sleep,
    monotonic: Callable[[], float] = time.monotonic,
) -> EvolutionOutcome:
    """Run one evolution pass and queue the write-back on `batch`; never raises."""
    if worker is None:
        return _failed("no model is configured")
    try:
        stored = batch.read(CARD)
        p = _Pass(batch, request, stored, clock.now(), on_progress, budget_seconds, max_steps, monotonic)
        p.progress("Reviewing the user card")
        session, result = _attempt(worker, p, TEMPERATURE)
        if not result.ok and not _is_partial(session, result, max_steps) and not result.timed_out:
            sleep(RETRY_DELAY)  # a hard failure gets one fresh try, a little warmer
            session, result = _attempt(worker, p, RETRY_TEMPERATURE)
        if not result.ok and not _is_partial(session, result, max_steps):
            return _failed(result.error or "no report", session.log)
        outcome = _write_back(p, session, result)
    except Exception as exc:  # a best-effort pass must never cost the user's turn: report, don't raise
        return _failed(f"{type(exc).__name__}: {exc}")
    p.progress("Card updated" if outcome.changed else "Card unchanged")
    return outcome


def _write_back(p: _Pass, session: CardSession, result: RunResult[FinishReport]) -> EvolutionOutcome:
    """Queue the live card and the slice snapshot when something changed; build the outcome."""
    partial = not result.ok
    report = result.report
    reasoning = collapse_ws(report.reasoning) if report else (result.error or "")
    legacy = bool(p.stored and p.stored.strip()) and not is_card(p.stored or "")
    if not (session.changed or p.request.force or legacy):
        why = f"Nothing new to record: {reasoning}" if reasoning else "Nothing new to record."
        return EvolutionOutcome(False, reason=why, mutations=tuple(session.log), partial=partial)
    new_text = session.render()
    write_card(p.batch, new_text, f"evolve ({p.request.signal})", p.now, ChangeBy.EVOLUTION)
    if p.request.snapshot and slice_exists(p.batch)(p.request.slice_id):
        p.batch.put(card_snapshot(p.request.slice_id), new_text)
    summary = collapse_ws(report.summary) if report else ""
    if not summary and legacy and not session.changed:
        summary = "The card was converted to the current format."
    elif not summary:
        summary = summary_line(summarize_card_changes(render_card(session.base), new_text))
    return EvolutionOutcome(
        changed=True,
        summary=PARTIAL + summary if partial else summary,
        diff=unified_card_diff(p.stored or "", new_text),
        reason=reasoning,
        mutations=tuple(session.log),
        partial=partial,
        error=result.error if partial else None,
        card_text=new_text,
    )
