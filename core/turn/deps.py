"""What a turn step may use: storage, time, ids, the run store, the models, where events go.

Built once per process by the composition root (`functions/compose/backends.py`) or from fakes in
tests. Steps share nothing else: every step re-reads what it needs from storage and the run
store, so the same step runs unchanged in this process or in a Lambda.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Protocol

from core.clock import Clock, IdSource
from core.llm.registry import ModelRegistry
from core.storage.base import Storage
from core.turn.events import EventSink
from core.turn.runstore import RunStore
from core.web import WebAccess


class SinkFactory(Protocol):
    """The sink of one attempt of one step; `item` for one run of a fan-out step (a tool call)."""

    def __call__(self, turn_id: str, step: str, attempt: int, item: int | None = None) -> EventSink: ...


DEFAULT_MODEL_TIMEOUT = 120.0
# How long a turn may run at most: on AWS the state machine's timeout (the deployment's
# PREVIOUSLY_TURN_TIMEOUT_MINUTES, the stage's turn_timeout_minutes).
DEFAULT_TURN_TIMEOUT = timedelta(minutes=30)


@dataclass
class TurnDeps:
    """The injected dependencies of every step.

    `models` is None when no provider is configured: the memory pipeline still runs and the
    turn ends with a `no_model` error after the user's message is stored. `demo` marks the
    read-only persona: card evolution, backfill and the consolidation model pass never run.
    `web` is what the agent may use of the web (None: not wired, no web tools and no note).
    `turn_timeout` is the longest a turn can run; recovery declares a turn nobody can vouch for
    dead only after it.
    """

    storage: Storage
    clock: Clock
    ids: IdSource
    run_store: RunStore
    models: ModelRegistry | None
    sink_for: SinkFactory
    demo: bool = False
    model_timeout: float = DEFAULT_MODEL_TIMEOUT
    turn_timeout: timedelta = DEFAULT_TURN_TIMEOUT
    monotonic: Callable[[], float] = time.monotonic
    web: WebAccess | None = None
    log: logging.Logger = field(default_factory=lambda: logging.getLogger("previously.turn"))
