"""The direction pass: a worker-model agent tends the direction, the playbooks and the ledger; then
the write-back.

It runs on the same engine as the card pass (`run_subagent`, the read tools, a mutation
session with the loop brake) on the worker model, at slice boundaries and on request. Changed
files are queued on the caller's batch, the direction and playbooks each with an undo copy;
new scores merge into the ledger with `update`. It never raises: a failed pass writes nothing.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict, Field

from core.agent.evolution.direction_prompt import REPORT_TOOL, SYSTEM_PROMPT, build_prompt
from core.agent.evolution.direction_tools import DirectionSession, DirectionState
from core.agent.evolution.read_tools import read_tools, slice_exists
from core.agent.evolution.types import EvolutionRequest
from core.agent.runner import ReportSpec, run_subagent
from core.clock import Clock
from core.errors import InvalidInput
from core.llm.registry import BoundModel
from core.memory.evolution import fitness as f
from core.memory.evolution.paths import DIRECTION_MD, FITNESS_JSON, PLAYBOOK_AGENTS, playbook_md
from core.memory.evolution.store import read_direction, write_with_undo
from core.storage.base import WriteBatch
from core.text import collapse_ws

MAX_STEPS = 16
BUDGET_SECONDS = 60.0


class DirectionReport(BaseModel):
    """End the pass: what changed and why (or why nothing needed to)."""

    model_config = ConfigDict(extra="ignore")

    reasoning: str = Field(default="", description="What you changed and why, or why nothing needed changing")


@dataclass(frozen=True)
class DirectionOutcome:
    """What a pass did: whether files changed, the mutation log, and an error when it failed."""

    changed: bool
    mutations: tuple[str, ...] = ()
    reason: str = ""
    error: str | None = None


def _state(batch: WriteBatch) -> DirectionState:
    books = {a: batch.read(playbook_md(a)) for a in PLAYBOOK_AGENTS}
    try:
        ledger = f.parse_fitness(batch.read(FITNESS_JSON))
    except InvalidInput:
        ledger = f.Fitness()  # a damaged ledger costs the pass its signals, nothing more
    return DirectionState(read_direction(batch), books, ledger)


def evolve_direction(
    batch: WriteBatch,
    request: EvolutionRequest,
    *,
    worker: BoundModel | None,
    clock: Clock,
    budget_seconds: float = BUDGET_SECONDS,
    max_steps: int = MAX_STEPS,
    monotonic: Callable[[], float] = time.monotonic,
) -> DirectionOutcome:
    """Run one pass and queue its writes on `batch`; never raises."""
    if worker is None:
        return DirectionOutcome(False, error="no model is configured")
    try:
        session = DirectionSession(
            _state(batch),
            slice_id=request.slice_id,
            now=clock.now(),
            slice_exists=slice_exists(batch),
            user_words=[t.content for t in request.turns if t.role == "user"],
            timezone=request.timezone,
        )
        result = run_subagent(
            worker,
            system=SYSTEM_PROMPT,
            prompt=build_prompt(
                session, signal=request.signal, turns=request.turns, focus_hint=request.focus_hint
            ),
            report=ReportSpec(REPORT_TOOL, DirectionReport, "End the pass and say what changed."),
            tools=[*session.as_tools(), *read_tools(batch)],
            max_steps=max_steps,
            budget_seconds=budget_seconds,
            temperature=0.1,
            monotonic=monotonic,
        )
        if not result.ok:
            return DirectionOutcome(False, tuple(session.log), error=result.error or "no report")
        _write_back(batch, session, request.signal)
    except Exception as exc:  # a best-effort pass must never cost the user's turn: report, don't raise
        return DirectionOutcome(False, error=f"{type(exc).__name__}: {exc}")
    reason = collapse_ws(result.report.reasoning) if result.report else ""
    return DirectionOutcome(session.changed, tuple(session.log), reason)


def _write_back(batch: WriteBatch, session: DirectionSession, signal: str) -> None:
    if session.direction_changed:
        write_with_undo(batch, DIRECTION_MD, session.render_direction(), f"direction ({signal})")
    for agent, text in session.changed_playbooks().items():
        write_with_undo(batch, playbook_md(agent), text, f"{agent} playbook ({signal})")
    if session.scores:
        batch.update(FITNESS_JSON, _merge_scores(session.scores))


def _merge_scores(scores: list[f.Score]) -> Callable[[str | None], str | None]:
    def apply(text: str | None) -> str | None:
        try:
            ledger = f.parse_fitness(text)
        except InvalidInput:
            return text  # a damaged ledger is left for the user (`previously check` names it)
        ledger.scores += scores
        ledger.updated = scores[-1].at
        return f.render_fitness(ledger)

    return apply
