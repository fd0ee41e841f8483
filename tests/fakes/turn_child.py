"""One turn run by the in-process runner in its own process, for tests that kill it with -9.

    python -m tests.fakes.turn_child --memory DIR --runs DIR --model-url URL --message TEXT \
        [--stall-at TYPE@STEP]

Prints `turn <id>`, then runs the turn on a thread of this process exactly as `previously serve`
does (LocalTurnService over a folder memory and a folder run store). `--stall-at` freezes the
process right after that event is stored (printing `stalled`) — a step boundary to kill it at;
a stall inside a model call is the fake model server's to arrange.
"""

from __future__ import annotations

import argparse
import time
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


if __name__ == "__main__":
    main()
