"""doc_segments.json: readSlice `search` / `lines` segmenting, windows and tool text."""

from __future__ import annotations

import dataclasses

import pytest

from core.memory.segments import line_range, read_slice_range, search_segments, split_paragraphs, split_turns
from tests.conftest import load_vectors

V = load_vectors("doc_segments.json")
RAW = V["split_turns"]["raw"]
LABEL = "2026-07-24-1000"  # the docLabel the recorded outputs use
pytestmark = pytest.mark.conformance


def test_split_turns() -> None:
    assert split_turns(RAW) == V["split_turns"]["segments"]


@pytest.mark.parametrize("case", V["split_paragraphs"], ids=[repr(c["input"]) for c in V["split_paragraphs"]])
def test_split_paragraphs(case: dict) -> None:
    assert split_paragraphs(case["input"]) == case["segments"]


@pytest.mark.parametrize("case", V["search"], ids=[str(c["keywords"]) for c in V["search"]])
def test_search(case: dict) -> None:
    hits = search_segments(split_turns(RAW), case["keywords"], case["context"])
    assert [dataclasses.asdict(h) for h in hits] == case["hits"]
    rng = {"type": "search", "keywords": case["keywords"], "context": case["context"]}
    assert read_slice_range(RAW, LABEL, rng) == case["tool_output"]


@pytest.mark.parametrize("case", V["lines"], ids=[f"{c['start']}-{c['end']}" for c in V["lines"]])
def test_lines(case: dict) -> None:
    got = line_range(case["doc"], case["start"], case["end"])
    assert (got.content, got.clamped) == (case["content"], case["clamped"])
