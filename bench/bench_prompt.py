"""The system prompt's size on a 10-slice and a 10,000-slice memory, and the time to build it.

Budget (ARCHITECTURE §10): the prompt does not grow with the archive — the timeline brief holds
the newest ten slices and the topic menu twenty topics, whatever the memory's size. Both
memories come from the same generator (deterministic), with a user card, rebuilt indexes and a
fresh active slice after the last one.
"""

from __future__ import annotations

import shutil
import tempfile
import time
from datetime import timedelta
from pathlib import Path

from bench.memory_gen import generate
from core.agent.prompt import build_system_prompt
from core.clock import iso, parse_iso
from core.memory import paths
from core.memory.catalog.rebuild import rebuild_indexes
from core.memory.config import UserConfig
from core.memory.slice.model import Slice, Turn
from core.storage.base import WriteBatch
from core.storage.local import LocalStorage

SIZES = (10, 10_000)
ROUNDS = 3
CARD = """\
# Previously On

_Active slice: 2023-01-01-0900 | Format: user card v2 | Updated: 2023-01-01T09:00:00.000Z_

## Identity

- Name: Bench User

## Past

A person whose memory is generated for benchmarks.

- Started keeping a memory — refs: [2023/01/01/0900]

## Now

- Measuring prompts — refs: [2023/01/01/0900] | since: 2023-01-01
"""


def _memory(root: Path, count: int) -> tuple[LocalStorage, Slice]:
    ids = generate(root, count)
    storage = LocalStorage(root)
    batch = WriteBatch.open(storage)
    now = parse_iso(f"{ids[-1][:10]}T23:00:00.000Z")
    rebuild_indexes(batch, now)
    batch.put(paths.CARD, CARD)
    batch.commit("bench: indexes and card")
    start = now + timedelta(hours=1)
    current = Slice(
        slice_id=start.strftime("%Y-%m-%d-%H%M"),
        start=iso(start),
        timezone="Europe/Lisbon",
        turns=[Turn("bench0", iso(start), "user", "How long is my prompt?")],
    )
    return storage, current


def _measure(storage: LocalStorage, current: Slice) -> tuple[str, float]:
    best = float("inf")
    text = ""
    for _ in range(ROUNDS):
        view = storage.snapshot()
        began = time.perf_counter()
        text = build_system_prompt(
            view, current, card_text=None, config=UserConfig(), timezone="Europe/Lisbon", demo=False
        )
        best = min(best, time.perf_counter() - began)
    return text, best


def main() -> None:
    """Print the prompt's size and build time per memory size."""
    tmp = Path(tempfile.mkdtemp(prefix="bench-prompt-"))
    try:
        print(f"{'slices':>7} {'chars':>7} {'UTF-8 bytes':>12} {'~tokens':>8} {'build (best of 3)':>18}")
        sizes = []
        for count in SIZES:
            storage, current = _memory(tmp / str(count), count)
            text, seconds = _measure(storage, current)
            sizes.append(len(text))
            size = len(text.encode("utf-8"))
            print(f"{count:>7} {len(text):>7} {size:>12} {len(text) // 4:>8} {seconds * 1000:>15.1f} ms")
        print(f"growth from {SIZES[0]} to {SIZES[-1]} slices: {sizes[-1] - sizes[0]:+d} characters")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
