"""Recall floor: LoCoMo dev scores beside full-text BM25, and index size/speed on 10,000 slices.

Part 1 builds the dev trees with ../shared/eval/locomo_to_slices.py (no summaries), runs
`previously maintain --no-model` on each, then ../shared/eval/retrieval_eval.py with the
`bm25-full` baseline and `previously recall --batch --no-model`. Part 2 generates a synthetic
10,000-slice memory and measures a full build, one incremental close, the stored bytes and
query latency. Set PREVIOUSLY_BENCH_SLICES to change the size.
"""

from __future__ import annotations

import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from core.clock import FixedClock
from core.memory.paths import SEARCH_DIR, core_md
from core.search.recall import index_slice, open_index, refresh_index
from core.storage.base import WriteBatch
from core.storage.local import LocalStorage
from tests.fakes.slices import slice_text

ROOT = Path(__file__).resolve().parents[1]
EVAL = ROOT.parent / "shared" / "eval"
CLI = ROOT / ".venv" / "bin" / "previously"


def locomo() -> None:
    """Score the floor against full-text BM25 on the LoCoMo dev conversations."""
    if not (EVAL / "retrieval_eval.py").is_file():
        print(f"skipped LoCoMo: {EVAL} not found")
        return
    with tempfile.TemporaryDirectory() as tmp:
        trees = Path(tmp) / "locomo-dev"
        py = sys.executable
        subprocess.run(
            [
                py,
                str(EVAL / "locomo_to_slices.py"),
                "--out",
                str(trees),
                "--split",
                "dev",
                "--summaries",
                "none",
            ],
            check=True,
            capture_output=True,
        )
        for tree in sorted(p for p in trees.iterdir() if (p / "memory").is_dir()):
            started = time.perf_counter()
            subprocess.run(
                [str(CLI), "maintain", "--memory", str(tree), "--no-model"], check=True, capture_output=True
            )
            print(f"maintain --no-model {tree.name}: {time.perf_counter() - started:.2f} s")
        floor = f'previously=batch:{CLI} recall --batch --no-model --memory "$RECALL_TREE_ROOT"'
        out = subprocess.run(
            [
                py,
                str(EVAL / "retrieval_eval.py"),
                "--trees",
                str(trees),
                "--split",
                "dev",
                *_RETRIEVERS,
                floor,
            ],
            check=True,
            capture_output=True,
            text=True,
        )
        lines = out.stdout.splitlines()
        end = next((i for i, line in enumerate(lines) if line.startswith("LoCoMo-paper")), len(lines))
        print("\n".join(line for line in lines[:end] if line.startswith("|") or line.startswith("Per")))


_RETRIEVERS = ("--retriever", "bm25-full", "--retriever")
_SYLLABLES = [
    "ka",
    "lo",
    "mi",
    "ne",
    "ru",
    "sa",
    "ti",
    "vo",
    "ba",
    "de",
    "fi",
    "gu",
    "ha",
    "je",
    "ko",
    "la",
    "mu",
    "no",
    "pe",
    "ri",
]


def _lexicon(rng: random.Random, size: int) -> list[str]:
    words = set()
    while len(words) < size:
        words.add("".join(rng.choice(_SYLLABLES) for _ in range(rng.randint(2, 4))))
    return sorted(words)


def _sentence(rng: random.Random, lexicon: list[str], n: int) -> str:
    # Zipf-like: low ranks are common, the long tail is rare.
    picks = [lexicon[min(len(lexicon) - 1, int(rng.paretovariate(1.1)) - 1)] for _ in range(n)]
    return " ".join(picks).capitalize() + "."


def synthetic_memory(root: Path, count: int, seed: int = 7) -> list[str]:
    """Write `count` slices (6–20 turns; user turns 8–40 words, agent turns 20–120) under root."""
    rng = random.Random(seed)
    lexicon = _lexicon(rng, 30_000)
    rng.shuffle(lexicon)
    start = datetime(2021, 1, 1, tzinfo=UTC)
    ids = []
    for i in range(count):
        at = start + timedelta(hours=4 * i + rng.randint(0, 3))
        sid = at.strftime("%Y-%m-%d-%H%M")
        turns = []
        for t in range(rng.randint(6, 20)):
            role = "user" if t % 2 == 0 else "agent"
            turns.append(
                (
                    role,
                    _sentence(rng, lexicon, rng.randint(8, 40) if role == "user" else rng.randint(20, 120)),
                )
            )
        file = root / core_md(sid).value
        file.parent.mkdir(parents=True, exist_ok=True)
        file.write_text(slice_text(sid, turns, tags=[lexicon[rng.randint(0, 300)]]), encoding="utf-8")
        ids.append(sid)
    return ids


