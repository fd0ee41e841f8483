"""Generate a large, realistic memory tree for benchmarks (deterministic for a given seed)."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from pathlib import Path

from core.clock import iso
from core.memory.slice.model import Slice, Turn, render_core_md

_VOCABULARY = (
    "garden tomato budget flight Lisbon visa deadline review draft chapter piano lesson doctor "
    "sleep running knee recipe sourdough migration database invoice landlord lease sister "
    "birthday gift weekend hike rain coffee meeting roadmap hiring interview offer salary "
    "novel plot character editor cat vet bike repair python refactor test release"
)
_WORDS = _VOCABULARY.split()
_CJK = ("周末", "工作压力", "搬家", "读书", "跑步", "家人", "项目复盘", "学习计划")
_TONES = ("positive", "neutral", "negative", "mixed")


def _sentence(rng: random.Random, n: int) -> str:
    return " ".join(rng.choices(_WORDS, k=n)).capitalize() + "."


def _pool(rng: random.Random, size: int = 4000) -> list[str]:
    return [_sentence(rng, rng.randint(5, 40)) for _ in range(size)]


def core_md(
    rng: random.Random, slice_id: str, start: datetime, pool: list[str], unmarked: float = 0.05
) -> str:
    """One closed slice with 4–30 turns, written as the product writes it; 5 % (`unmarked`) are
    left unmarked."""
    n_turns = rng.randint(4, 30)
    stamps = [iso(start + timedelta(seconds=40 * i + rng.randint(0, 30))) for i in range(n_turns)]
    turns = [
        Turn(
            f"t{i // 2:05d}",
            stamp,
            "user" if i % 2 == 0 else "agent",
            "\n\n".join(rng.choices(pool, k=rng.randint(1, 4))),
        )
        for i, stamp in enumerate(stamps)
    ]
    marked = rng.random() >= unmarked
    s = Slice(
        slice_id=slice_id,
        status="closed",
        start=stamps[0],
        end=stamps[-1],
        timezone="Europe/Lisbon",
        focus=_sentence(rng, 6) if marked else "",
        summary=_sentence(rng, 14) if marked else "",
        decisions=[_sentence(rng, 5)] if rng.random() < 0.4 else [],
        tags=rng.sample(_WORDS, rng.randint(1, 3)) + ([rng.choice(_CJK)] if rng.random() < 0.3 else []),
        emotional_tone=rng.choice(_TONES) if marked else "",
        closed_by="time_cap",
        turns=turns,
    )
    return render_core_md(s)


def generate(root: Path, count: int = 10_000, seed: int = 7) -> list[str]:
    """Write `count` slices under `root/memory/episodic/slices/`; returns their ids."""
    rng = random.Random(seed)
    pool = _pool(rng)
    instant = datetime(2023, 1, 1, 8, 0, tzinfo=UTC)
    ids = []
    for _ in range(count):
        instant += timedelta(minutes=rng.randint(45, 240))
        slice_id = instant.strftime("%Y-%m-%d-%H%M")
        folder = root / "memory/episodic/slices" / instant.strftime("%Y/%m/%d/%H%M") / "timeline"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "core.md").write_text(core_md(rng, slice_id, instant, pool), encoding="utf-8")
        ids.append(slice_id)
    return ids
