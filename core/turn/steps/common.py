"""What the steps share: run-store keys, the step state, the request, config and model resolution.

The state passed between steps is small JSON: `turn_id`, `next`, `round`, `slice_id`,
`closed_slice_id`, `more_tools`, plus whatever the Step Functions definition adds (kept as
is). A step whose name is not `state["next"]` passes the state through unchanged, so a linear
chain of Tasks (the Step Functions definition) can run every step after the flow has ended.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from core.errors import InvalidInput, NoModelConfigured
from core.llm.registry import ModelPrefs, Resolution
from core.memory.catalog import read_or_none
from core.memory.config import UserConfig, load_config
from core.memory.paths import CONFIG_JSON
from core.storage.base import Reader
from core.turn.deps import TurnDeps
from core.turn.events import EventSink
from core.turn.service import TurnInput
from core.turn.table import StepInput, StepOutput

REQUEST_KEY = "request"
PREPARED_KEY = "prepared"
CANCEL_KEY = "cancel"
PROMPT_KEY = "system_prompt"
END = "end"


def round_key(n: int) -> str:
    """Run-store key of respond round `n`: the model messages and how the round ended."""
    return f"round-{n}"


def results_key(n: int) -> str:
    """Run-store key of the tool results answering round `n`."""
    return f"tools-{n}"


def skip(state: StepInput, name: str) -> bool:
    """Whether this step is not the one the flow asked for (pass the state through)."""
    return state.get("next") != name


def output(state: StepInput, **changes: Any) -> StepOutput:
    """The next state: the input (minus the attempt number) with `changes`."""
    out = {k: v for k, v in state.items() if k != "attempt"}
    out.update(changes)
    out["more_tools"] = out.get("next") == "tools"
    return out


def sink_of(deps: TurnDeps, state: StepInput, step: str) -> EventSink:
    """The event sink of this attempt of this step."""
    return deps.sink_for(str(state["turn_id"]), step, int(state.get("attempt", 1)))


def load_request(deps: TurnDeps, turn_id: str) -> TurnInput:
    """The request the turn was started with (InvalidInput when the run store has none)."""
    data = deps.run_store.get(turn_id, REQUEST_KEY)
    if not isinstance(data, dict):
        raise InvalidInput(f"Turn {turn_id} has no recorded request; start the turn again.")
    return TurnInput.from_json(data)


def user_config(reader: Reader) -> UserConfig:
    """The user's preferences (defaults when config.json is missing or broken)."""
    return load_config(read_or_none(reader, CONFIG_JSON))


def resolve_models(
    deps: TurnDeps, request: TurnInput, config: UserConfig, sink: EventSink | None = None
) -> Resolution | None:
    """Main and worker models for this turn; None when no provider is configured.

    With a `sink`, every request the models make is announced as `model.call` {role, model}.
    """
    if deps.models is None or not deps.models.configured:
        return None
    effort = request.effort if request.effort in ("low", "medium", "high") else None
    try:
        return deps.models.resolve(
            request.model,
            ModelPrefs.from_config(config.data),
            thinking=request.thinking,
            effort=effort,  # type: ignore[arg-type]
            on_call=_announcer(sink),
        )
    except NoModelConfigured:
        return None


def _announcer(sink: EventSink | None) -> Callable[[str, str], None] | None:
    if sink is None:
        return None

    def announce(role: str, model: str) -> None:
        sink.emit("model.call", role=role, model=model)

    return announce


def no_model_reason(deps: TurnDeps, config: UserConfig) -> str | None:
    """What to set so that turns get a model (None: nothing is configured at all, say the general hint)."""
    if deps.models is None or not deps.models.configured:
        return None
    return deps.models.setup_problem(ModelPrefs.from_config(config.data))


def locale_of(request: TurnInput, config: UserConfig) -> str:
    """The turn's language: the request's, else the user's setting."""
    return request.locale if request.locale in ("en", "zh") else config.locale
