"""Where one term occurs across the corpus: its per-segment parts, read as whole columns.

A corpus gathers a term's `TermPart` from each segment (`core/search/termpart.py`). The slice
stage reads it either as sparse columns in ascending document order (a rare term: documents,
head and turn counts) or, for a common term, as its turn counts laid out by document number —
a by-row part is copied in with one slice assignment, no per-document Python work. Turn pieces
are split only for the documents whose passages are scored. Hidden documents (`dead`: stale or
deleted copies of a slice) count nowhere.

Everything kept is an array or a tuple: cached lists of 10,000 slices made every later
garbage collection walk them (a 22 ms pause in one question, docs/RECALL.md).
"""

from __future__ import annotations

from array import array
from bisect import bisect_left, bisect_right
from collections import deque
from collections.abc import Iterable, Sequence, Set
from dataclasses import dataclass, field
from itertools import chain, compress, repeat
from operator import add

from core.search.termpart import SPARSE, TermPart


@dataclass
class _Span:
    base: int  # document number of the segment's first row
    rows: int  # the segment's slice count
    part: TermPart


@dataclass
class TermPostings:
    """A term's postings over every segment, in document order.

    `weights` caches the term's slice-stage score per document of `docs` and `dense` its
    score by document number (both set by the engine, which owns the formula), so a term asked
    for again costs a sum, not a rescoring.
    """

    dead: Set[int] = field(default_factory=frozenset)
    spans: list[_Span] = field(default_factory=list)
    df: int = 0  # live documents holding the term
    window_df: int = 0  # passages holding the term, over the live documents
    weights: Sequence[float] | None = field(default=None, repr=False)
    dense: Sequence[float] | None = field(default=None, repr=False)
    _sparse: tuple[array[int], array[int], array[int]] | None = field(default=None, repr=False)
    _bases: list[int] = field(default_factory=list, repr=False)

    def add(self, part: TermPart, base: int, rows: int) -> None:
        """Add one segment's part; segments must come in document order."""
        self.spans.append(_Span(base, rows, part))
        self._bases.append(base)
        self.df += part.df
        self.window_df += sum(part.wins)
        for doc in self.dead:
            if base <= doc < base + rows and (at := _index(part, doc - base)) is not None:
                self.df -= 1
                self.window_df -= part.wins[at]

    def __len__(self) -> int:
        return self.df

    def __contains__(self, doc: object) -> bool:
        return isinstance(doc, int) and self._find(doc) is not None

    def _find(self, doc: int) -> tuple[TermPart, int] | None:
        """The part holding `doc` and its index in the part's columns; None when absent or dead."""
        k = bisect_right(self._bases, doc) - 1
        if k < 0 or doc in self.dead:
            return None
        span = self.spans[k]
        if doc - span.base >= span.rows:
            return None
        at = _index(span.part, doc - span.base)
        return None if at is None else (span.part, at)

    def _columns(self) -> tuple[array[int], array[int], array[int]]:
        if self._sparse is None:
            docs, heads, bodies = array("q"), array("q"), array("q")
            for s in self.spans:
                p = s.part
                rows = p.rows if p.form == SPARSE else p.present_rows()
                docs.extend(map(add, rows, repeat(s.base)))
                if p.form == SPARSE:
                    heads.extend(iter(p.heads))  # an array of another width: by value
                    bodies.extend(iter(p.bodies))
                else:
                    head_of = dict(zip(p.rows, p.heads, strict=True))
                    heads.extend([head_of.get(r, 0) for r in rows])
                    bodies.extend(map(p.bodies.__getitem__, rows))
            if self.dead and not self.dead.isdisjoint(docs):
                keep = [d not in self.dead for d in docs]
                docs, heads, bodies = (array("q", compress(col, keep)) for col in (docs, heads, bodies))
            self._sparse = docs, heads, bodies
        return self._sparse

    @property
    def docs(self) -> Sequence[int]:
        """The live documents holding the term, ascending."""
        return self._columns()[0]

    @property
    def heads(self) -> Sequence[int]:
        """The term's count in each of `docs`' heads."""
        return self._columns()[1]

    @property
    def bodies(self) -> Sequence[int]:
        """The term's count in each of `docs`' turns."""
        return self._columns()[2]

    def bodies_by_doc(self, n_docs: int) -> list[int]:
        """The term's turn count in every document (0 where absent or dead), by number."""
        laid = [0] * n_docs
        for s in self.spans:
            p = s.part
            if p.form == SPARSE:
                deque(map(laid.__setitem__, map(add, p.rows, repeat(s.base)), p.bodies), maxlen=0)
            else:
                laid[s.base : s.base + s.rows] = p.bodies
        for doc in self.dead:
            if doc < n_docs:
                laid[doc] = 0
        return laid

    def head_counts(self) -> Iterable[tuple[int, int]]:
        """(document, count) for each live document whose head holds the term, ascending."""
        pairs = chain.from_iterable(self._head_pairs(s) for s in self.spans)
        return [(d, h) for d, h in pairs if d not in self.dead] if self.dead else pairs

    @staticmethod
    def _head_pairs(s: _Span) -> Iterable[tuple[int, int]]:
        p = s.part
        pairs = zip(map(add, p.rows, repeat(s.base)), p.heads, strict=True)
        return compress(pairs, p.heads) if p.form == SPARSE else pairs

    def turn_counts(self, doc: int, n_turns: int) -> list[int] | None:
        """The term's count in each of a document's `n_turns` turns (None when no turn holds it)."""
        found = self._find(doc)
        if found is None:
            return None
        part, at = found
        return part.counts(at, n_turns)


def _index(part: TermPart, row: int) -> int | None:
    """Where segment row `row` sits in the part's columns; None when it does not hold the term."""
    if part.form == SPARSE:
        i = bisect_left(part.rows, row)
        return i if i < len(part.rows) and part.rows[i] == row else None
    if row < len(part.bodies) and part.bodies[row]:
        return row
    i = bisect_left(part.rows, row)
    return row if i < len(part.rows) and part.rows[i] == row else None
