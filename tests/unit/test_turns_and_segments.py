"""Turn ranges and the readSlice search/lines text beyond the vectors."""

from __future__ import annotations

import pytest

from core.memory.slice.segments import lines_output, read_slice_range, search_output, split_turns
from core.memory.slice.turns import NO_MATCH_NOTE, apply_range, count_turns, parse_turns

pytestmark = pytest.mark.unit

DOC = (
    "---\nslice_id: 2026-08-16-1000\n---\n"
    "## Turn t0 — 2026-08-16T10:00:00.000Z (user)\n\nzero\n\n"
    "## Turn t0 — 2026-08-16T10:01:00.000Z (agent)\n\none\n\n"
    "## Turn t1 — 2026-08-16T10:02:00.000Z (user)\n\ntwo\n"
)


@pytest.mark.parametrize(
    ("rng", "selected"),
    [
        ({"type": "last", "count": 0}, [0, 1, 2]),
        ({"type": "last", "count": -1}, [1, 2]),
        ({"type": "last"}, [0, 1, 2]),
        ({"type": "last", "count": 1}, [2]),
        ({"type": "turns", "indices": []}, [0, 1, 2]),
        ({"type": "turns", "indices": [2, 0, 9]}, [0, 2]),
        ({"type": "date", "after": "not a date"}, [0, 1, 2]),
        ({"type": "date", "after": "2026-08-16T10:01:30Z"}, [2]),
        (None, [0, 1, 2]),
    ],
)
def test_ranges(rng: dict | None, selected: list[int]) -> None:
    assert apply_range(DOC, rng).selected == selected


def test_empty_selection_says_so() -> None:
    result = apply_range(DOC, {"type": "date", "after": "2030-01-01T00:00:00Z"})
    assert result.text.endswith("---\n\n" + NO_MATCH_NOTE)


def test_counts_agree() -> None:
    assert count_turns(DOC) == len(parse_turns(DOC)) == 3


def test_lines_text() -> None:
    doc = "l1\nl2\nl3"
    assert lines_output(doc, 2, 3, "S") == "Lines 2-3 of S:\n\nl2\nl3"
    assert lines_output(doc, 0, 9, "S") == "Lines 1-3 of S (clamped):\n\nl1\nl2\nl3"
    assert lines_output(doc, 3, 1, "S") == "Lines 3-1 of S (clamped):\n\n(empty range)"
    assert lines_output(doc, None, 2, "S") == "ERROR: Invalid line range None-2 in S."


def test_search_text_and_dispatch() -> None:
    segs = split_turns(DOC)
    assert search_output(DOC, segs, ["ONE"], "S", 0).startswith(
        "Matched 1 segment for [ONE] in S:\n\n## Turn t0"
    )
    assert read_slice_range(DOC, "S", {"type": "search", "keywords": ["nothing"]}).startswith(
        "No segments matched keywords [nothing] in S — full content returned:"
    )
    assert read_slice_range(DOC, "S", None) == DOC
    assert read_slice_range(DOC, "S", {"type": "lines", "start": 1, "end": 1}) == "Lines 1-1 of S:\n\n---"


def test_fast_header_scan_matches_the_plain_regex() -> None:
    """The slice parser's find-based scan finds exactly what the line-anchored regex finds."""
    import random

    from core.memory.slice.turns import SLICE_HEADER_RE, slice_turn_spans

    pieces = ["## Turn a — t (user)", "## Turn 1 — x (agent)", " ", "\n", "\r", "x", "## Turn ", "\u2028"]
    pieces += ["## Turn b — t (user) extra", "—", "(user)"]
    rng = random.Random(7)
    for _ in range(5000):
        body = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 12)))
        expected = [(m.start(), m.end()) for m in SLICE_HEADER_RE.finditer(body)]
        assert [(s.header_start, s.header_end) for s in slice_turn_spans(body)] == expected, repr(body)
