"""Recall floor: LoCoMo dev scores beside full-text BM25, then build cost and query latency at
100 / 1,000 / 10,000 slices beside `bm25s` on the same memory.

Part 1 builds the dev trees with ../shared/eval/locomo_to_slices.py (no summaries), runs
`previously maintain --no-model` on each, then ../shared/eval/retrieval_eval.py with the
`bm25-full` baseline and `previously recall --batch --no-model`. Part 2 generates memories with
`bench/memory_gen.py` (a 50-word vocabulary: every question word is in nearly every slice and
turn, the worst case for the floor) at each size, plus one 10,000-slice memory with a
30,000-word Zipf vocabulary; for each it runs a full build in a fresh process (wall, CPU, peak
RSS), opens the index and asks 80 questions twice (the second pass finds every term's
postings loaded), and indexes the same slices with bm25s (wall times of one question each).
`PREVIOUSLY_BENCH_SIZES=100,1000` changes the sizes, `PREVIOUSLY_BENCH_ZIPF=0` skips the Zipf
memory and `PREVIOUSLY_BENCH_LOCOMO=0` the LoCoMo scores.
"""

from __future__ import annotations

import json
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

from bench.memory_gen import _WORDS, generate
from core.clock import FixedClock
from core.memory.paths import SEARCH_DIR, core_md
from core.search.reader import read_slice, slice_paths
from core.search.recall import OpenIndex, index_slice, open_index, refresh_index
from core.storage.base import WriteBatch
from core.storage.local import LocalStorage
from tests.fakes.slices import slice_text

ROOT = Path(__file__).resolve().parents[1]
EVAL = ROOT.parent / "shared" / "eval"
CLI = ROOT / ".venv" / "bin" / "previously"
CLOCK = FixedClock.at("2030-01-01T00:00:00Z")


def locomo() -> None:
    """Score the floor against full-text BM25 on the LoCoMo dev conversations."""
    if not (EVAL / "retrieval_eval.py").is_file():
        print(f"skipped LoCoMo: {EVAL} not found")
        return
    with tempfile.TemporaryDirectory() as tmp:
        trees = Path(tmp) / "locomo-dev"
        py = sys.executable
        convert = [str(EVAL / "locomo_to_slices.py"), "--out", str(trees), "--split", "dev"]
        subprocess.run([py, *convert, "--summaries", "none"], check=True, capture_output=True)
        for tree in sorted(p for p in trees.iterdir() if (p / "memory").is_dir()):
            started = time.perf_counter()
            maintain = [str(CLI), "maintain", "--memory", str(tree), "--no-model"]
            subprocess.run(maintain, check=True, capture_output=True)
            print(f"maintain --no-model {tree.name}: {time.perf_counter() - started:.2f} s")
        floor = f'previously=batch:{CLI} recall --batch --no-model --memory "$RECALL_TREE_ROOT"'
        score = [str(EVAL / "retrieval_eval.py"), "--trees", str(trees), "--split", "dev"]
        retrievers = ["--retriever", "bm25-full", "--retriever", floor]
        out = subprocess.run([py, *score, *retrievers], check=True, capture_output=True, text=True)
        lines = out.stdout.splitlines()
        end = next((i for i, line in enumerate(lines) if line.startswith("LoCoMo-paper")), len(lines))
        print("\n".join(line for line in lines[:end] if line.startswith("|") or line.startswith("Per")))


_SYLLABLES = [*("ka", "lo", "mi", "ne", "ru", "sa", "ti", "vo", "ba", "de")]
_SYLLABLES += ("fi", "gu", "ha", "je", "ko", "la", "mu", "no", "pe", "ri")


def _lexicon(rng: random.Random, size: int) -> list[str]:
    words: set[str] = set()
    while len(words) < size:
        words.add("".join(rng.choice(_SYLLABLES) for _ in range(rng.randint(2, 4))))
    return sorted(words)


def _zipf_sentence(rng: random.Random, lexicon: list[str], n: int) -> str:
    # Zipf-like: low ranks are common, the long tail is rare.
    picks = [lexicon[min(len(lexicon) - 1, int(rng.paretovariate(1.1)) - 1)] for _ in range(n)]
    return " ".join(picks).capitalize() + "."


def zipf_memory(root: Path, count: int, seed: int = 7) -> list[str]:
    """Write `count` slices (6–20 turns; user turns 8–40 words, agent 20–120) from a Zipf
    vocabulary of 30,000 words; returns the vocabulary's 3,000 most common words."""
    rng = random.Random(seed)
    lexicon = _lexicon(rng, 30_000)
    rng.shuffle(lexicon)
    start = datetime(2021, 1, 1, tzinfo=UTC)
    for i in range(count):
        sid = (start + timedelta(hours=4 * i + rng.randint(0, 3))).strftime("%Y-%m-%d-%H%M")
        turns = []
        for t in range(rng.randint(6, 20)):
            role = "user" if t % 2 == 0 else "agent"
            size = rng.randint(8, 40) if role == "user" else rng.randint(20, 120)
            turns.append((role, _zipf_sentence(rng, lexicon, size)))
        file = root / core_md(sid).value
        file.parent.mkdir(parents=True, exist_ok=True)
        file.write_text(slice_text(sid, turns, tags=[lexicon[rng.randint(0, 300)]]), encoding="utf-8")
    return lexicon[:3000]


