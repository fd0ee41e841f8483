"""Ranking: BM25F over each slice's head and turns, best-passage BM25, and the time layer.

score(slice) = ½·BM25F(slice)/max + ½·best passage/max + ½·time fit + a small recency prior.
A passage is three consecutive turns (the question, the answer and what followed), so a
slice where the terms meet in one exchange beats one where they are scattered. Passage
scoring runs on the best `CANDIDATES` slices of the first stage plus every slice the dates
point at. The weights were chosen on the LoCoMo dev conversations (docs/RECALL.md).
"""

from __future__ import annotations

import heapq
import math
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from itertools import compress, islice
from operator import add, truediv
from zoneinfo import ZoneInfo

from core.search.corpus import Corpus
from core.search.postings import WINDOW_TURNS, window_sums
from core.search.termpostings import TermPostings
from core.search.timeparse import parse_time
from core.search.tokenize import query_terms, tokenize, words
from core.search.window import Anchor, TimeWindow

K1 = 1.2
B = 0.75
HEAD_WEIGHT = 2.0
SLICE_SHARE = 0.5
TIME_WEIGHT = 0.5
RECENCY_WEIGHT = 0.01
# A term in at least 1/DENSE_SHARE of the documents is added as a whole column (one C-level
# add per document) rather than scattered (four per posting).
DENSE_SHARE = 4
CANDIDATES = 100  # passage-scored slices; docs/RECALL.md "Measured" has the measurements


@dataclass(frozen=True)
class Hit:
    """A recall pointer: which slice, how relevant (0..1), and why."""

    slice_id: str
    relevance: float
    reason: str

    def to_dict(self) -> dict[str, object]:
        return {"slice_id": self.slice_id, "relevance": self.relevance, "reason": self.reason}


def _always(doc: int) -> bool:
    return True


# Slice ids are UTC minutes: a window's neighbourhood in ids, wide enough for any timezone and
# for the slack `time_fit` gives after (two weeks) and before (three days) a window.
_NEAR_BEFORE = timedelta(days=5)
_NEAR_AFTER = timedelta(days=16)


def _near(windows: list[TimeWindow]) -> tuple[str, str] | None:
    """The slice-id range outside which no window can fit (None: some window is open-ended)."""
    if any(w.start is None or w.end is None for w in windows):
        return None
    lo = min(w.start for w in windows if w.start) - _NEAR_BEFORE
    hi = max(w.end for w in windows if w.end) + _NEAR_AFTER
    return lo.isoformat(), hi.isoformat() + "~"


def idf(n: int, df: int) -> float:
    """BM25 inverse document frequency (never negative)."""
    return math.log(1.0 + (n - df + 0.5) / (df + 0.5))


def time_fit(w: TimeWindow, day: date, today: date) -> float:
    """How well a slice dated `day` fits window `w` (0..1).

    Inside counts fully. Events are often told a little later, so a "during" window keeps some
    weight for a week or two after it ends, and a little for plans made just before it.
    """
    if w.kind == "recent":
        return 0.5 + 0.5 * max(0.0, 1 - (today - day).days / 30) if w.contains(day) else 0.0
    if w.contains(day):
        return 1.0
    if w.kind != "during" or w.start is None or w.end is None:
        return 0.0
    if day > w.end:
        slack = max(7, min(14, (w.end - w.start).days + 1))
        return 0.7 * max(0.0, 1 - (day - w.end).days / slack)
    return 0.5 * max(0.0, 1 - (w.start - day).days / 3)


