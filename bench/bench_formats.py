"""core.md frontmatter parsing on 10,000 slices: ours vs python-frontmatter, plus full parse/render."""

from __future__ import annotations

import time
from collections.abc import Callable

import frontmatter

from core.memory.slice.model import Slice, Turn, count_turns, parse_core_md, parse_frontmatter, render_core_md

N = 10_000


def _texts() -> list[str]:
    texts = []
    for i in range(N):
        day, minute = divmod(i, 1440)
        sid = f"2026-{1 + day // 28:02d}-{1 + day % 28:02d}-{minute // 60:02d}{minute % 60:02d}"
        s = Slice(
            slice_id=sid,
            status="closed",
            start=f"2026-01-01T00:{i % 60:02d}:00.000Z",
            end=f"2026-01-01T00:{i % 60:02d}:30.000Z",
            timezone="Europe/Berlin",
            focus=f"Planning the week, item {i}: groceries, the dentist and the tax form",
            summary="Went through the week; decided on Tuesday for the dentist. 这周的安排。",
            tags=["planning", "health", f"tag-{i % 50}"],
            closed_by="time_cap",
            emotional_tone="neutral",
            turns=[
                Turn(f"t{i:05d}", "2026-01-01T00:00:00.000Z", ("user", "agent")[j % 2], "hello " * 40)
                for j in range(8)
            ],
        )
        texts.append(render_core_md(s))
    return texts


def _time(fn: Callable[[str], object], texts: list[str]) -> float:
    start = time.perf_counter()
    for t in texts:
        fn(t)
    return time.perf_counter() - start


def main() -> None:
    texts = _texts()
    # Interleaved rounds, best of each: a busy machine slows both sides alike.
    rounds = [(_time(frontmatter.loads, texts), _time(parse_frontmatter, texts)) for _ in range(5)]
    baseline = min(r[0] for r in rounds)
    ours = min(r[1] for r in rounds)
    counts = _time(count_turns, texts)
    full = _time(parse_core_md, texts)
    print(f"python-frontmatter.loads x{N}: {baseline:.3f} s")
    print(f"parse_frontmatter x{N}:       {ours:.3f} s  ({ours / baseline:.2f}x; budget 1.5x)")
    print(f"count_turns x{N}:             {counts:.3f} s")
    print(f"parse_core_md x{N}:           {full:.3f} s")
