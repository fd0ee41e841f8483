"""The recall state: a round's `recall` calls, apart from the other tools, with their own retries.

The worker's timeline scan is the slow, model-bound part of a round; as its own state a hiccup
there is retried alone (respond and the other tools are not run again), under its own timeout.
Its progress and hits stream from here (`recall.progress`, `recall.hits`, the recall card). If
it still fails, the state is caught and the tools step answers those calls from the full-text
floor alone, so the model always gets an answer. Results wait in the run store (`recall-<n>`)
for the next respond, which reads the round's results in call order
(core/turn/steps/results.py); the tools state then runs only the other calls.
"""

from __future__ import annotations

from core.turn.deps import TurnDeps
from core.turn.state import StepState
from core.turn.steps.common import load_context
from core.turn.steps.results import RECALL_TOOL, calls_of, recall_key, round_key, stored_results
from core.turn.steps.tools import SharedBatch, run_calls
from core.turn.wire import message_to_json


def recall(state: StepState, deps: TurnDeps) -> StepState:
    """Run the round's recall calls; then the other tools, or the next round."""
    turn_id, rnd = state.turn_id, state.round
    calls = calls_of(deps.run_store.get(turn_id, round_key(rnd)))
    if deps.run_store.get(turn_id, recall_key(rnd)) is None:
        batch = SharedBatch(deps.storage, deps.storage.snapshot())
        ctx = load_context(state, deps, "recall", batch)
        found = run_calls(ctx, batch, [c for c in calls if c.name == RECALL_TOOL])
        deps.run_store.put(turn_id, recall_key(rnd), [message_to_json(r) for r in found])
    answered = stored_results(deps.run_store, turn_id, recall_key(rnd))
    rest = tuple(i for i, c in enumerate(calls) if c.id not in answered)
    if rest:
        return state.then("tools", calls=rest)
    return state.then("respond", round=rnd + 1, calls=())


def asks_recall(record: object) -> bool:
    """Whether a respond round's calls include a recall."""
    return any(c.name == RECALL_TOOL for c in calls_of(record))
