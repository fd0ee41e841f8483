"""The timeline window: which slices a page gets, where they sit, and the month summary."""

from __future__ import annotations

import pytest

from core.errors import InvalidInput, NotFound
from core.memory.catalog.window import month_counts, window


def _entries(n: int) -> list[dict[str, object]]:
    out: list[dict[str, object]] = []
    for i in range(n):
        month, day = 1 + i // 28, 1 + i % 28
        day_id = f"2026-{month:02d}-{day:02d}"
        out.append({"id": f"{day_id}-1200", "start": f"{day_id}T12:00:00.000Z"})
    return out


def _ids(entries: list[dict[str, object]]) -> list[str]:
    return [str(e["id"]) for e in entries]


def test_without_an_anchor_the_newest_slices_come() -> None:
    entries = _entries(100)
    w = window(entries, limit=30)
    assert _ids(w.slices) == _ids(entries[70:]) and w.offset == 70 and w.total == 100


def test_before_and_after_page_without_overlap_or_gap() -> None:
    entries = _entries(100)
    seen = window(entries, limit=30)
    pages = [seen]
    while pages[-1].offset > 0:
        pages.append(window(entries, before=str(pages[-1].slices[0]["id"]), limit=30))
    got = [i for page in reversed(pages) for i in _ids(page.slices)]
    assert got == _ids(entries)
    assert _ids(window(entries, after=str(entries[89]["id"]), limit=30).slices) == _ids(entries[90:])


def test_a_slice_that_has_gone_still_has_neighbours() -> None:
    entries = _entries(10)
    gone = entries.pop(5)
    assert _ids(window(entries, before=str(gone["id"])).slices) == _ids(entries[:5])
    assert _ids(window(entries, after=str(gone["id"])).slices) == _ids(entries[5:])


def test_around_centres_the_slice_and_stays_inside() -> None:
    entries = _entries(100)
    assert window(entries, around=str(entries[50]["id"]), limit=10).offset == 45
    assert window(entries, around=str(entries[2]["id"]), limit=10).offset == 0
    assert window(entries, around=str(entries[99]["id"]), limit=10).offset == 90
    with pytest.raises(NotFound):
        window(entries, around="2030-01-01-0000")


def test_bad_windows_are_refused_in_words() -> None:
    with pytest.raises(InvalidInput, match="at most one"):
        window(_entries(3), before="2026-01-01-1200", around="2026-01-01-1200")
    with pytest.raises(InvalidInput, match="limit"):
        window(_entries(3), limit=0)


def test_months_count_every_slice_whatever_the_window() -> None:
    entries = _entries(60)
    assert month_counts(entries) == [("2026-01", 28), ("2026-02", 28), ("2026-03", 4)]
    assert window(entries, limit=1).months == month_counts(entries)
    assert window([]).slices == [] and window([]).months == []
