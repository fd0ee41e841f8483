"""Ranking: BM25F over each slice's head and turns, best-passage BM25, and the time layer.

score(slice) = ½·BM25F(slice)/max + ½·best passage/max + ½·time fit + a small recency prior.
A passage is three consecutive turns (the question, the answer and what followed), so a
slice where the terms meet in one exchange beats one where they are scattered. Passage
scoring runs on the best `CANDIDATES` slices of the first stage plus every slice the dates
point at. The weights were chosen on the LoCoMo dev conversations (docs/RECALL.md).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import date, datetime
from zoneinfo import ZoneInfo

from core.search.corpus import WINDOW_TURNS, Corpus, Posting, window_starts
from core.search.timeparse import parse_time
from core.search.tokenize import query_terms, tokenize, words
from core.search.window import Anchor, TimeWindow

K1 = 1.2
B = 0.75
HEAD_WEIGHT = 2.0
SLICE_SHARE = 0.5
TIME_WEIGHT = 0.5
RECENCY_WEIGHT = 0.01
CANDIDATES = 300


@dataclass(frozen=True)
class Hit:
    """A recall pointer: which slice, how relevant (0..1), and why."""

    slice_id: str
    relevance: float
    reason: str

    def to_dict(self) -> dict[str, object]:
        return {"slice_id": self.slice_id, "relevance": self.relevance, "reason": self.reason}


def idf(n: int, df: int) -> float:
    """BM25 inverse document frequency (never negative)."""
    return math.log(1.0 + (n - df + 0.5) / (df + 0.5))


def _saturate(tf: float) -> float:
    return tf * (K1 + 1) / (tf + K1) if tf > 0 else 0.0


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

    def search(self, question: str, k: int, now: datetime, tz: ZoneInfo) -> list[Hit]:
        """The `k` best slices for `question`, best first."""
        tq = parse_time(question, now, tz)
        terms = query_terms(tq.rest)
        surface: dict[str, str] = {}
        for w in words(tq.rest):
            for t in tokenize(w):
                surface.setdefault(t, w)
        windows = list(tq.windows) + self._anchor_windows(tq.anchors, tz)
        today = now.astimezone(tz).date()
        docs = self.corpus.live_docs()
        fits = self._fits(docs, windows, tz, today)
        slice_scores = self._slice_scores(terms)
        pool = sorted(slice_scores, key=lambda d: -slice_scores[d])[:CANDIDATES]
        pool = list(dict.fromkeys(pool + [d for d in docs if fits.get(d, 0) > 0]))
        if not terms and not windows:
            pool = docs
        passages = self._passage_scores(terms, pool)
        final = self._fuse(pool, slice_scores, passages, fits, tz, today)
        ranked = sorted(final, key=lambda d: (-final[d], self.corpus.docs[d].slice_id))[:k]
        top = final[ranked[0]] if ranked and final[ranked[0]] > 0 else 1.0
        return [self._hit(d, final[d] / top, terms, surface, passages, windows, fits, tz) for d in ranked]

    # ------------------------------------------------------------------ stages

    def _slice_scores(self, terms: list[str]) -> dict[int, float]:
        c = self.corpus
        scores: dict[int, float] = {}
        for term in terms:
            post = c.postings(term)
            if not post:
                continue
            weight = idf(c.n, len(post))
            for doc, p in post.items():
                meta = c.docs[doc]
                head = p.head / (1 - B + B * meta.head_len / (c.avg_head or 1.0))
                body = p.body / (1 - B + B * c.body_len[doc] / (c.avg_body or 1.0))
                scores[doc] = scores.get(doc, 0.0) + weight * _saturate(HEAD_WEIGHT * head + body)
        return scores

    def _passage_scores(self, terms: list[str], pool: list[int]) -> dict[int, tuple[float, int]]:
        """Best passage score and its first turn (0-based) for each pooled slice."""
        c = self.corpus
        weights = {t: idf(c.n_windows, _window_df(c.postings(t), c)) for t in terms if c.postings(t)}
        best: dict[int, tuple[float, int]] = {}
        for doc in pool:
            lens = c.docs[doc].turn_lens
            rows = [(weights[t], c.postings(t).get(doc)) for t in weights]
            hits = [(w, p) for w, p in rows if p is not None and p.turns]
            if not hits:
                continue
            top = (0.0, 0)
            for a in window_starts(len(lens)):
                span = range(a, min(a + WINDOW_TURNS, len(lens)))
                norm = 1 - B + B * sum(lens[j] for j in span) / (c.avg_window or 1.0)
                s = sum(w * _saturate(sum(p.turns.get(j, 0) for j in span) / norm) for w, p in hits)
                if s > top[0]:
                    top = (s, a)
            best[doc] = top
        return best

    def _fits(
        self, docs: list[int], windows: list[TimeWindow], tz: ZoneInfo, today: date
    ) -> dict[int, float]:
        if not windows:
            return {}
        out = {}
        for doc in docs:
            day = self.corpus.local_date(doc, tz)
            out[doc] = max(time_fit(w, day, today) for w in windows)
        return out

    def _fuse(
        self,
        pool: list[int],
        slice_scores: dict[int, float],
        passages: dict[int, tuple[float, int]],
        fits: dict[int, float],
        tz: ZoneInfo,
        today: date,
    ) -> dict[int, float]:
        top_s = max((slice_scores.get(d, 0.0) for d in pool), default=0.0) or 1.0
        top_p = max((v[0] for v in passages.values()), default=0.0) or 1.0
        final = {}
        for doc in pool:
            text = SLICE_SHARE * slice_scores.get(doc, 0.0) / top_s
            text += (1 - SLICE_SHARE) * passages.get(doc, (0.0, 0))[0] / top_p
            age = (today - self.corpus.local_date(doc, tz)).days
            recency = RECENCY_WEIGHT * math.exp(-max(0, age) / 180)
            score = text + TIME_WEIGHT * fits.get(doc, 0.0)
            if score > 0 or not slice_scores:
                final[doc] = score + recency
        return final

    def _anchor_windows(self, anchors: list[Anchor], tz: ZoneInfo) -> list[TimeWindow]:
        """'after the move' → the date of the slice that best matches 'the move', open-ended."""
        out = []
        for anchor in anchors:
            scores = self._slice_scores(list(dict.fromkeys(tokenize(anchor.text))))
            if not scores:
                continue
            day = self.corpus.local_date(max(scores, key=lambda d: scores[d]), tz)
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
        return Hit(
            c.docs[doc].slice_id, relevance, _reason(doc, found, surface, passages, windows, fits, c, tz)
        )


def _window_df(post: dict[int, Posting], c: Corpus) -> int:
    count = 0
    for doc, p in post.items():
        n = len(c.docs[doc].turn_lens)
        last = max(0, n - WINDOW_TURNS)
        starts: set[int] = set()
        for j in p.turns:
            starts.update(range(max(0, j - WINDOW_TURNS + 1), min(j, last) + 1))
        count += len(starts)
    return max(1, count)


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
            last = min(first + WINDOW_TURNS - 1, len(c.docs[doc].turn_lens))
            where = f" (turns {first}–{last})" if last > first else f" (turn {first})"
        parts.append(f"matched {quoted}{where}")
    if windows and fits.get(doc, 0) > 0:
        day = c.local_date(doc, tz).isoformat()
        phrases = "; ".join(dict.fromkeys(w.phrase for w in windows))
        parts.append(f"{day} fits “{phrases}”")
    if not parts:
        parts.append("no term matched; ranked by date")
    return " · ".join(parts)
