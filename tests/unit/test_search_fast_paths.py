"""The slice stage's fast paths rank exactly as the plain BM25F definition does.

`Engine._slice_scores` and `_weights` use element-wise maps, a whole column for common terms,
a copy for the first common term and tuples the garbage collector stops walking
(docs/RECALL.md "Speed"). `PlainEngine` scores one posting at a time, straight from the
formula; on generated memories and questions both must give the same hits, relevances and
reasons, float for float.
"""

from __future__ import annotations

import gc
from array import array
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.search.corpus import Corpus
from core.search.engine import HEAD_WEIGHT, K1, Engine, idf
from core.search.reader import read_slice
from core.search.segment import Segment, SegmentView, analyze, fingerprint
from core.search.tokenize import query_terms
from tests.fakes.slices import slice_text

pytestmark = pytest.mark.unit

NOW = datetime(2026, 8, 11, 11, 15, tzinfo=UTC)
UTC_ZONE = ZoneInfo("UTC")
# A few words every slice is likely to hold (the whole-column path) and rarer ones (scattered).
COMMON = ["garden", "coffee", "sister", "project"]
RARE = ["beagle", "lisbon", "violin", "tax", "marathon", "pottery", "rain", "novel"]
WORDS = COMMON + RARE


class PlainEngine(Engine):
    """The slice stage from its definition: one posting at a time, terms in question order."""

    def _slice_scores(self, terms: list[str]) -> list[float]:
        c = self.corpus
        head_norm, body_norm = self._norms()
        scores = [0.0] * len(c.ids)
        for term in terms:
            post = c.postings(term)
            w = idf(c.n, len(post))
            for d, h, b in zip(post.docs, post.heads, post.bodies, strict=True):
                x = HEAD_WEIGHT * (h / head_norm[d]) + b / body_norm[d] if h else b / body_norm[d]
                scores[d] += w * (x * (K1 + 1) / (x + K1))
        return scores


_TURN = st.lists(st.sampled_from(WORDS), min_size=1, max_size=12).map(" ".join)
_SLICE = st.tuples(
    st.lists(_TURN, min_size=1, max_size=6),
    st.lists(st.sampled_from(WORDS), max_size=2),  # tags: the head
)


def _corpus(
    slices: list[tuple[list[str], list[str]]],
    split: int,
    hidden: set[int],
    files: tuple[bool, bool] = (True, False),
) -> Corpus:
    """Two segments (the first `split` slices, the rest), `hidden` slices left out as stale;
    `files` says which are read back from their file (else held in memory, as the query-time
    overlay is)."""
    start = datetime(2026, 1, 1, tzinfo=UTC)
    docs = []
    for i, (turns, tags) in enumerate(slices):
        sid = (start + timedelta(days=3 * i)).strftime("%Y-%m-%d-%H%M")
        roles = [("user" if j % 2 == 0 else "agent", text) for j, text in enumerate(turns)]
        text = slice_text(sid, roles, tags=tags)
        docs.append(analyze(read_slice(sid, text), fingerprint(text)))
    split = min(split, len(docs))
    segments = [Segment.build("a", docs[:split]), Segment.build("b", docs[split:])]
    views = [
        SegmentView.decode(seg.encode()) if file else SegmentView.of(seg)
        for seg, file in zip(segments, files, strict=True)
    ]
    skip = {(0, i) if i < split else (1, i - split) for i in hidden if i < len(docs)}
    return Corpus(views, skip)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(_SLICE, min_size=1, max_size=24),
    st.integers(0, 24),
    st.sets(st.integers(0, 23), max_size=3),
    st.lists(st.lists(st.sampled_from(WORDS), min_size=1, max_size=4).map(" ".join), min_size=1, max_size=4),
)
def test_the_fast_slice_stage_ranks_as_the_plain_formula(
    slices: list[tuple[list[str], list[str]]], split: int, hidden: set[int], questions: list[str]
) -> None:
    fast = Engine(_corpus(slices, split, hidden))
    plain = PlainEngine(_corpus(slices, split, hidden))
    for question in questions + questions:  # the second time every term's weights are cached
        terms = query_terms(question)
        assert fast._slice_scores(terms) == plain._slice_scores(terms)
        for k in (1, 5, 50):
            got = [h.to_dict() for h in fast.search(question, k, NOW, UTC_ZONE)]
            assert got == [h.to_dict() for h in plain.search(question, k, NOW, UTC_ZONE)]


@settings(max_examples=60, deadline=None)
@given(
    st.lists(_SLICE, min_size=1, max_size=30),
    st.integers(0, 30),
    st.sets(st.integers(0, 29), max_size=3),
    st.lists(st.lists(st.sampled_from(WORDS), min_size=1, max_size=4).map(" ".join), min_size=1, max_size=4),
)
def test_the_file_layout_answers_as_the_segments_held_in_memory(
    slices: list[tuple[list[str], list[str]]], split: int, hidden: set[int], questions: list[str]
) -> None:
    """Sparse and by-row terms, count bytes and text pieces, read from files or held in memory:
    the same hits, relevances and reasons."""
    from_files = Engine(_corpus(slices, split, hidden, (True, True)))
    in_memory = Engine(_corpus(slices, split, hidden, (False, False)))
    for question in questions:
        for k in (3, 50):
            got = [h.to_dict() for h in from_files.search(question, k, NOW, UTC_ZONE)]
            assert got == [h.to_dict() for h in in_memory.search(question, k, NOW, UTC_ZONE)]


def test_a_common_term_scores_every_slice_as_the_plain_formula() -> None:
    slices = [([f"garden coffee {w}"], ["garden"] if i % 3 == 0 else []) for i, w in enumerate(WORDS * 3)]
    fast = Engine(_corpus(slices, 10, {4}))
    plain = PlainEngine(_corpus(slices, 10, {4}))
    for terms in (["garden"], ["garden", "coffe"], ["beagl", "garden"], ["lisbon"]):
        assert fast._slice_scores(terms) == plain._slice_scores(terms)


def test_cached_postings_are_not_walked_by_the_garbage_collector() -> None:
    slices: list[tuple[list[str], list[str]]] = [([f"garden coffee {w}"], []) for w in WORDS * 4]
    engine = Engine(_corpus(slices, 20, set()))
    engine.search("garden coffee violin", 5, NOW, UTC_ZONE)
    gc.collect()
    for term in ("garden", "coffe", "violin"):
        post = engine.corpus.postings(term)
        scored = post.weights if post.weights is not None else post.dense  # common terms: dense
        assert scored is not None
        assert all(isinstance(col, array) for col in (post.docs, post.heads, post.bodies))  # no objects
        parts = [span.part for span in post.spans]
        columns = [col for p in parts for col in (p.rows, p.heads, p.bodies, p.wins)]
        assert all(isinstance(col, array) for col in columns), term
        for p in parts:
            p.counts(0, 1)  # the turns loaded, as a passage loads them
        turns = [getattr(p.turns, "_pieces", None) or getattr(p.turns, "_data", None) for p in parts]
        assert all(turns) and not any(gc.is_tracked(col) for col in [scored, *turns]), term
    assert not any(gc.is_tracked(norms) for norms in engine._norms())
