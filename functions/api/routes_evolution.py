"""The evolution layer: read, reject a hypothesis, edit a playbook, undo, evolve now (API.md)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Path
from pydantic import BaseModel, Field

from core.errors import NotFound
from core.jobs.evolve_runs import EvolveRun, EvolveRuns
from core.memory.evolution import user_edits
from core.memory.evolution.view import EvolutionView, evolution_view
from functions.api.common import AUTH, MUTATION, DepsDep
from functions.api.schemas import ErrorBody
from functions.compose.deps import Deps

router = APIRouter(tags=["evolution"], responses={401: {"model": ErrorBody}})
ERRORS: dict[int | str, dict[str, Any]] = {c: {"model": ErrorBody} for c in (400, 403, 404, 409)}
Agent = Annotated[Literal["recall", "search", "thinkdeep"], Path(description="Which sub-agent's playbook")]
HypothesisId = Annotated[str, Path(pattern=r"^h\d{1,4}$", description="A hypothesis id, e.g. h2")]
UndoTarget = Annotated[
    Literal["direction", "recall", "search", "thinkdeep"], Path(description="direction or a playbook")
]


class PlaybookBody(BaseModel):
    """A playbook's new text (at most 1,200 characters, not blank)."""

    text: str = Field(max_length=20_000)


def _view(deps: DepsDep) -> EvolutionView:
    return evolution_view(deps.storage.snapshot(), deps.clock.now())


@router.get("/api/evolution", dependencies=AUTH, response_model=EvolutionView)
def get_evolution(deps: DepsDep) -> EvolutionView:
    """The portrait, hypotheses, playbooks and the fitness ledger, with what can be undone."""
    return _view(deps)


@router.post(
    "/api/evolution/hypotheses/{hypothesis_id}/reject",
    dependencies=MUTATION,
    responses=ERRORS,
    response_model=EvolutionView,
)
def reject(hypothesis_id: HypothesisId, deps: DepsDep) -> EvolutionView:
    """Rule a hypothesis out: it leaves the pool and is not proposed again. One commit, undoable."""
    user_edits.reject(deps.storage, hypothesis_id, deps.clock.now())
    return _view(deps)


@router.put(
    "/api/evolution/playbooks/{agent}", dependencies=MUTATION, responses=ERRORS, response_model=EvolutionView
)
def edit_playbook(agent: Agent, body: PlaybookBody, deps: DepsDep) -> EvolutionView:
    """Replace a playbook's text. One commit, undoable."""
    user_edits.edit_playbook(deps.storage, agent, body.text)
    return _view(deps)


@router.post(
    "/api/evolution/undo/{target}", dependencies=MUTATION, responses=ERRORS, response_model=EvolutionView
)
def undo(target: UndoTarget, deps: DepsDep) -> EvolutionView:
    """Go back to the direction or a playbook before its last change (again re-applies it)."""
    user_edits.undo(deps.storage, target)
    return _view(deps)


def _runs(deps: Deps) -> EvolveRuns:
    if deps.evolve_now is None:
        raise NotFound("Evolve now is not offered by this server.")
    return deps.evolve_now


@router.post(
    "/api/evolution/run",
    dependencies=MUTATION,
    status_code=202,
    responses={**ERRORS, 503: {"model": ErrorBody}},
    response_model=EvolveRun,
)
def evolve_now(deps: DepsDep) -> EvolveRun:
    """Start the card and direction passes on the newest conversation; 202 with the run to poll.

    One run at a time (409 while one runs); refused (409 read_only) in the demo.
    """
    return _runs(deps).start()


@router.get("/api/evolution/run/{run_id}", dependencies=AUTH, responses=ERRORS, response_model=EvolveRun)
def evolve_run(run_id: str, deps: DepsDep) -> EvolveRun:
    """The run: running (with its progress line), done (with the report) or failed (with why)."""
    return _runs(deps).get(run_id)