def questions(words: list[str], seed: int = 3) -> list[str]:
    """80 questions: 60 of one to four memory words, 10 with a date, 10 in plain phrasing."""
    rng = random.Random(seed)
    out = [" ".join(rng.sample(words, rng.randint(1, 4))) for _ in range(60)]
    out += [f"what did I decide about the {rng.choice(words)} last March" for _ in range(10)]
    out += [f"how is my {rng.choice(words)} going?" for _ in range(10)]
    return out


@dataclass
class Build:
    """A full index build in a fresh process."""

    wall_s: float
    cpu_s: float
    peak_rss_mb: float
    start_rss_mb: float
    index_mb: float
    segments: int


def _rss_mb() -> float:
    """This process's peak resident memory. Linux's VmHWM starts afresh at exec, where
    ru_maxrss keeps the high-water mark of the process that started it."""
    try:
        status = Path("/proc/self/status").read_text(encoding="ascii")
        return int(next(line.split()[1] for line in status.splitlines() if line.startswith("VmHWM:"))) / 1024
    except (OSError, StopIteration, ValueError):
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # kB on Linux


def build_here(root: Path) -> Build:
    """`maintain --full`'s index step on `root`, measured in this process."""
    start_rss = _rss_mb()
    started, cpu = time.perf_counter(), time.process_time()
    batch = WriteBatch.open(LocalStorage(root))
    report = refresh_index(batch, CLOCK, full=True)
    batch.commit("build")
    wall, cpu = time.perf_counter() - started, time.process_time() - cpu
    return Build(wall, cpu, _rss_mb(), start_rss, report.bytes / 1e6, report.segments)


def build_fresh(root: Path) -> Build:
    """A full build in a new interpreter, so its peak memory is the build's alone."""
    cmd = [sys.executable, "-m", "bench.bench_recall", "--build", str(root)]
    out = subprocess.run(cmd, cwd=ROOT, check=True, capture_output=True, text=True)
    return Build(**json.loads(out.stdout.splitlines()[-1]))


def _percentiles(times: list[float]) -> tuple[float, float, float]:
    ordered = sorted(times)
    return statistics.median(ordered), ordered[max(0, round(0.95 * len(ordered)) - 1)], ordered[-1]


def time_queries(ask: Callable[[str], object], qs: list[str]) -> tuple[list[float], list[float]]:
    """Wall and CPU milliseconds of each question, in order."""
    wall, cpu = [], []
    for q in qs:
        t0, c0 = time.perf_counter(), time.thread_time()
        ask(q)
        wall.append((time.perf_counter() - t0) * 1000)
        cpu.append((time.thread_time() - c0) * 1000)
    return wall, cpu


def _bm25s(root: Path, qs: list[str]) -> tuple[float, list[float], list[float]] | None:
    """Index the same slices (head and turns as one text) with bm25s; build seconds, query ms."""
    try:
        import bm25s
        import Stemmer
    except ImportError:
        return None
    storage = LocalStorage(root)
    snap = storage.snapshot()
    texts = []
    for sid, path in sorted(slice_paths(snap).items()):
        st = read_slice(sid, snap.read(path) or "")
        texts.append("\n".join([st.head, *(t.content for t in st.turns)]))
    stemmer = Stemmer.Stemmer("english")
    started = time.perf_counter()
    retriever = bm25s.BM25()
    retriever.index(
        bm25s.tokenize(texts, stopwords="en", stemmer=stemmer, show_progress=False), show_progress=False
    )
    built = time.perf_counter() - started

    def ask(q: str) -> object:
        tokens = bm25s.tokenize([q], stopwords="en", stemmer=stemmer, show_progress=False)
        return retriever.retrieve(tokens, k=min(10, len(texts)), show_progress=False)

    return (built, *time_queries(ask, qs))


def measure(label: str, root: Path, words: list[str]) -> dict[str, object]:
    """Build, open and query one memory; the same questions against bm25s."""
    count = len(slice_paths(LocalStorage(root).snapshot()))
    text_mb = sum(f.stat().st_size for f in (root / "memory").rglob("core.md")) / 1e6
    build = build_fresh(root)
    started = time.perf_counter()
    index: OpenIndex = open_index(LocalStorage(root).snapshot())
    open_ms = (time.perf_counter() - started) * 1000
    qs = questions(words)
    wall, cpu = time_queries(lambda q: index.search(q, 10, CLOCK.now()), qs)
    again = time_queries(lambda q: index.search(q, 10, CLOCK.now()), qs)[1]  # every term loaded
    row: dict[str, object] = {"memory": label, "slices": count, "text_mb": text_mb, **asdict(build)}
    row.update(open_ms=open_ms, first_ms=wall[0], first_cpu_ms=cpu[0])
    row.update(wall=_percentiles(wall), cpu=_percentiles(cpu), again=_percentiles(again))
    theirs = _bm25s(root, qs)
    if theirs:
        row.update(
            bm25s_build_s=theirs[0], bm25s_wall=_percentiles(theirs[1]), bm25s_cpu=_percentiles(theirs[2])
        )
    return row


