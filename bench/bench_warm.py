"""Search through the index a server keeps open, against reopening it and against the CLI's kept one.

`/api/search` and MCP `search`/`recall` ask `WarmIndex.open(snapshot)` per request
(core/search/warm.py): it checks versions and folder times and reloads only what changed. The
CLI's batch recall opens the index once. Side by side in one run, at 100 / 1,000 / 10,000
slices of `bench/memory_gen.py` on a folder, per question (CPU ms, p50 / p95), and the whole
`GET /api/search` as the server runs it (the app called in process, no HTTP client: routing,
the guard, the worker thread, the catalog's entries, the response model and its JSON):

    python -m bench warm
"""

from __future__ import annotations

import asyncio
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from bench.bench_recall import CLOCK, build_here, questions
from bench.memory_gen import _WORDS, generate
from core.search import open_index
from core.search.warm import WarmIndex
from core.storage.local import LocalStorage
from functions.compose.deps import KeptIndex
from tests.functional.api_env import HOST, make_env

SIZES = (100, 1_000, 10_000)


def _cpu(ask: Callable[[str], object], qs: list[str]) -> tuple[float, float]:
    times = []
    for q in qs:
        started = time.process_time()  # the process: a request's worker thread counts too
        ask(q)
        times.append((time.process_time() - started) * 1000)
    ordered = sorted(times)
    return statistics.median(ordered), ordered[max(0, round(0.95 * len(ordered)) - 1)]


class InProcess:
    """GET requests straight into the ASGI app on one event loop (what the server does per request)."""

    def __init__(self, app: Any) -> None:
        self.app, self.loop = app, asyncio.new_event_loop()

    def get(self, path: str, query: dict[str, str]) -> int:
        raw = urlencode(query).encode()
        scope = {
            "type": "http",
            "asgi": {"version": "3.0"},
            "http_version": "1.1",
            "method": "GET",
            "scheme": "http",
            "path": path,
            "raw_path": path.encode(),
            "query_string": raw,
            "root_path": "",
            "headers": [(b"host", HOST.encode())],
            "client": ("127.0.0.1", 50000),
            "server": (HOST, 80),
        }
        status = [0]

        async def receive() -> dict[str, Any]:
            return {"type": "http.request", "body": b"", "more_body": False}

        async def send(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                status[0] = message["status"]

        self.loop.run_until_complete(self.app(scope, receive, send))
        return status[0]


def measure(root: Path) -> dict[str, tuple[float, float]]:
    storage = LocalStorage(root)
    qs = questions(list(_WORDS))[:60]
    kept = open_index(storage.snapshot())
    warm = WarmIndex()
    warm.open(storage.snapshot())  # a server's first question loads it
    server = InProcess(make_env(storage=storage, search=KeptIndex()).client.app)
    assert server.get("/api/search", {"q": qs[0]}) == 200
    time.sleep(2.1)  # past the two-second window in which a just-written folder is read again
    return {
        "reopen": _cpu(lambda q: open_index(storage.snapshot()).search(q, 10, CLOCK.now()), qs),
        "warm": _cpu(lambda q: warm.open(storage.snapshot()).search(q, 10, CLOCK.now()), qs),
        "http": _cpu(lambda q: server.get("/api/search", {"q": q}), qs),
        "kept (CLI)": _cpu(lambda q: kept.search(q, 10, CLOCK.now()), qs),
    }


def main() -> None:
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for size in SIZES:
            root = Path(tmp) / str(size)
            generate(root, size)
            build_here(root)
            rows.append((size, measure(root)))
    columns = ("slices", "reopen p50/p95", "warm p50/p95", "GET p50/p95", "kept p50/p95")
    columns += ("warm/kept", "GET/kept")
    print(" | ".join(f"{c:>15}" for c in columns))
    for size, m in rows:
        kinds = ("reopen", "warm", "http", "kept (CLI)")
        cells = " | ".join(f"{m[k][0]:6.1f} /{m[k][1]:6.1f}" for k in kinds)
        cli = m["kept (CLI)"][0]
        print(f"{size:>7,} | {cells} | {m['warm'][0] / cli:.2f}× | {m['http'][0] / cli:.2f}× (target ≤ 2×)")


if __name__ == "__main__":
    main()
