"""Slice-id parsing in the weave: its cost side by side with a plain frontmatter parse (issue 31).

At 100 / 1,000 / 10,000 slices: python-frontmatter over every core.md read from disk, against
the catalog weave from scratch through the storage, with the slice-id cache emptied first (a new
process). Budget: within 1.5x CPU at every size. Also printed: how many times the weave asked for
a slice id and how many distinct ids it parsed (each distinct id is parsed once, paths._parsed).
Best of 3 interleaved rounds; CPU time is the figure to judge on a busy machine.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from bench.bench_weave import _best, _forget_indexes, _parse_all, _timed, _weave
from bench.memory_gen import generate
from core.memory import paths
from core.storage.local import LocalStorage

SIZES = (100, 1_000, 10_000)
ROUNDS = 3
BUDGET = 1.5


def _cold_weave(root: Path, storage: LocalStorage) -> None:
    _forget_indexes(root)
    paths._parsed.cache_clear()
    _weave(storage)


def measure(n: int) -> tuple[float, float, int, int]:
    """(frontmatter CPU s, weave CPU s, slice-id requests, distinct ids parsed) at `n` slices."""
    root = Path(tempfile.mkdtemp(prefix="previously-bench-ids-"))
    try:
        generate(root, n)
        files = sorted(root.glob("memory/episodic/slices/*/*/*/*/timeline/core.md"))
        storage = LocalStorage(root)
        _parse_all(files)  # warm the page cache for both sides
        base, ours = [], []
        for _ in range(ROUNDS):
            base.append(_timed(lambda: _parse_all(files))[0])
            ours.append(_timed(lambda: _cold_weave(root, storage))[0])
        info = paths._parsed.cache_info()
        return _best(base)[1], _best(ours)[1], info.hits + info.misses, info.misses
    finally:
        shutil.rmtree(root, ignore_errors=True)


def main() -> None:
    print(f"{'slices':>7} {'frontmatter':>12} {'weave':>8} {'ratio':>6}  slice-id requests / parsed")
    for n in SIZES:
        fm, weave, asked, parsed = measure(n)
        mark = "ok" if weave / fm <= BUDGET else f"over {BUDGET}x"
        print(f"{n:>7} {fm:>10.2f} s {weave:>6.2f} s {weave / fm:>5.2f}x  {asked:,} / {parsed:,}  {mark}")
