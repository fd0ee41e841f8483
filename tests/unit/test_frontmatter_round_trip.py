"""Any text as a frontmatter value comes back exactly: last key, in a list, in a slice's core.md.

gray-matter's trim loses the line breaks at the end of a last value; we keep them
(core/memory/formats/matter.py, docs/FORMAT.md "Frontmatter").
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.memory.formats import matter
from core.memory.slice.model import Slice, parse_core_md, render_core_md

pytestmark = pytest.mark.unit

# Text biased towards what decides the YAML style: line breaks and blank space at the ends.
ENDS = st.sampled_from(["", "\n", "\n\n", " ", " \n", "\t", "\r\n", "\u2028", " \n\n "])
TEXT = st.builds(lambda a, b, c: a + b + c, ENDS, st.text(max_size=40), ENDS)


@given(TEXT, TEXT)
@settings(max_examples=400, deadline=None)
def test_any_value_round_trips_through_the_frontmatter(first: str, last: str) -> None:
    for data in ({"k": last}, {"a": first, "k": last}, {"k": [first, last]}, {"k": [last], "z": first}):
        assert matter.load(matter.split(matter.stringify(data, "body"))) == data


@given(TEXT)
@settings(max_examples=300, deadline=None)
def test_a_slice_keeps_its_last_values_whole(text: str) -> None:
    s = Slice(slice_id="2026-01-01-0000", start="2026-01-01T00:00:00.000Z", timezone="UTC")
    s.status, s.end, s.closed_by = "closed", "2026-01-01T00:30:00.000Z", "time_cap"
    s.focus, s.summary, s.evolution_summary = text, text, text
    s.tags = [text] if text else []
    back = parse_core_md(render_core_md(s))
    assert (back.focus, back.summary, back.evolution_summary) == (text, text, text)
    assert back.tags == s.tags


def test_values_that_are_only_line_breaks() -> None:
    for value in ("\n", "\n\n", " \n", "a\n", "a\n\n"):
        text = matter.stringify({"focus": "f", "summary": value}, "")
        assert matter.load(matter.split(text)) == {"focus": "f", "summary": value}, text


def test_files_without_such_a_value_are_the_original_bytes() -> None:
    """Only a last value with a blank end changes the framing; otherwise it is gray-matter's."""
    assert matter.stringify({"a": "x\n", "b": "z"}, "") == "---\na: |\n  x\nb: z\n---\n\n"
    assert matter.stringify({"a": "x\n"}, "") == "---\na: |\n  x\n---\n\n"  # same bytes, read whole now
    assert matter.stringify({"a": "x", "tags": []}, "b") == "---\na: x\ntags: []\n---\nb\n"
    assert matter.stringify({"a": "two\n\n"}, "") == "---\na: |+\n  two\n\n---\n\n"
