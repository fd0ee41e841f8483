"""What the steps share: run-store keys, the one step-context loader, config and model resolution.

Every step after save opens the same way — the request, what save decided, a write batch, the
user's config, the turn's models, the sink of this attempt — so that opening is `load_context`,
here, once. Steps receive and return a typed `StepState` (core/turn/state.py); the step table
converts it from and to JSON at its edge.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from core.errors import InvalidInput, NoModelConfigured
from core.llm.registry import ModelPrefs, Resolution
from core.llm.types import Message
from core.memory.catalog.index import read_or_none
from core.memory.config import UserConfig, load_config
from core.memory.paths import CONFIG_JSON
from core.storage.base import Reader, WriteBatch
from core.turn.deps import TurnDeps
from core.turn.events import EventSink
from core.turn.runtime import CANCEL_KEY, REQUEST_KEY
from core.turn.service import TurnInput
from core.turn.state import Prepared, StepState
from core.turn.steps.results import results_key, round_key, round_results
from core.turn.table import END
from core.turn.wire import messages_from_json

PREPARED_KEY = "prepared"
PROMPT_KEY = "system_prompt"
TAGS_KEY = "tags"  # the analyzer's tags for the slice, written by finalize

__all__ = [
    "CANCEL_KEY",
    "END",
    "REQUEST_KEY",
    "StepContext",
    "load_context",
    "load_prepared",
    "load_request",
    "results_key",
    "round_key",
]


def earlier_rounds(deps: TurnDeps, turn_id: str, rnd: int) -> list[Message]:
    """The model messages and tool results of rounds before `rnd`, in order."""
    out: list[Message] = []
    for n in range(rnd):
        record = deps.run_store.get(turn_id, round_key(n)) or {}
        out += messages_from_json(record.get("messages"))
        out += messages_from_json(round_results(deps.run_store, turn_id, n))
    return out


def sink_of(deps: TurnDeps, state: StepState, step: str) -> EventSink:
    """The event sink of this attempt of this step (of this item, in a fan-out step)."""
    return deps.sink_for(state.turn_id, step, state.attempt, state.item)


def load_request(deps: TurnDeps, turn_id: str) -> TurnInput:
    """The request the turn was started with (InvalidInput when the run store has none)."""
    data = deps.run_store.get(turn_id, REQUEST_KEY)
    if not isinstance(data, dict):
        raise InvalidInput(f"Turn {turn_id} has no recorded request; start the turn again.")
    return TurnInput.from_json(data)


def load_prepared(deps: TurnDeps, turn_id: str) -> Prepared | None:
    """What save recorded for the turn, if it got that far."""
    return Prepared.from_json(deps.run_store.get(turn_id, PREPARED_KEY))


@dataclass
class StepContext:
    """What a step after save works with, loaded once at its start."""

    name: str
    state: StepState
    deps: TurnDeps
    request: TurnInput
    prepared: Prepared | None
    batch: WriteBatch
    config: UserConfig
    models: Resolution | None

    @property
    def turn_id(self) -> str:
        return self.state.turn_id

    @property
    def sink(self) -> EventSink:
        return sink_of(self.deps, self.state, self.name)

    @property
    def slice_id(self) -> str:
        """The slice holding this turn's user message."""
        sid = self.prepared.slice_id if self.prepared else self.state.slice_id
        if not sid:
            raise InvalidInput(f"Turn {self.turn_id} has no slice yet; its message was never saved.")
        return sid

    @property
    def locale(self) -> str:
        return self.prepared.locale if self.prepared else locale_of(self.request, self.config)

    @property
    def timezone(self) -> str:
        return self.request.timezone or "UTC"

    def cancelled(self) -> bool:
        return bool(self.deps.run_store.get(self.turn_id, CANCEL_KEY))


def load_context(state: StepState, deps: TurnDeps, name: str, batch: WriteBatch | None = None) -> StepContext:
    """The opening every step shares: request, save's record, a batch, config and models."""
    request = load_request(deps, state.turn_id)
    batch = batch if batch is not None else WriteBatch.open(deps.storage)
    config = user_config(batch)
    # Every request the turn's models make is announced as a `model.call` event of this step.
    models = resolve_models(deps, request, config, sink_of(deps, state, name))
    return StepContext(name, state, deps, request, load_prepared(deps, state.turn_id), batch, config, models)


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