def _print_rows(rows: list[dict[str, object]]) -> None:
    print("\n| memory | slices | full build: wall (CPU) · peak RSS | index | open | first question |", end="")
    print(" query p50 / p95 / max, wall (CPU p50 / p95) | again, CPU p50 / p95 | bm25s p50 / p95 (build) |")
    print("|---|---:|---|---|---:|---:|---|---|---|")
    for r in rows:
        w, c = r["wall"], r["cpu"]
        rss = f"{r['peak_rss_mb']:.0f} MB (start {r['start_rss_mb']:.0f})"
        build = f"{r['wall_s']:.1f} s ({r['cpu_s']:.1f} s) · {rss}"
        cells = [
            str(r["memory"]),
            f"{r['slices']:,}",
            build,
            f"{r['index_mb']:.2f} MB / {r['segments']} seg",
            f"{r['open_ms']:.0f} ms",
            f"{r['first_ms']:.1f} ms ({r['first_cpu_ms']:.1f})",
            f"{w[0]:.1f} / {w[1]:.1f} / {w[2]:.0f} ms ({c[0]:.1f} / {c[1]:.1f})",  # type: ignore[index]
            f"{r['again'][0]:.1f} / {r['again'][1]:.1f} ms",  # type: ignore[index]
        ]
        if "bm25s_wall" in r:
            bw = r["bm25s_wall"]
            cells.append(f"{bw[0]:.2f} / {bw[1]:.2f} ms ({r['bm25s_build_s']:.1f} s)")  # type: ignore[index]
        else:
            cells.append("bm25s not installed")
        print("| " + " | ".join(cells) + " |")


def _close_one(root: Path, after: str) -> None:
    """A slice newer than every other closes: the cheapest write."""
    sid = (datetime.strptime(after, "%Y-%m-%d-%H%M").replace(tzinfo=UTC) + timedelta(hours=5)).strftime(
        "%Y-%m-%d-%H%M"
    )
    file = root / core_md(sid).value
    file.parent.mkdir(parents=True, exist_ok=True)
    file.write_text(slice_text(sid, [("user", "one more closing slice about sailing")]), encoding="utf-8")
    _index_one(root, sid, "one slice closes")


def _remark(root: Path, sid: str) -> None:
    """Re-index a slice of the (full) newest segment: the largest rewrite a close can cause."""
    file = root / core_md(sid).value
    file.write_text(file.read_text(encoding="utf-8") + "\nA late addition about kayaks.\n", encoding="utf-8")
    _index_one(root, sid, "re-index a slice in a full segment")


def _index_one(root: Path, sid: str, what: str) -> None:
    storage = LocalStorage(root)
    started = time.perf_counter()
    batch = WriteBatch.open(storage)
    index_slice(batch, sid, CLOCK)
    written = batch.commit(what)
    took = time.perf_counter() - started
    size = sum(len(storage.snapshot().read(p) or "") for p in written.written)
    print(f"{what}: {took:.2f} s, {len(written.written)} files rewritten ({size / 1e3:.0f} kB)")


def scale() -> None:
    """Build cost and latency at each size, beside bm25s; then the cost of one close."""
    sizes = [int(x) for x in os.environ.get("PREVIOUSLY_BENCH_SIZES", "100,1000,10000").split(",") if x]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        ids: list[str] = []
        for n in sizes:
            root = Path(tmp) / f"gen-{n}"
            ids = generate(root, n)
            rows.append(measure("memory_gen (50 words)", root, list(_WORDS)))
            print(f"measured {n} slices", flush=True)
        if os.environ.get("PREVIOUSLY_BENCH_ZIPF", "1") != "0":
            root = Path(tmp) / "zipf"
            words = zipf_memory(root, max(sizes))
            rows.append(measure("Zipf (30,000 words)", root, words))
        _print_rows(rows)
        if len(ids) >= 2:
            root = Path(tmp) / f"gen-{sizes[-1]}"
            largest = max((f.stat().st_size for f in (root / SEARCH_DIR.value).glob("seg-*")), default=0)
            print(f"\n{sizes[-1]:,} slices (memory_gen): largest segment {largest / 1e3:.0f} kB")
            _close_one(root, ids[-1])
            _remark(root, ids[-2])


def main() -> None:
    """Print the LoCoMo table and the figures at 100 / 1,000 / 10,000 slices."""
    if os.environ.get("PREVIOUSLY_BENCH_LOCOMO", "1") != "0":
        locomo()
    scale()


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--build":
        print(json.dumps(asdict(build_here(Path(sys.argv[2])))))
    else:
        main()
