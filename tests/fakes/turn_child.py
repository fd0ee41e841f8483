"""One turn run by the in-process runner in its own process, for tests that kill it with -9.

    python -m tests.fakes.turn_child --memory DIR --runs DIR --model-url URL --message TEXT \
        [--stall-at TYPE@STEP]

Prints `turn <id>`, then runs the turn on a thread of this process exactly as `previously serve`
does (LocalTurnService over a folder memory and a folder run store). `--stall-at` freezes the
process right after that event is stored (printing `stalled`) — a step boundary to kill it at;
a stall inside a model call is the fake model server's to arrange. The test's side — start it,
wait for the stall, kill it with -9 — is `child_turn`, `stalled_at` and `kill_9` below.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from core.clock import RandomIds, SystemClock
from core.llm.registry import ModelRegistry, ProviderConfig
from core.storage.local import LocalStorage
from core.turn.deps import TurnDeps
from core.turn.events import Event
from core.turn.local_service import LocalTurnService
from core.turn.runstore_fs import FolderRunStore
from core.turn.service import TurnInput
from tests.functional.turn_support import HookedSinks

REPO_ROOT = Path(__file__).resolve().parents[2]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--memory", type=Path, required=True)
    parser.add_argument("--runs", type=Path, required=True)
    parser.add_argument("--model-url", required=True)
    parser.add_argument("--message", required=True)
    parser.add_argument("--stall-at", default="")
    args = parser.parse_args()
    runs = FolderRunStore(args.runs)
    clock = SystemClock()
    sinks = HookedSinks(runs)

    def stall(event: Event) -> None:
        if f"{event['type']}@{event['step']}" == args.stall_at:
            print("stalled", flush=True)
            time.sleep(3600)

    sinks.hooks.append(stall)
    registry = ModelRegistry(
        ProviderConfig(openai_base_url=args.model_url), clock=clock, sleep=lambda _: None
    )
    deps = TurnDeps(LocalStorage(args.memory), clock, RandomIds(), runs, registry, sinks, model_timeout=60)
    service = LocalTurnService(deps)
    turn_id = service.start(TurnInput(args.message, timezone="UTC"))
    print(f"turn {turn_id}", flush=True)
    service.join(turn_id)
    print("finished", flush=True)


@contextmanager
def child_turn(
    memory: Path, runs: Path, model_url: str, message: str, stall_at: str = ""
) -> Iterator[subprocess.Popen[str]]:
    """This module run as a child process for one turn; killed on the way out if still alive."""
    args = ["--memory", str(memory), "--runs", str(runs), "--model-url", model_url, "--message", message]
    child = subprocess.Popen(
        [sys.executable, "-m", "tests.fakes.turn_child", *args, "--stall-at", stall_at],
        cwd=REPO_ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        yield child
    finally:
        if child.poll() is None:
            child.kill()


def stalled_at(runs: Path, point: str) -> bool:
    """Whether the child's turn has stored the event it freezes after (read from its run folder)."""
    for events in runs.glob("*/events.jsonl"):
        for line in events.read_text(encoding="utf-8").splitlines():
            if line.strip() and "{type}@{step}".format(**json.loads(line)) == point:
                return True
    return False


def wait_for(predicate: Callable[[], bool], timeout: float = 180.0) -> None:
    """Poll until `predicate` holds; fail after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "the child never got there (a cold child under load is slow)"
        time.sleep(0.05)


def kill_9(child: subprocess.Popen[str]) -> None:
    """SIGKILL the child and wait for it to be gone."""
    os.kill(child.pid, signal.SIGKILL)
    child.wait(10)


def started_turn(runs: Path) -> str:
    """The id of the one turn the child started (its run folder holds the request)."""
    [turn_id] = [p.name for p in runs.iterdir() if (p / "request.json").is_file()]
    return turn_id


if __name__ == "__main__":
    main()
