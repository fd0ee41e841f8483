"""Frontmatter framing stays our own splitter's (core/memory/formats/matter.py), not the
python-frontmatter package's: on each case below that package strips, re-reads or refuses what
gray-matter (and so the original) keeps. docs/FORMAT.md says why."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.memory.formats import matter

pytestmark = pytest.mark.unit


@pytest.mark.parametrize(
    ("text", "data", "body"),
    [
        # python-frontmatter strips the body: the blank line and the indent are gone there.
        ("---\ntitle: a\n---\n\n  an indented line\n\n", {"title": "a"}, "\n  an indented line\n\n"),
        ("---\ntitle: a\n---\nbody\n", {"title": "a"}, "body\n"),
        # It opens at `----`; gray-matter does not.
        ("----\ntitle: a\n----\nbody\n", {}, "----\ntitle: a\n----\nbody\n"),
        # It closes only at a line of dashes; gray-matter at the first `\n---`.
        ("---\ntitle: a\n---x\nmore: 1\n---\nbody", {"title": "a"}, "x\nmore: 1\n---\nbody"),
        ("---\ntitle: a\n--- \nbody", {"title": "a"}, " \nbody"),
        # It reads an unquoted date as a date and fails on a `yes:` key; here both stay text.
        ("---\nwhen: 2026-01-02\n---\nb", {"when": "2026-01-02"}, "b"),
        ("---\nyes: on\n---\nb", {"yes": "on"}, "b"),
    ],
)
def test_framing_follows_gray_matter(text: str, data: dict[str, Any], body: str) -> None:
    split = matter.split(text)
    assert (matter.load(split), split.body) == (data, body)


@given(st.text(max_size=200))
@settings(max_examples=300, deadline=None)
def test_any_body_comes_back_byte_for_byte(body: str) -> None:
    text = matter.stringify({"title": "a"}, body)
    split = matter.split(text)
    assert matter.load(split) == {"title": "a"}
    assert split.body == matter.with_final_newline(body)
