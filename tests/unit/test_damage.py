"""Damaged slice files: read tolerantly, named, never taken for an empty slice (core/memory/damage.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.actions.check import check_core_md
from core.errors import DamagedFile, SliceFormatError
from core.memory import paths
from core.memory.catalog.recent import timeline
from core.memory.damage import damaged_slices, read_or_skip, read_text, slice_damage
from core.memory.slice.model import parse_core_md, salvage_turns
from core.memory.slice.view import read_slice_detail
from core.storage.local import LocalStorage
from core.storage.memory import InMemoryStorage

pytestmark = pytest.mark.unit

GOOD = (
    "---\nslice_id: 2026-08-01-0900\nstatus: closed\nstart: '2026-08-01T09:00:00.000Z'\n---\n"
    "## Turn a1 — 2026-08-01T09:00:00.000Z (user)\n\nHello\n\n"
    "## Turn a1 — 2026-08-01T09:00:05.000Z (agent)\n\nHi\n"
)
UNCLOSED = GOOD.replace("'\n---\n", "'\n", 1)


def test_unclosed_frontmatter_is_an_error_not_an_empty_slice() -> None:
    with pytest.raises(SliceFormatError, match="no closing `---`"):
        parse_core_md(UNCLOSED)
    assert [t.content for t in salvage_turns(UNCLOSED)] == ["Hello", "Hi"]
    found = check_core_md("core.md", UNCLOSED, "2026-08-01-0900")
    assert [f.severity for f in found] == ["error"] and "no closing" in found[0].message


def test_oversized_text_is_damaged_even_where_storage_does_not_refuse_it() -> None:
    path = paths.core_md("2026-08-01-0900")
    storage = InMemoryStorage.from_texts({path.value: GOOD + "x" * 1_000_001})
    with pytest.raises(DamagedFile, match=r"too large|over the"):
        read_text(storage.snapshot(), path)
    assert read_or_skip(storage.snapshot(), path) is None


def test_damaged_slices_are_listed_with_their_problem(tmp_path: Path) -> None:
    ids = ("2026-08-01-0900", "2026-08-02-0900", "2026-08-03-0900", "2026-08-04-0900")
    texts = [GOOD, UNCLOSED, GOOD.replace("status: closed", "status: [")]
    for sid, text in zip(ids, texts, strict=False):
        file = tmp_path / str(paths.core_md(sid))
        file.parent.mkdir(parents=True)
        file.write_text(text, encoding="utf-8")
    bad = tmp_path / str(paths.core_md(ids[3]))
    bad.parent.mkdir(parents=True)
    bad.write_bytes(GOOD.encode() + b"\xc3(")
    view = LocalStorage(tmp_path).snapshot()
    damage = damaged_slices(view)
    assert [d.path for d in damage] == [paths.core_md(sid).value for sid in ids[1:]]
    assert "not UTF-8" in damage[2].problem and "leaves it exactly as it is" in damage[2].problem
    assert slice_damage(view, paths.core_md(ids[0])) is None

    # Without a catalog the timeline lists every slice; the damaged ones say why they look empty.
    entries = {e["id"]: e for e in timeline(view)}
    assert set(entries) == set(ids) and "problem" not in entries[ids[0]]
    assert entries[ids[1]]["turn_count"] == 2 and "no closing" in entries[ids[1]]["problem"]
    assert entries[ids[3]]["start"] == "2026-08-04T09:00:00.000Z" and "UTF-8" in entries[ids[3]]["problem"]

    detail = read_slice_detail(view, ids[3])
    assert detail.slice.turns == [] and detail.problem and "UTF-8" in detail.problem
    assert bad.read_bytes() == GOOD.encode() + b"\xc3("
