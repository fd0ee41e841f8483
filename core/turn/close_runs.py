"""Close passes a dead run left undone, finished by `previously maintain`.

A turn that closes a slice answers first and then runs the close-time passes (close → strands →
catalog → index → evolve → after, core/turn/steps/__init__.py) in the same run: a thread of the
process locally, the rest of the Step Functions execution on AWS. When that run dies part way
(kill -9, a timeout), the turn already ended `done`, so recovery has nothing to do for it; this
pass finds such turns — save recorded a closed slice, the after step never marked
`CLOSE_RUN_DONE`, and whatever ran the turn is gone — and runs the same steps from `close`.
Every pass records its done key in the run store, so only what never finished runs again.
"""

from __future__ import annotations

from datetime import datetime

from core.clock import parse_iso
from core.turn.deps import TurnDeps
from core.turn.recovery import DEADLINE_KEY, OWNER_KEY, process_alive
from core.turn.runstore import status_of

CLOSE_RUN_DONE = "close-run-done"


def finish_close_passes(deps: TurnDeps) -> list[str]:
    """Run the close passes of every dead run that left them undone; the closed slices' ids."""
    from core.turn.runner import run_turn
    from core.turn.steps import TURN_FLOW
    from core.turn.steps.common import load_prepared

    finished = []
    for turn_id in deps.run_store.turn_ids():
        prepared = load_prepared(deps, turn_id)
        if prepared is None or not prepared.slice_closed or deps.run_store.get(turn_id, CLOSE_RUN_DONE):
            continue
        if status_of(deps.run_store.events(turn_id)) == "running" or not _gone(deps, turn_id):
            continue  # still running (recovery ends a dead `running` turn first), or its run goes on
        start = {
            "turn_id": turn_id,
            "round": 0,
            "next": "close",
            "slice_id": prepared.slice_id,
            "closed_slice_id": prepared.slice_closed,
        }
        run_turn(turn_id, deps, TURN_FLOW, start=start)
        deps.run_store.put(turn_id, CLOSE_RUN_DONE, True)
        finished.append(prepared.slice_closed)
    return finished


def _gone(deps: TurnDeps, turn_id: str) -> bool:
    """Whether the run of the turn has stopped: its process is gone, else its deadline passed."""
    alive = process_alive(deps.run_store.get(turn_id, OWNER_KEY))
    if alive is not None:
        return not alive
    deadline = deps.run_store.get(turn_id, DEADLINE_KEY)
    try:
        when: datetime | None = parse_iso(deadline) if isinstance(deadline, str) else None
    except ValueError:
        when = None
    return when is not None and deps.clock.now() > when
