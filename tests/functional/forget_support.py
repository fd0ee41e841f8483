"""Helpers for the forgetting tests: the sample memory on a backend, and a grep over the tree."""

from __future__ import annotations

import re
from pathlib import Path

from core.clock import FixedClock
from core.memory.paths import MEMORY, MemoryPath, slice_dir, slice_rel
from core.memory.slice.model import parse_core_md
from core.search.recall import refresh_index
from core.storage.base import Storage, WriteBatch
from tests.contract.conftest import Backend

SAMPLE = Path(__file__).resolve().parents[2] / "sample"
WORD_RE = re.compile(r"[A-Za-z]{7,}")
CLOCK = "2026-11-27T09:00:00.000Z"


def sample_files() -> dict[str, str]:
    """Every file of the bundled sample memory, by repository path."""
    root = SAMPLE / "memory"
    return {
        f"memory/{p.relative_to(root).as_posix()}": p.read_text("utf-8")
        for p in sorted(root.rglob("*"))
        if p.is_file() and not p.name.startswith(".")
    }


def seed_sample(backend: Backend, clock: FixedClock) -> None:
    """The sample memory plus a stored search index, as one seed and one index commit."""
    backend.seed(dict(sample_files()))
    batch = WriteBatch.open(backend.storage)
    refresh_index(batch, clock, full=True)
    batch.commit("Build the search index")


def tree(storage: Storage) -> dict[str, str]:
    """Every file under memory/ as a fresh snapshot reads it."""
    snap = storage.snapshot()
    return {p.value: snap.read(p) or "" for p in snap.list(MEMORY)}


def own_words(files: dict[str, str], slice_id: str, turn_id: str | None = None) -> set[str]:
    """Words of a slice (or one exchange) found nowhere that is meant to survive its forgetting:
    no other slice's conversation, no card line that does not cite it."""
    prefix = slice_dir(slice_id).value + "/"
    if turn_id is None:
        mine = "\n".join(
            t for p, t in files.items() if p.startswith(prefix) and not p.endswith("previously.md")
        )
    else:
        core = files[prefix + "timeline/core.md"]
        mine = "\n".join(_turn_texts(core, turn_id))
    refs = (slice_rel(slice_id), slice_id)
    survivors: list[str] = []
    for path, text in files.items():
        if path.startswith(prefix) and turn_id is None:
            continue
        if path.endswith("previously.md"):
            survivors.extend(line for line in text.splitlines() if not any(r in line for r in refs))
        elif path.endswith(("core.md", "agent.md", "appendix.md", "config.json")):
            if turn_id is not None and path == prefix + "timeline/core.md":
                survivors.append(_strip_turn(text, turn_id))
            elif not (turn_id is not None and path == prefix + "timeline/agent.md"):
                survivors.append(text)
    rest = "\n".join(survivors)
    return {w for w in set(WORD_RE.findall(mine)) if w not in rest}


def _turn_texts(core: str, turn_id: str) -> list[str]:
    blocks = re.split(r"^## Turn ", core, flags=re.M)
    return [b for b in blocks if b.startswith(turn_id + " ")]


def _strip_turn(core: str, turn_id: str) -> str:
    """What stays of a core.md: the other turns and the frontmatter but its (cleared) marks."""
    blocks = re.split(r"^## Turn ", core, flags=re.M)
    s = parse_core_md(core)
    kept = [*s.tags, *s.open_loops, *s.decisions, s.evolution_summary]
    return "\n".join([*(b for b in blocks[1:] if not b.startswith(turn_id + " ")), *kept])


def grep(files: dict[str, str], words: set[str]) -> dict[str, list[str]]:
    """Which files still hold which of the words."""
    found = {p: sorted(w for w in words if w in t) for p, t in files.items()}
    return {p: ws for p, ws in found.items() if ws}


def core_path(slice_id: str) -> MemoryPath:
    return slice_dir(slice_id) / "timeline/core.md"