def _build(storage: LocalStorage, clock: FixedClock) -> None:
    started, cpu = time.perf_counter(), time.process_time()
    batch = WriteBatch.open(storage)
    report = refresh_index(batch, clock, full=True)
    batch.commit("build")
    wall, cpu = time.perf_counter() - started, time.process_time() - cpu
    largest = max(f.stat().st_size for f in (storage.root / SEARCH_DIR.value).glob("seg-*"))
    print(
        f"full build: {wall:.1f} s ({cpu:.1f} s CPU); {report.bytes / 1e6:.2f} MB in "
        f"{report.segments} segments + manifest (largest {largest / 1e3:.0f} kB)"
    )


def _close_one(storage: LocalStorage, clock: FixedClock, after: str) -> Path:
    last = datetime.strptime(after, "%Y-%m-%d-%H%M").replace(tzinfo=UTC) + timedelta(hours=5)
    sid = last.strftime("%Y-%m-%d-%H%M")
    file = storage.root / core_md(sid).value
    file.parent.mkdir(parents=True, exist_ok=True)
    file.write_text(slice_text(sid, [("user", "one more closing slice about sailing")]), encoding="utf-8")
    started = time.perf_counter()
    batch = WriteBatch.open(storage)
    index_slice(batch, sid, clock)
    written = batch.commit("close")
    size = sum(len(storage.snapshot().read(p) or "") for p in written.written)
    took = time.perf_counter() - started
    print(f"one slice closes: {took:.2f} s, {len(written.written)} files rewritten ({size / 1e3:.0f} kB)")
    return file


def _remark(storage: LocalStorage, clock: FixedClock, sid: str) -> None:
    """Re-index a slice of the (full) newest segment: the largest rewrite a close can cause."""
    file = storage.root / core_md(sid).value
    file.write_text(file.read_text(encoding="utf-8") + "\nA late addition about kayaks.\n", encoding="utf-8")
    started = time.perf_counter()
    batch = WriteBatch.open(storage)
    index_slice(batch, sid, clock)
    written = batch.commit("re-mark")
    size = sum(len(storage.snapshot().read(p) or "") for p in written.written)
    took = time.perf_counter() - started
    files = len(written.written)
    print(f"re-index a slice in a full segment: {took:.2f} s, {files} files ({size / 1e3:.0f} kB)")


def _latency(storage: LocalStorage, clock: FixedClock, extra: str) -> None:
    started, cpu = time.perf_counter(), time.process_time()
    index = open_index(storage.snapshot())
    wall, cpu = time.perf_counter() - started, time.process_time() - cpu
    what = "manifest, segment headers and slice tables, newer folders"
    print(f"open index ({what}): {wall * 1000:.0f} ms ({cpu * 1000:.0f} ms CPU)")
    rng = random.Random(3)
    lexicon = _lexicon(random.Random(7), 30_000)
    queries = [" ".join(rng.sample(lexicon[:3000], 3)) for _ in range(40)] + [extra]
    queries += ["what did we say last March about " + rng.choice(lexicon[:500]) for _ in range(10)]
    times = []
    for q in queries:
        t0 = time.perf_counter()
        index.search(q, 10, clock.now())
        times.append((time.perf_counter() - t0) * 1000)
    first = times[0]
    times.sort()
    p95 = times[int(0.95 * len(times)) - 1]
    median = statistics.median(times)
    print(f"query latency, {len(times)} questions: first {first:.0f} ms, median {median:.1f} ms, ", end="")
    print(f"p95 {p95:.0f} ms, max {times[-1]:.0f} ms")


def scale(count: int) -> None:
    """Index size, build time, one incremental close and query latency on a big memory."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        started = time.perf_counter()
        ids = synthetic_memory(root, count)
        size = sum(f.stat().st_size for f in (root / "memory").rglob("core.md")) / 1e6
        print(f"generated {count} slices ({size:.1f} MB of core.md) in {time.perf_counter() - started:.1f} s")
        storage = LocalStorage(root)
        clock = FixedClock.at("2030-01-01T00:00:00Z")
        _build(storage, clock)
        _close_one(storage, clock, ids[-1])
        _remark(storage, clock, ids[-2])
        _latency(storage, clock, "one more closing slice about sailing")


def main() -> None:
    """Print the LoCoMo table and the 10,000-slice figures."""
    locomo()
    scale(int(os.environ.get("PREVIOUSLY_BENCH_SLICES", "10000")))


if __name__ == "__main__":
    main()
