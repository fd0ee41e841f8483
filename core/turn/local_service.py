"""The thread launcher: turns run the step table on worker threads of this process.

Used by `previously chat`, the local server and the tests, through the one `RunStoreTurns`
service. Each turn records its owner (host and process id) in the run store, so a later process
— a restarted server, `previously maintain` — can tell a turn left `running` by a dead process
from one still running elsewhere, and end it `interrupted` with a worded reason.

Only the save step is ordered within the process (it reads which slice is active and opens
one; it calls no model); every model call runs concurrently. Across processes the save step's
commit guard keeps one slice active (core/turn/steps/save.py).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from core.turn.deps import TurnDeps
from core.turn.events import Event
from core.turn.failures import failure_code, failure_message
from core.turn.recovery import OWNER_KEY, interrupted_ending, process_alive, this_process
from core.turn.runner import run_turn
from core.turn.runtime import RunStoreTurns
from core.turn.service import TurnInput, TurnState
from core.turn.steps import TURN_FLOW
from core.turn.table import Flow


class ThreadLauncher:
    """Runs each turn on a thread; knows which of them are alive."""

    def __init__(self, deps: TurnDeps, flow: Flow, *, sleep: Callable[[float], None] = time.sleep) -> None:
        self.deps = deps
        self.flow = _ordered(flow, "save", threading.Lock())
        self._sleep = sleep
        self._threads: dict[str, threading.Thread] = {}
        self._running: set[str] = set()  # launched here and not finished (a thread not yet started counts)
        self._lock = threading.Lock()
        self._owner = this_process()

    def launch(self, turn_id: str, request: TurnInput) -> None:
        thread = threading.Thread(target=self._run, args=(turn_id,), name=f"turn-{turn_id}", daemon=True)
        with self._lock:
            # A thread launched but not started yet is not alive: keep every turn still running.
            self._threads = {k: t for k, t in self._threads.items() if k in self._running or t.is_alive()}
            self._threads[turn_id] = thread
            self._running.add(turn_id)
        self.deps.run_store.put(turn_id, OWNER_KEY, self._owner)
        thread.start()

    def lost(self, turn_id: str, events: list[Event]) -> Event | None:
        owner = self.deps.run_store.get(turn_id, OWNER_KEY)
        if owner == self._owner:
            with self._lock:
                alive = turn_id in self._running
        else:
            alive = process_alive(owner) is not False
        return None if alive else interrupted_ending(turn_id, events)

    def thread(self, turn_id: str) -> threading.Thread | None:
        with self._lock:
            return self._threads.get(turn_id)

    def _run(self, turn_id: str) -> None:
        try:
            run_turn(turn_id, self.deps, self.flow, sleep=self._sleep)
        except Exception as exc:  # a thread has no caller to raise to: record the failure as an event
            self.deps.log.error("turn %s crashed", turn_id, exc_info=exc, extra={"turn_id": turn_id})
            sink = self.deps.sink_for(turn_id, "runner", 1)
            sink.emit("turn.error", code=failure_code(exc), message=failure_message("turn", exc, False))
        finally:
            with self._lock:
                self._running.discard(turn_id)
            forget = getattr(self.deps.sink_for, "forget", None)
            if forget is not None:
                forget(turn_id)


class LocalTurnService(RunStoreTurns):
    """The shared service with the thread launcher, plus joining (tests, the CLI)."""

    def __init__(
        self, deps: TurnDeps, *, sleep: Callable[[float], None] = time.sleep, flow: Flow = TURN_FLOW
    ) -> None:
        self.deps = deps
        self.threads = ThreadLauncher(deps, flow, sleep=sleep)
        super().__init__(deps.run_store, deps.ids, self.threads, poll_seconds=1.0)

    def join(self, turn_id: str, timeout: float | None = None) -> bool:
        """Wait for the turn's thread to finish; False when it is still running."""
        thread = self.threads.thread(turn_id)
        if thread is None:
            return True
        thread.join(timeout)
        return not thread.is_alive()

    def run(self, request: TurnInput, timeout: float | None = None) -> TurnState:
        """Start a turn and wait for it to end; its whole state."""
        turn_id = self.start(request)
        self.join(turn_id, timeout)
        return self.state(turn_id)


def _ordered(flow: Flow, step: str, lock: threading.Lock) -> Flow:
    """`flow` with `step` running under `lock` (one at a time in this process)."""
    spec = flow.spec(step)

    def run(state: Any, deps: TurnDeps) -> Any:
        with lock:
            return spec.run(state, deps)

    steps = tuple(replace(s, run=run) if s.name == step else s for s in flow.steps)
    return replace(flow, steps=steps)
