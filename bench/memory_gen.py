"""Generate a large, realistic memory tree for benchmarks (deterministic for a given seed)."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from pathlib import Path

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


def _quote(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def core_md(rng: random.Random, slice_id: str, start: datetime) -> str:
    """One closed slice with 4–30 turns, frontmatter in the original's key order."""
    n_turns = rng.randint(4, 30)
    stamps = [start + timedelta(seconds=40 * i + rng.randint(0, 30)) for i in range(n_turns)]
    iso = [s.strftime("%Y-%m-%dT%H:%M:%S.") + f"{s.microsecond // 1000:03d}Z" for s in stamps]
    tags = rng.sample(_WORDS, rng.randint(1, 3)) + ([rng.choice(_CJK)] if rng.random() < 0.3 else [])
    dry = rng.random() < 0.05
    fm = [f"slice_id: {slice_id}"]
    if not dry:
        fm.append(f"focus: {_sentence(rng, 6)}")
    fm += ["status: closed", f"start: {_quote(iso[0])}", f"end: {_quote(iso[-1])}", "timezone: Europe/Lisbon"]
    if not dry:
        fm.append(f"summary: {_sentence(rng, 14)}")
    fm += ["open_loops: []", "decisions:", f"  - {_sentence(rng, 5)}", "tags:"]
    fm += [f"  - {t}" for t in tags]
    fm += ["related_slices: []", "loops: []", f"emotional_tone: {rng.choice(_TONES)}", "closed_by: time_cap"]
    turns = []
    for i, stamp in enumerate(iso):
        role = "user" if i % 2 == 0 else "agent"
        body = "\n\n".join(_sentence(rng, rng.randint(8, 40)) for _ in range(rng.randint(1, 4)))
        turns.append(f"## Turn t{i:05d} — {stamp} ({role})\n\n{body}")
    return "---\n" + "\n".join(fm) + "\n---\n" + "\n\n".join(turns) + "\n"


def generate(root: Path, count: int = 10_000, seed: int = 7) -> list[str]:
    """Write `count` slices under `root/memory/episodic/slices/`; returns their ids."""
    rng = random.Random(seed)
    instant = datetime(2023, 1, 1, 8, 0, tzinfo=UTC)
    ids = []
    for _ in range(count):
        instant += timedelta(minutes=rng.randint(45, 240))
        slice_id = instant.strftime("%Y-%m-%d-%H%M")
        folder = root / "memory/episodic/slices" / instant.strftime("%Y/%m/%d/%H%M") / "timeline"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "core.md").write_text(core_md(rng, slice_id, instant), encoding="utf-8")
        ids.append(slice_id)
    return ids
