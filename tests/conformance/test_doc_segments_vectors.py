"""doc_segments.json: readSlice `search` / `lines` segmenting, windows and tool text."""

from __future__ import annotations

import dataclasses

import pytest

from core.memory.slice.segments import (
    line_range,
    read_slice_range,
    search_segments,
    split_paragraphs,
    split_turns,
)
from tests.conformance.vectors import Case, shape, vectors

V = vectors("doc_segments.json")
LABEL = "2026-07-24-1000"  # the docLabel the recorded outputs use
pytestmark = pytest.mark.conformance
SPLIT = shape("split", "raw segments")


@pytest.mark.parametrize("case", V.cases("split_turns", SPLIT))
def test_split_turns(case: Case) -> None:
    assert split_turns(case["raw"]) == case["segments"]


@pytest.mark.parametrize("case", V.cases("split_paragraphs", shape("paragraphs", "input segments")))
def test_split_paragraphs(case: Case) -> None:
    assert split_paragraphs(case["input"]) == case["segments"]


@pytest.mark.parametrize(
    "case", V.cases("search", shape("search", "keywords context hits tool_output", "raw docLabel"))
)
def test_search(case: Case) -> None:
    """A search case reads its own `raw` when it has one, else the `split_turns` document."""
    raw = case["raw"] if "raw" in case else V.section("split_turns.raw")
    hits = search_segments(split_turns(raw), case["keywords"], case["context"])
    assert [dataclasses.asdict(h) for h in hits] == case["hits"]
    rng = {"type": "search", "keywords": case["keywords"], "context": case["context"]}
    assert read_slice_range(raw, case.get("docLabel", LABEL), rng) == case["tool_output"]


@pytest.mark.parametrize("case", V.cases("lines", shape("lines", "doc start end content clamped")))
def test_lines(case: Case) -> None:
    got = line_range(case["doc"], case["start"], case["end"])
    assert (got.content, got.clamped) == (case["content"], case["clamped"])
