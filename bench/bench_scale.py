"""Memory at scale: GitHub requests and bytes per operation at 1k / 5k / 10k slices, each in a
fresh process, and a closing turn's time at 10,000 slices against 100 (local folder).

The memory is one commit built straight into the GitHub stand-in's git repository
(`memory_git`). Every operation runs as its own `python` process against it, as a cron job or
a cold Lambda would: `maintain --no-model` on an unchanged memory, `weave`, and one turn (fake
model) followed by `maintain`, all sharing one disk cache as the product's processes do; then a
turn with an empty cache (a first run, a new Lambda bucket) and a turn after that other writer
moved the head (the shared cache holds an earlier commit's listing). Targets (issue 16): unchanged
maintain ≤ 10 requests, a new turn then maintain ≤ 30, weave ≤ 10, whatever the size; closing
turn 10k/100 ≤ 1.5x; an empty-cache turn's tree listings under 500 KB (issue 33).
Sizes: `python -m bench scale` runs all; BENCH_SCALE_SIZES=1000,5000 picks some.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from bench.memory_git import memory_files, write_repo
from tests.fakes.fake_github import FakeGitHub

SIZES = (1_000, 5_000, 10_000)
TARGETS = {"maintain, unchanged": 10, "weave": 10, "turn + maintain": 30, "maintain, unchanged again": 10}
ROWS_AFTER = ("turn, empty cache", "turn, head moved")
TREE_TARGETS = {"turn, empty cache": 500_000}  # bytes of tree listings


@dataclass
class Cost:
    """What one fresh-process operation cost on the GitHub stand-in."""

    requests: int
    down: int  # bytes GitHub sent
    up: int  # bytes we sent
    seconds: float
    routes: Counter[str]
    trees: int = 0  # bytes of tree listings among `down`


def run(fake: FakeGitHub, argv: list[str], env: dict[str, str]) -> Cost:
    """Run one command in a fresh interpreter; count what reached the fake."""
    fake.reset_counts()
    start = time.perf_counter()
    done = subprocess.run([sys.executable, *argv], env=env, capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - start
    if done.returncode:
        raise RuntimeError(f"{argv} failed:\n{done.stderr[-3000:]}")
    trees = sum(
        sent for request, sent, _ in fake.transfers if request.startswith("GET ") and "/git/trees/" in request
    )
    return Cost(
        sum(fake.counts.values()),
        fake.bytes_sent,
        fake.bytes_received,
        seconds,
        Counter(fake.counts),
        trees,
    )


def child_env(fake: FakeGitHub, home: Path) -> dict[str, str]:
    keep = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "PREVIOUSLY_", "STORAGE"))}
    return {
        **keep,
        "HOME": str(home),
        "STORAGE": "github",
        "GITHUB_TOKEN": fake.token,
        "GITHUB_REPO": f"{fake.owner}/{fake.name}",
        "GITHUB_BRANCH": "main",
        "GITHUB_API_URL": fake.url,
    }


def measure_size(n: int, tmp: Path) -> dict[str, Cost]:
    """The three operations on a fresh copy of an n-slice memory."""
    t0 = time.perf_counter()
    files, ids, _ = memory_files(n)
    size_mb = sum(len(t.encode()) for t in files.values()) / 1e6
    with FakeGitHub(tmp / f"mem-{n}.git", seed={}) as fake:
        write_repo(fake.git, files)
        built = time.perf_counter() - t0
        print(f"  {n:>6} slices: {len(files)} files, {size_mb:.0f} MB, built in {built:.0f} s")
        home = tmp / f"home-{n}"  # a cache of its own: each size is a different repository's history
        home.mkdir()
        env = child_env(fake, home)
        costs = {
            "maintain, unchanged": run(
                fake, ["-m", "functions.cli", "maintain", "--no-model", "--json"], env
            ),
            "weave": run(fake, ["-m", "functions.cli", "weave", "--json"], env),
            # The processes share the disk cache (core/storage/disk_cache.py, under HOME): the
            # second unchanged pass finds the listing and every blob it needs there.
            "maintain, unchanged again": run(
                fake, ["-m", "functions.cli", "maintain", "--no-model", "--json"], env
            ),
        }
        turn = run(fake, ["-m", "bench.scale_turn", ids[-1]], env)
        after = run(fake, ["-m", "functions.cli", "maintain", "--no-model", "--json"], env)
        costs["turn"], costs["then maintain"] = turn, after
        empty = tmp / f"empty-home-{n}"
        empty.mkdir()
        costs["turn, empty cache"] = run(fake, ["-m", "bench.scale_turn", ids[-1]], child_env(fake, empty))
        # The empty-cache turn moved the head: the shared cache holds the listing before it.
        costs["turn, head moved"] = run(fake, ["-m", "bench.scale_turn", ids[-1]], env)
        costs["turn + maintain"] = Cost(
            turn.requests + after.requests,
            turn.down + after.down,
            turn.up + after.up,
            turn.seconds + after.seconds,
            turn.routes + after.routes,
        )
    return costs


def print_table(results: dict[int, dict[str, Cost]]) -> None:
    sizes = sorted(results)
    print("\n  each cell: requests, MB down and up, KB of it tree listings (GET /git/trees)")
    print(f"\n  {'operation (fresh process)':28}" + "".join(f"{n:>30,}" for n in sizes) + "   target")
    for op in (
        "maintain, unchanged",
        "weave",
        "maintain, unchanged again",
        "turn",
        "then maintain",
        "turn + maintain",
        *ROWS_AFTER,
    ):
        cells = []
        for n in sizes:
            c = results[n][op]
            mb = f"{c.down / 1e6:>4.1f}↓{c.up / 1e6:>3.1f}↑MB"
            cells.append(f"{c.requests:>4} req {mb} {c.trees / 1e3:>5.0f} KB")
        target = f"≤ {TARGETS[op]}" if op in TARGETS else ""
        target += f"trees < {TREE_TARGETS[op] // 1000} KB" if op in TREE_TARGETS else ""
        print(f"  {op:28}" + "".join(f"{cell:>30}" for cell in cells) + f"   {target}")
    print("\n  requests per route at the largest size:")
    for op in ("maintain, unchanged", "weave", "turn", "then maintain", *ROWS_AFTER):
        routes = ", ".join(f"{r} ×{k}" for r, k in sorted(results[sizes[-1]][op].routes.items()))
        print(f"    {op}: {routes}")


def main() -> None:
    """Print requests and bytes per operation for each size, then the closing-turn ratio."""
    wanted = os.environ.get("BENCH_SCALE_SIZES")
    sizes = [int(s) for s in wanted.split(",")] if wanted else list(SIZES)
    tmp = Path(tempfile.mkdtemp(prefix="previously-bench-scale-"))
    try:
        results = {n: measure_size(n, tmp) for n in sizes}
        print_table(results)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    from bench.scale_turn import closing_turn_ratio

    closing_turn_ratio()