class Engine:
    """Answers questions over one corpus (reuse it across questions: postings are cached)."""

    def __init__(self, corpus: Corpus) -> None:
        self.corpus = corpus
        self._norm_cache: tuple[Sequence[float], Sequence[float]] | None = None

    def search(
        self,
        question: str,
        k: int,
        now: datetime,
        tz: ZoneInfo,
        keep: Callable[[int], bool] = _always,
        within: Callable[[str], bool] | None = None,
    ) -> list[Hit]:
        """The `k` best slices for `question` that `keep` accepts, best first.

        `within` (a slice id test) narrows the search itself, not only its top `k`: a filter that
        keeps few slices still gets its best ones, however low they rank over the whole memory.
        """
        tq = parse_time(question, now, tz)
        windows = list(tq.windows) + self._anchor_windows(tq.anchors, tz)
        today = now.astimezone(tz).date()
        docs = self.corpus.live_docs()
        allowed: set[int] | None = None
        if within is not None:
            ids = self.corpus.ids
            docs = [d for d in docs if within(ids[d])]
            allowed = kept = set(docs)
            outer = keep
            keep = lambda d: d in kept and outer(d)  # noqa: E731
        fits = self._fits(docs, windows, tz, today)
        # No slice lies near the dates named: the date words may be a duration told in the
        # text ("friends for 4 years"), so they count as words instead.
        terms, surface = _question_terms(question if windows and not fits else tq.rest)
        slice_scores = self._slice_scores(terms)
        if allowed is not None:
            slice_scores = [score if d in allowed else 0.0 for d, score in enumerate(slice_scores)]
        pool = _top(slice_scores, CANDIDATES)
        pool = list(dict.fromkeys(pool + [d for d, fit in fits.items() if fit > 0]))
        if not terms and not windows:
            pool = docs
        passages = self._passage_scores(terms, pool)
        final = self._fuse(pool, slice_scores, passages, fits, tz, today)
        ordered = sorted(final, key=lambda d: (-final[d], self.corpus.ids[d]))
        ranked = list(islice((d for d in ordered if keep(d)), k))
        top = final[ranked[0]] if ranked and final[ranked[0]] > 0 else 1.0
        return [self._hit(d, final[d] / top, terms, surface, passages, windows, fits, tz) for d in ranked]

    # ------------------------------------------------------------------ stages

    def _slice_scores(self, terms: list[str]) -> list[float]:
        """BM25F of every document (0.0 where no term occurs), indexed by document number."""
        c = self.corpus
        scores = [0.0] * len(c.ids)
        fresh = True  # every score still 0.0, and 0.0 + x is exactly x
        for term in terms:
            post = c.postings(term)
            if not post:
                continue
            if DENSE_SHARE * len(post) >= len(scores):  # a common term: add its whole column
                dense = self._dense(post)
                scores = list(dense) if fresh else list(map(add, scores, dense))
                fresh = False
                continue
            fresh = False
            # scores[doc] += weight for each of the term's documents, as C-level maps.
            docs = post.docs
            summed = map(add, map(scores.__getitem__, docs), self._weights(post))
            deque(map(scores.__setitem__, docs, summed), maxlen=0)
        return scores

    def _weights(self, post: TermPostings) -> Sequence[float]:
        """A term's BM25F share of each of its documents' scores (computed once per term)."""
        if post.weights is None:
            post.weights = self._term_weights(post, by_doc=False)
        return post.weights

    def _dense(self, post: TermPostings) -> Sequence[float]:
        """A common term's weights by document number (0.0 where it is absent), kept instead of
        `_weights` (one cached column, not two)."""
        if post.dense is None:
            post.dense = self._term_weights(post, by_doc=True)
        return post.dense

    def _term_weights(self, post: TermPostings, by_doc: bool) -> tuple[float, ...]:
        """The term's weights in its documents' order, or `by_doc` over every document.

        The body share by element-wise maps (C loops), the head term added only where the head
        holds the term (`2·(0/n) + x` is exactly `x`), then the saturation as one comprehension
        (measured faster than four chained maps on 3.11). By document, the turn counts come
        laid out by document number, and an absent document's `w·(0·k1)/(0+K1)` is 0.0.
        """
        c = self.corpus
        head_norm, body_norm = self._norms()
        if by_doc:
            bodies: Sequence[int] = post.bodies_by_doc(len(c.ids))
            xs = list(map(truediv, bodies, body_norm))
            for d, h in post.head_counts():  # xs[d] is bodies[d] / body_norm[d] already
                xs[d] = HEAD_WEIGHT * (h / head_norm[d]) + xs[d]
        else:
            docs, heads, bodies = post.docs, post.heads, post.bodies
            xs = list(map(truediv, bodies, map(body_norm.__getitem__, docs)))
            for i in compress(range(len(heads)), heads):  # the documents with it in the head
                d = docs[i]
                xs[i] = HEAD_WEIGHT * (heads[i] / head_norm[d]) + bodies[i] / body_norm[d]
        w, k1 = idf(c.n, len(post)), K1 + 1
        return tuple([w * (x * k1 / (x + K1)) for x in xs])

    def _norms(self) -> tuple[Sequence[float], Sequence[float]]:
        """BM25 length normalisation of every document's head and turns (computed once)."""
        if self._norm_cache is None:
            c = self.corpus
            avg_head, avg_body = c.avg_head or 1.0, c.avg_body or 1.0
            self._norm_cache = (
                tuple([1 - B + B * n / avg_head for n in c.head_len]),
                tuple([1 - B + B * n / avg_body for n in c.body_len]),
            )
        return self._norm_cache

    def _passage_scores(self, terms: list[str], pool: list[int]) -> dict[int, tuple[float, int]]:
        """Best passage score and its first turn (0-based) for each pooled slice."""
        c = self.corpus
        posts = [c.postings(t) for t in terms]
        weighted = [(idf(c.n_windows, max(1, p.window_df)), p) for p in posts if p]
        best: dict[int, tuple[float, int]] = {}
        for doc in pool:
            n = c.n_turns(doc)
            hits = [(w, counts) for w, p in weighted if (counts := p.turn_counts(doc, n))]
            if hits:
                best[doc] = _best_passage(c.window_norms(doc, B), hits)
        return best

    def _fits(
        self, docs: list[int], windows: list[TimeWindow], tz: ZoneInfo, today: date
    ) -> dict[int, float]:
        if not windows:
            return {}
        out = {}
        near = _near(windows)
        for doc in docs:
            if near is not None and not near[0] <= self.corpus.ids[doc] <= near[1]:
                continue  # far from every window: its fit is 0 without a date computation
            day = self.corpus.local_date(doc, tz)
            fit = max(time_fit(w, day, today) for w in windows)
            if fit > 0:
                out[doc] = fit
        return out

    def _fuse(
        self,
        pool: list[int],
        slice_scores: list[float],
        passages: dict[int, tuple[float, int]],
        fits: dict[int, float],
        tz: ZoneInfo,
        today: date,
    ) -> dict[int, float]:
        top_s = max((slice_scores[d] for d in pool), default=0.0) or 1.0
        matched = slice_scores.count(0.0) < len(slice_scores)  # some slice holds a term
        top_p = max((v[0] for v in passages.values()), default=0.0) or 1.0
        final = {}
        for doc in pool:
            text = SLICE_SHARE * slice_scores[doc] / top_s
            text += (1 - SLICE_SHARE) * passages.get(doc, (0.0, 0))[0] / top_p
            age = (today - self.corpus.local_date(doc, tz)).days
            recency = RECENCY_WEIGHT * math.exp(-max(0, age) / 180)
            score = text + TIME_WEIGHT * fits.get(doc, 0.0)
            if score > 0 or not matched:
                final[doc] = score + recency
        return final

    def _anchor_windows(self, anchors: list[Anchor], tz: ZoneInfo) -> list[TimeWindow]:
        """'after the move' → the date of the slice that best matches 'the move', open-ended."""
        out = []
        for anchor in anchors:
            scores = self._slice_scores(list(dict.fromkeys(tokenize(anchor.text))))
            best = _top(scores, 1)
            if not best:
                continue
            day = self.corpus.local_date(best[0], tz)
            phrase = f"{anchor.direction} {anchor.text}"
            if anchor.direction == "before":
                out.append(TimeWindow(None, day, "before", phrase))
            else:
                out.append(TimeWindow(day, None, "after", phrase))
        return out

    # ------------------------------------------------------------------ output

    def _hit(
        self,
        doc: int,
        share: float,
        terms: list[str],
        surface: dict[str, str],
        passages: dict[int, tuple[float, int]],
        windows: list[TimeWindow],
        fits: dict[int, float],
        tz: ZoneInfo,
    ) -> Hit:
        c = self.corpus
        found = [t for t in terms if doc in c.postings(t)]
        mass = sum(idf(c.n, len(c.postings(t)) or c.n) for t in terms)
        coverage = sum(idf(c.n, len(c.postings(t))) for t in found) / mass if mass else fits.get(doc, 0.0)
        relevance = round(min(1.0, 0.5 * share + 0.5 * coverage), 3)
        return Hit(c.ids[doc], relevance, _reason(doc, found, surface, passages, windows, fits, c, tz))


