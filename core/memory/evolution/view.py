"""The evolution layer as the page shows it: direction, playbooks and the ledger, with what can be undone."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from datetime import datetime

from core.errors import InvalidInput
from core.memory.evolution import direction as d
from core.memory.evolution import fitness as f
from core.memory.evolution.paths import DIRECTION_MD, FITNESS_JSON, PLAYBOOK_AGENTS, playbook_md
from core.memory.evolution.store import can_undo, read_direction
from core.storage.base import Reader


@dataclass(frozen=True)
class PlaybookView:
    """One sub-agent's playbook (None when there is none) and whether its last change can be undone."""

    agent: str
    text: str | None
    can_undo: bool


@dataclass(frozen=True)
class HypothesisView:
    """A hypothesis with whether it is past its TTL on the server's today."""

    id: str
    claim: str
    test: str
    refs: list[str]
    opened: str
    expires: str
    expired: bool


@dataclass(frozen=True)
class EvolutionView:
    """Everything the Evolution page shows; `fitness_error` names a damaged ledger instead of hiding it."""

    portrait: list[d.Trait]
    hypotheses: list[HypothesisView]
    rejected: list[d.Rejected]
    unsorted: list[str]
    playbooks: list[PlaybookView]
    scores: list[f.Score] = field(default_factory=list)
    signals: list[f.Signal] = field(default_factory=list)
    fitness_error: str | None = None
    can_undo_direction: bool = False


def evolution_view(view: Reader, now: datetime) -> EvolutionView:
    """The stored evolution layer (all of it empty on a memory that has none yet); scores newest first."""
    direction = read_direction(view)
    today = now.date().isoformat()
    try:
        ledger, error = f.parse_fitness(view.read(FITNESS_JSON)), None
    except InvalidInput as exc:
        ledger, error = f.Fitness(), str(exc)
    return EvolutionView(
        portrait=list(direction.portrait),
        hypotheses=[HypothesisView(**asdict(h), expired=h.expired(today)) for h in direction.hypotheses],
        rejected=list(direction.rejected),
        unsorted=list(direction.unsorted),
        playbooks=[
            PlaybookView(a, view.read(playbook_md(a)), can_undo(view, playbook_md(a)))
            for a in PLAYBOOK_AGENTS
        ],
        scores=list(reversed(ledger.scores)),
        signals=list(reversed(ledger.signals)),
        fitness_error=error,
        can_undo_direction=can_undo(view, DIRECTION_MD),
    )
