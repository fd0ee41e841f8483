"""N concurrent turns against the local server (uvicorn, the in-process runner, a local memory
folder) with the fake model server: throughput, latency percentiles, and zero lost turns —
checked by reading every slice file afterwards."""

from __future__ import annotations

import logging
import statistics
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from core.memory.paths import SLICES
from core.memory.slice.model import parse_core_md
from core.storage.local import LocalStorage
from core.turn.local_service import LocalTurnService
from functions.compose.local import build_deps
from functions.server import ServeOptions, build_app
from functions.settings import Settings
from tests.fakes.brain import Brain
from tests.fakes.fake_model_server import FakeModelServer, RecordedRequest, Reply
from tests.fakes.live_server import live_server

ROUNDS = (1, 16, 48)  # one alone for reference; the last passes the 50-turn slice capacity
KEY = "bench-access-key-0123456789"
Found = Counter[tuple[str | None, str, str]]


@dataclass
class Outcome:
    """One turn as the client saw it."""

    message: str
    run_id: str
    seconds: float
    status: str
    user_turn_id: str | None
    agent_turn_id: str | None


def _responder(brain: Brain) -> Callable[[RecordedRequest], Reply]:
    """Sub-agents get the brain's neutral reports; the main model answers with a short text."""

    def answer(request: RecordedRequest) -> Reply:
        if any(n.startswith("report_") or n in ("finish", "recallReport") for n in request.tool_names):
            return brain(request)
        return Reply(text="Noted.")

    return answer


def _one_turn(http: httpx.Client, message: str, out: list[Outcome]) -> None:
    """Post one message and long-poll it to the end, the way `previously chat --url` does."""
    started = time.perf_counter()
    turn_id = http.post("/api/turns", json={"message": message, "timezone": "Europe/London"}).json()[
        "turn_id"
    ]
    after, status, events = 0, "running", []
    while status == "running":
        view = http.get(f"/api/turns/{turn_id}", params={"after": after, "wait": 20}).json()
        events += view["events"]
        after = max([after, *(e["seq"] for e in view["events"])])
        status = view["status"]
    by_type = {e["type"]: e for e in events}
    out.append(
        Outcome(
            message,
            turn_id,
            time.perf_counter() - started,
            status,
            by_type.get("turn.started", {}).get("user_turn_id"),
            by_type.get("turn.done", {}).get("agent_turn_id"),
        )
    )


def _turns_on_disk(root: Path) -> Found:
    """(turn id, role, content) → how many times it is in the slice files."""
    snap = LocalStorage(root).snapshot()
    found: Found = Counter()
    for path in snap.list(SLICES):
        if path.value.endswith("/timeline/core.md"):
            for t in parse_core_md(snap.read(path) or "").turns:
                found[(t.turn_id, t.role, t.content)] += 1
    return found


def _lost(messages: list[str], outcomes: list[Outcome], found: Found) -> tuple[list[str], list[str]]:
    """Messages whose user turn, or whose reply, is not on disk exactly once."""
    replies: Counter[str | None] = Counter()
    for (turn_id, role, _), count in found.items():
        if role == "agent":
            replies[turn_id] += count
    seen = {o.message: o for o in outcomes}
    users = [m for m in messages if m not in seen or found[(seen[m].user_turn_id, "user", m)] != 1]
    agents = [m for m in messages if m not in seen or replies[seen[m].agent_turn_id] != 1]
    return users, agents


def _round(n: int, fake: FakeModelServer) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "memory-data"
        (root / "memory").mkdir(parents=True)
        settings = Settings(STORAGE="local", OPENAI_BASE_URL=fake.openai_base_url, PREVIOUSLY_ACCESS_KEY=KEY)
        deps = build_deps(settings, memory_override=root, require_auth=True)
        app = build_app(deps, ServeOptions(maintenance_minutes=0))
        results: list[Outcome] = []
        messages = [f"bench message {i}" for i in range(n)]
        headers = {"x-access-key": KEY}
        with live_server(app) as url, httpx.Client(base_url=url, headers=headers, timeout=120) as http:
            started = time.perf_counter()
            workers = [threading.Thread(target=_one_turn, args=(http, m, results)) for m in messages]
            for w in workers:
                w.start()
            for w in workers:
                w.join()
            wall = time.perf_counter() - started
            service = deps.turns
            assert isinstance(service, LocalTurnService)
            for outcome in results:
                service.join(outcome.run_id, 60)  # the best-effort after step finishes its commit
        found = _turns_on_disk(root)
    lost_user, lost_agent = _lost(messages, results, found)
    latencies = sorted(o.seconds for o in results)
    return {
        "n": n,
        "wall": wall,
        "throughput": n / wall,
        "p50": statistics.median(latencies),
        "p95": latencies[max(0, round(0.95 * len(latencies)) - 1)],
        "failed": [o.message for o in results if o.status != "done"],
        "lost_user": lost_user,
        "lost_agent": lost_agent,
    }


class _Retries(logging.Handler):
    """Counts the runner's step retries (slice-id collisions, commit conflicts) instead of printing them."""

    def __init__(self) -> None:
        super().__init__()
        self.count = 0

    def emit(self, record: logging.LogRecord) -> None:
        self.count += "retrying" in record.getMessage()


def main() -> None:
    """Run each round and print its figures; fail loudly if any turn was lost."""
    retries = _Retries()
    turn_log = logging.getLogger("previously.turn")
    turn_log.addHandler(retries)
    turn_log.propagate = False
    with FakeModelServer() as fake:
        fake.responder = _responder(Brain())
        for n in ROUNDS:
            retries.count = 0
            r = _round(n, fake)
            print(
                f"{r['n']:3d} concurrent turns: {r['wall']:.2f} s wall, {r['throughput']:.1f} turns/s, "
                f"latency p50 {r['p50'] * 1000:.0f} ms, p95 {r['p95'] * 1000:.0f} ms; "
                f"failed {len(r['failed'])}, lost messages {len(r['lost_user'])}, "
                f"lost replies {len(r['lost_agent'])} (step retries under contention: {retries.count})",
                flush=True,
            )
            if r["failed"] or r["lost_user"] or r["lost_agent"]:
                raise SystemExit(
                    f"turns failed or were lost: {r['failed'] + r['lost_user'] + r['lost_agent']}"
                )


if __name__ == "__main__":
    main()
