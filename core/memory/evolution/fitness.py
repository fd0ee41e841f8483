"""`memory/evolution/fitness.json`: the evolution loop's bounded ledger of scores and signals.

Scores are per slice and per bucket, ordinal −2…+1, each with the user's own words as
evidence; `normalize` (run on every write) forces a score without evidence to 0, keeps one
score per (slice, bucket) and holds the bounds. Signals are recorded by instrumentation, never
by a model. The ledger is the current generation's gauge: past its bounds the oldest go.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any, Literal, get_args

from core.errors import InvalidInput
from core.text import js_trim, utf16_len, utf16_slice

Bucket = Literal["card", "recall", "search", "thinkdeep", "interaction"]
BUCKETS: tuple[str, ...] = get_args(Bucket)
SignalKind = Literal[
    "recall_verified",
    "recall_reworked",
    "recall_repeated",
    "regenerate",
    "stop",
    "message_edited",
    "forgotten",
]
SIGNAL_KINDS: tuple[str, ...] = get_args(SignalKind)
SCORE_MIN, SCORE_MAX = -2, 1
SCORES_MAX = 120
SIGNALS_MAX = 200
EVIDENCE_MAX_CHARS = 400
DETAIL_MAX_CHARS = 200
VERSION = 1


@dataclass
class Score:
    """One ordinal judgement of how a bucket served the user in a slice, with their words."""

    slice: str
    bucket: str
    score: int
    evidence: str
    at: str


@dataclass
class Signal:
    """One mechanical event (a stop, a repeated recall, a forgotten slice) and when it happened."""

    kind: str
    at: str
    slice: str = ""
    detail: str = ""


@dataclass
class Fitness:
    """The whole ledger."""

    updated: str = ""
    scores: list[Score] = field(default_factory=list)
    signals: list[Signal] = field(default_factory=list)


def _score(raw: dict[str, Any]) -> Score:
    bucket, value = raw.get("bucket"), raw.get("score")
    if bucket not in BUCKETS:
        raise InvalidInput(f"a score has bucket {bucket!r}; buckets are {', '.join(BUCKETS)}")
    if not isinstance(value, int) or isinstance(value, bool) or not SCORE_MIN <= value <= SCORE_MAX:
        raise InvalidInput(f"a score of {value!r} is outside {SCORE_MIN}…{SCORE_MAX}")
    return Score(
        str(raw.get("slice", "")), bucket, value, str(raw.get("evidence", "")), str(raw.get("at", ""))
    )


def _signal(raw: dict[str, Any]) -> Signal:
    kind = raw.get("kind")
    if kind not in SIGNAL_KINDS:
        raise InvalidInput(f"a signal has kind {kind!r}; kinds are {', '.join(SIGNAL_KINDS)}")
    return Signal(kind, str(raw.get("at", "")), str(raw.get("slice", "")), str(raw.get("detail", "")))


def parse_fitness(text: str | None) -> Fitness:
    """The ledger as values (absent → empty); InvalidInput naming what is wrong otherwise."""
    if text is None or not text.strip():
        return Fitness()
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise InvalidInput(f"fitness.json is not valid JSON ({exc})") from exc
    if not isinstance(data, dict) or not isinstance(data.get("scores", []), list):
        raise InvalidInput("fitness.json must be an object with lists `scores` and `signals`")
    signals = data.get("signals", [])
    if not isinstance(signals, list) or not all(
        isinstance(x, dict) for x in [*data.get("scores", []), *signals]
    ):
        raise InvalidInput("fitness.json must be an object with lists `scores` and `signals` of objects")
    return Fitness(
        str(data.get("updated", "")),
        [_score(s) for s in data.get("scores", [])],
        [_signal(s) for s in signals],
    )


def normalize(f: Fitness) -> Fitness:
    """The structural rules every write obeys: no evidence → 0, one per (slice, bucket), bounded."""
    latest: dict[tuple[str, str], Score] = {}
    for s in f.scores:
        evidence = utf16_slice(js_trim(s.evidence), 0, EVIDENCE_MAX_CHARS)
        value = max(SCORE_MIN, min(SCORE_MAX, s.score)) if evidence else 0
        latest.pop((s.slice, s.bucket), None)  # a re-score replaces, and moves to the end
        latest[(s.slice, s.bucket)] = Score(s.slice, s.bucket, value, evidence, s.at)
    scores = list(latest.values())[-SCORES_MAX:]
    signals = [Signal(s.kind, s.at, s.slice, utf16_slice(s.detail, 0, DETAIL_MAX_CHARS)) for s in f.signals][
        -SIGNALS_MAX:
    ]
    return Fitness(f.updated, scores, signals)


def render_fitness(f: Fitness) -> str:
    """Deterministic JSON (normalized first), two-space indent, trailing newline."""
    n = normalize(f)
    data = {
        "version": VERSION,
        "updated": n.updated,
        "scores": [asdict(s) for s in n.scores],
        "signals": [asdict(s) for s in n.signals],
    }
    return json.dumps(data, ensure_ascii=False, indent=2) + "\n"


def evidence_ok(evidence: str) -> bool:
    """Evidence that can carry a score: non-blank, within the cap."""
    value = js_trim(evidence or "")
    return bool(value) and utf16_len(value) <= EVIDENCE_MAX_CHARS
