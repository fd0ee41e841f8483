"""Evolve now: the card and direction passes on the user's request (`previously evolve`, the page's button).

The passes are the ones a closing slice runs (core/turn/evolving.py), pointed at the most recent
conversation with the signal `on_request`: the card pass, then the direction pass, on one batch,
one commit. A closed slice's card snapshot is left as it stood. One run at a time: the server
starts runs through core/jobs/evolve_runs.py, which refuses a second while one runs; a turn
that changes the card meanwhile makes the commit fail with ConflictError (the card is written
only if it still reads what the pass started from), so there are never two writers on the
card. Demo and read-only memories are refused before anything runs.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

from core.agent.evolution.card_pass import evolve_card
from core.agent.evolution.direction_pass import evolve_direction
from core.agent.evolution.triggers import RECENT_TURNS
from core.agent.evolution.types import EvolutionRequest
from core.errors import ReadOnly
from core.memory.catalog.weave import list_slice_ids
from core.memory.damage import read_or_skip
from core.memory.paths import core_md
from core.memory.slice.model import Slice, parse_core_md
from core.storage.base import WriteBatch
from core.turn.deps import TurnDeps
from core.turn.steps.common import user_config

Progress = Callable[[str], None]
NEWEST_TRIED = 3  # damaged newest slices are skipped, a few at most
BUSY = "An evolution pass is already running; wait for it to finish, then look again."
DEMO = "This is the read-only demo memory: nothing in it evolves. Open your own memory to use this."
NO_MODEL = "No model is configured, so nothing was reviewed. Set one up (`previously models`)."
NO_SLICE = "There is no conversation yet to learn from."
NOTHING = "Nothing to change."


@dataclass(frozen=True)
class CardResult:
    """What the card pass did: `summary` when it changed, else `reason`; `error` when it failed."""

    changed: bool = False
    summary: str = ""
    reason: str = ""
    diff: str = ""
    error: str | None = None


@dataclass(frozen=True)
class DirectionResult:
    """What the direction pass did: its mutation log, its reasoning, or its error."""

    changed: bool = False
    mutations: tuple[str, ...] = ()
    reason: str = ""
    error: str | None = None


@dataclass
class EvolveNowReport:
    """The outcome of one request: which slice it learned from, each pass, and one line for people."""

    slice_id: str | None = None
    model: str | None = None
    card: CardResult = field(default_factory=CardResult)
    direction: DirectionResult = field(default_factory=DirectionResult)
    committed: bool = False
    message: str = NOTHING

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _newest_slice(batch: WriteBatch) -> Slice | None:
    for slice_id in list_slice_ids(batch)[::-1][:NEWEST_TRIED]:
        text = read_or_skip(batch, core_md(slice_id))
        if text is not None:
            parsed = parse_core_md(text)
            if parsed.turns:
                return parsed
    return None


def _request(newest: Slice) -> EvolutionRequest:
    closed = newest.status != "active"
    turns = newest.turns if closed else newest.turns[-RECENT_TURNS:]
    return EvolutionRequest(
        "on_request",
        newest.slice_id,
        turns=tuple(turns),
        tags=tuple(newest.tags),
        timezone=newest.timezone or "UTC",
        snapshot=not closed,
    )


def _message(card: CardResult, direction: DirectionResult) -> str:
    parts = []
    if card.changed:
        parts.append(f"Card: {card.summary or 'updated.'}")
    if direction.changed:
        parts.append(f"Direction and playbooks: {'; '.join(direction.mutations) or 'updated'}.")
    if parts:
        return "\n".join(parts)
    failed = [e for e in (card.error, direction.error) if e]
    return f"{NOTHING} (a pass failed: {'; '.join(failed)})" if failed else NOTHING


def run_evolve_now(deps: TurnDeps, progress: Progress | None = None) -> EvolveNowReport:
    """Run both passes on the newest conversation and commit once; ReadOnly in the demo."""
    say = progress or (lambda _: None)
    if deps.demo or deps.storage.demo or deps.storage.read_only:
        raise ReadOnly(DEMO)
    batch = WriteBatch.open(deps.storage)
    say("Finding the latest conversation")
    newest = _newest_slice(batch)
    if newest is None:
        return EvolveNowReport(message=NO_SLICE)
    models = deps.models.resolve_for(user_config(batch).data) if deps.models else None
    if models is None:
        return EvolveNowReport(newest.slice_id, message=NO_MODEL)
    request = _request(newest)
    outcome = evolve_card(
        batch, request, worker=models.worker, clock=deps.clock, on_progress=say, monotonic=deps.monotonic
    )
    card = CardResult(outcome.changed, outcome.summary, outcome.reason, outcome.diff, outcome.error)
    say("Reviewing the direction and the playbooks")
    d = evolve_direction(batch, request, worker=models.worker, clock=deps.clock, monotonic=deps.monotonic)
    direction = DirectionResult(d.changed, d.mutations, d.reason, d.error)
    report = EvolveNowReport(newest.slice_id, models.worker.info.id, card, direction)
    report.message = _message(card, direction)
    if batch.changes:
        say("Saving")
        report.committed = batch.commit(f"Evolution: on request, from slice {newest.slice_id}").changed
    return report