def _top(scores: list[float], k: int) -> list[int]:
    """The documents of the `k` highest positive scores, best first (ties: lower number first)."""
    positive = len(scores) - scores.count(0.0)
    if positive > k:
        floor = heapq.nlargest(k, scores)[-1]
        docs = list(compress(range(len(scores)), map(floor.__le__, scores)))
    else:
        docs = list(compress(range(len(scores)), map((0.0).__lt__, scores)))
    docs.sort(key=lambda d: -scores[d])
    return docs[:k]


def _best_passage(norms: list[float], hits: list[tuple[float, list[int]]]) -> tuple[float, int]:
    """The best passage's BM25 score and first turn, given each term's weight and turn counts."""
    scores = [0.0] * len(norms)
    k1 = K1 + 1
    for w, counts in hits:
        for a, tf in enumerate(window_sums(counts)):
            if tf:
                x = tf / norms[a]
                scores[a] += w * x * k1 / (x + K1)
    best = max(scores)
    return (best, scores.index(best)) if best > 0 else (0.0, 0)


def _question_terms(text: str) -> tuple[list[str], dict[str, str]]:
    """The question's search terms, and the word each was first written as (for reasons)."""
    surface: dict[str, str] = {}
    for w in words(text):
        for t in tokenize(w):
            surface.setdefault(t, w)
    return query_terms(text), surface


def _reason(
    doc: int,
    found: list[str],
    surface: dict[str, str],
    passages: dict[int, tuple[float, int]],
    windows: list[TimeWindow],
    fits: dict[int, float],
    c: Corpus,
    tz: ZoneInfo,
) -> str:
    parts = []
    if found:
        quoted = ", ".join(f'"{surface.get(t, t)}"' for t in found[:6])
        where = ""
        if doc in passages:
            first = passages[doc][1] + 1
            last = min(first + WINDOW_TURNS - 1, c.n_turns(doc))
            where = f" (turns {first}–{last})" if last > first else f" (turn {first})"
        parts.append(f"matched {quoted}{where}")
    if windows and fits.get(doc, 0) > 0:
        day = c.local_date(doc, tz).isoformat()
        phrases = "; ".join(dict.fromkeys(w.phrase for w in windows))
        parts.append(f"{day} fits “{phrases}”")
    if not parts:
        parts.append("no term matched; ranked by date")
    return " · ".join(parts)
