"""appendix.md: a rewrite of core.md moves what the format cannot hold, and never drops a word."""

from __future__ import annotations

from collections import Counter

import pytest

from core.errors import SliceFormatError
from core.memory.formats import matter
from core.memory.paths import appendix_md, core_md
from core.memory.slice.appendix import (
    TITLE,
    append_appendix,
    explain_unplaceable,
    find_unplaceable,
    rewrite_core_md,
)
from core.memory.slice.merge import append_turn
from core.memory.slice.model import Slice, Turn, parse_core_md, render_core_md
from core.storage.base import WriteBatch
from core.storage.memory import InMemoryStorage

pytestmark = pytest.mark.unit
NOW = "2026-08-11T12:00:00.000Z"
SID = "2026-08-11-1115"

MESSY = """---
slice_id: 2026-08-11-1115
status: active   # typed by hand
start: '2026-08-11T11:15:00.000Z'
summary: |
  # a heading inside a block scalar is text
open_loops:
  - Draft guide on the model: retention chain
---
a note someone left above the turns

## Turn a1 — 2026-08-11T11:15:00.000Z (user)

first, and then I typed ## Turn 9 in the middle
which drags this line along

## Turn b2 — 2026-08-11T11:16:00.000Z (agent) (edited)

reply under a broken header

## Turn c3 — 2026-08-11T11:17:00.000Z (user)

last
"""


def _words(text: str) -> Counter[str]:
    return Counter(text.split())


def test_well_formed_files_have_nothing_to_move() -> None:
    s = Slice(SID, start="2026-08-11T11:15:00.000Z", tags=["x"], turns=[Turn("a", "t", "user", "hi")])
    text = render_core_md(s)
    assert find_unplaceable(text) == []
    assert rewrite_core_md(text, parse_core_md(text), NOW) == (text, None)


def test_finds_every_kind_of_leftover_with_line_numbers() -> None:
    found = find_unplaceable(MESSY)
    assert found == [
        (3, "# typed by hand"),
        (7, "open_loops:"),
        (8, "  - Draft guide on the model: retention chain"),
        (10, "a note someone left above the turns"),
        (14, "## Turn 9 in the middle"),
        (15, "which drags this line along"),
        (17, "## Turn b2 — 2026-08-11T11:16:00.000Z (agent) (edited)"),
        (19, "reply under a broken header"),
    ]
    reasons = [u.reason for u in explain_unplaceable(MESSY)]
    assert "text before the first turn" in reasons


def test_rewrite_moves_leftovers_and_loses_no_word() -> None:
    s = parse_core_md(MESSY)
    s.turns.append(Turn("d4", "2026-08-11T11:18:00.000Z", "agent", "new reply"))
    core, moved = rewrite_core_md(MESSY, s, NOW)
    assert moved is not None and NOW in moved
    assert "a note someone left above the turns" in moved and "a note" not in core
    assert "# a heading inside a block scalar is text" in core
    old_body_words = _words(matter.split(MESSY).body)
    assert not old_body_words - (_words(core) + _words(moved))
    assert find_unplaceable(core) == []


def test_broken_yaml_is_never_rewritten() -> None:
    broken = "---\nslice_id: 2026-08-11-1115\nfocus: Decide: now\n---\n## Turn a — t (user)\n\nhi\n"
    with pytest.raises(SliceFormatError, match="line 3"):
        rewrite_core_md(broken, Slice(SID), NOW)
    storage = InMemoryStorage.from_texts({str(core_md(SID)): broken})
    batch = WriteBatch.open(storage)
    for change in append_turn(Turn("b", "t", "agent", "reply"), NOW).changes(SID):
        batch.changes.append(change)
    with pytest.raises(SliceFormatError):
        batch.commit("Turn b — agent response")
    assert storage.files == {core_md(SID): broken} and storage.commits == []


def test_appendix_written_in_the_same_commit_and_only_once() -> None:
    storage = InMemoryStorage.from_texts({str(core_md(SID)): MESSY})
    batch = WriteBatch.open(storage)
    batch.changes.extend(append_turn(Turn("d4", "t", "agent", "ok"), NOW).changes(SID))
    result = batch.commit("Turn d4 — agent response")
    assert set(result.written) == {core_md(SID), appendix_md(SID)}
    appendix = storage.files[appendix_md(SID)]
    assert appendix.startswith(TITLE) and appendix.count("## Moved from core.md") == 1
    # The next rewrite finds a clean file: nothing more is moved, the appendix is untouched.
    batch = WriteBatch.open(storage)
    batch.changes.extend(
        append_turn(Turn("e5", "t", "user", "more"), "2026-08-11T13:00:00.000Z").changes(SID)
    )
    assert batch.commit("Turn e5 — housekeeping").written == (core_md(SID),)
    assert storage.files[appendix_md(SID)] == appendix


def test_append_appendix_rule() -> None:
    first = append_appendix(None, "## Moved from core.md — x\n\nbody\n")
    assert first == TITLE + "\n## Moved from core.md — x\n\nbody\n"
    assert append_appendix(first + "\n\n\n", "## second\n") == first.rstrip() + "\n\n## second\n"


def test_fences_outgrow_backticks_in_moved_text() -> None:
    text = "---\nslice_id: x\n---\n```python\ncode\n```\n## Turn a — t (user)\n\nhi\n"
    _, moved = rewrite_core_md(text, parse_core_md(text), NOW)
    assert moved is not None and "````\n```python\ncode\n```\n````" in moved
