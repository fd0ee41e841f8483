"""`memory/episodic/strands.json`: the keyword index of strands (tag → slice paths).

A strand map is a plain dict kept in insertion order; the JavaScript object key-order rule
(integer-like keys first, ascending) is applied wherever the original's order shows: when
matching a tag against existing keys and when writing the file. Every function here is pure.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from core.memory.formats import jsjson
from core.memory.paths import SliceId
from core.text import JS_SPACES_RE, js_trim

Strands = dict[str, list[str]]

DAY_MS = 86_400_000
PRUNE_MIN_SLICES = 2
PRUNE_MAX_AGE_MS = 14 * DAY_MS
MERGE_PASS_MIN_KEYS = 25
MAX_MERGES = 30

_INDEX_RE = re.compile(r"^(?:0|[1-9][0-9]*)$")
_FULLWIDTH = {cp: cp - 0xFEE0 for cp in range(0xFF01, 0xFF5F)}


def normalize_key(tag: str) -> str:
    """trim → lowercase → full-width ASCII to ASCII → each whitespace run to one space."""
    return JS_SPACES_RE.sub(" ", js_trim(tag).lower().translate(_FULLWIDTH))


def is_array_index(key: str) -> bool:
    """Whether JS treats `key` as an array index (such keys come first in an object)."""
    return bool(_INDEX_RE.match(key)) and int(key) <= 4_294_967_294


def js_key_order(keys: Iterable[str]) -> list[str]:
    """Keys in JS object order: array indices ascending, then the rest in insertion order."""
    keys = list(keys)
    indices = sorted((k for k in keys if is_array_index(k)), key=int)
    return indices + [k for k in keys if not is_array_index(k)]


def find_matching(strands: Strands, tag: str) -> str | None:
    """The first existing key (JS order) whose normalised form equals the tag's."""
    want = normalize_key(tag)
    return next((k for k in js_key_order(strands) if normalize_key(k) == want), None)


def weave_tag(strands: Strands, tag: str, path: str) -> tuple[str, bool]:
    """Add `path` under the tag's strand (an existing equivalent key, else the normalised tag).

    Returns the key used and whether it was created. Mutates `strands`.
    """
    key = find_matching(strands, tag)
    created = key is None
    if key is None:
        key = normalize_key(tag)
        strands[key] = []
    if path not in strands[key]:
        strands[key].append(path)
    return key, created


def weave_tags(strands: Strands, tags: Iterable[str], path: str) -> list[tuple[str, bool]]:
    """`weave_tag` for each tag, in order."""
    return [weave_tag(strands, tag, path) for tag in tags]


def render_strands(strands: Strands) -> str:
    """The file's bytes: `JSON.stringify(strands, null, 2)` with JS key order, no trailing newline."""
    ordered = {k: strands[k] for k in js_key_order(strands)}
    return jsjson.dumps(ordered)


def parse_strands(text: str | None) -> tuple[Strands, list[str]]:
    """Tolerant load: missing or malformed → `{}`; returns the problems found (for `check`)."""
    if text is None:
        return {}, []
    try:
        raw: Any = json.loads(text)
    except ValueError as exc:
        return {}, [f"not valid JSON ({exc})"]
    if not isinstance(raw, dict):
        return {}, ["must be a JSON object of strand → list of slice paths"]
    out: Strands = {}
    problems: list[str] = []
    for key, value in raw.items():
        if not isinstance(value, list):
            problems.append(f"strand {key!r}: must be a list of slice paths")
            continue
        paths = [p for p in value if isinstance(p, str)]
        if len(paths) != len(value):
            problems.append(f"strand {key!r}: entries that are not strings are ignored")
        out[key] = paths
    return out, problems


def slice_path_to_ms(path: str) -> int | None:
    """`YYYY/MM/DD/HHMM` → epoch ms with `Date.UTC` roll-over; None when the shape is wrong."""
    sid = SliceId.from_slash(path)
    if sid is None:
        return None
    year, month, day = int(sid.year), int(sid.month), int(sid.day)
    hour, minute = int(sid.hhmm[:2]), int(sid.hhmm[2:])
    months = year * 12 + month - 1
    try:
        base = datetime(months // 12, months % 12 + 1, 1, tzinfo=UTC)
        instant = base + timedelta(days=day - 1, hours=hour, minutes=minute)
    except (ValueError, OverflowError):
        return None
    return int(instant.timestamp() * 1000)


def prune(
    strands: Strands,
    now: datetime,
    min_slices: int = PRUNE_MIN_SLICES,
    max_age_ms: int = PRUNE_MAX_AGE_MS,
) -> tuple[Strands, list[str]]:
    """Drop strands with fewer than `min_slices` paths and none within `max_age_ms` of now."""
    now_ms = int(now.timestamp() * 1000)

    def recent(path: str) -> bool:
        ms = slice_path_to_ms(path)
        return ms is not None and now_ms - ms <= max_age_ms

    kept: Strands = {}
    pruned: list[str] = []
    for key in js_key_order(strands):
        paths = strands[key]
        if len(paths) < min_slices and not any(recent(p) for p in paths):
            pruned.append(key)
        else:
            kept[key] = list(paths)
    return kept, pruned


@dataclass(frozen=True)
class MergeProposal:
    """A model's proposal: fold strand `source` into strand `target`."""

    source: str
    target: str
    reason: str = ""


def filter_proposals(strands: Strands, proposals: Sequence[MergeProposal]) -> list[MergeProposal]:
    """Keep at most 30 proposals whose target exists and that do not merge a key into itself."""
    kept = [p for p in proposals if p.source != p.target and find_matching(strands, p.target) is not None]
    return kept[:MAX_MERGES]


def apply_merges(strands: Strands, proposals: Sequence[MergeProposal]) -> tuple[Strands, int]:
    """Apply proposals in order (chains compound); returns the new map and how many applied."""
    out: Strands = {k: list(v) for k, v in strands.items()}
    applied = 0
    for proposal in proposals:
        target = find_matching(out, proposal.target) or normalize_key(proposal.target)
        source = proposal.source if proposal.source in out else None
        if source is None:
            want = normalize_key(proposal.source)
            source = next((k for k in js_key_order(out) if k != target and normalize_key(k) == want), None)
        if source is None or source == target:
            continue
        merged = out.setdefault(target, [])
        merged.extend(p for p in out[source] if p not in merged)
        del out[source]
        applied += 1
    return out, applied


@dataclass(frozen=True)
class StrandRebuild:
    """What `rebuild_strands` changed."""

    strands: Strands
    paths_added: int
    phantom_paths: int


def rebuild_strands(strands: Strands, slices: Sequence[tuple[str, Sequence[str]]]) -> StrandRebuild:
    """Reconcile strands with the slices on disk (`(path, tags)` pairs).

    Paths of slices that no longer exist are dropped (and keys left empty go); a slice that no
    strand mentions gets all its tags woven. Slices already indexed are left alone, so earlier
    merges and prunes stay made.
    """
    on_disk = {path for path, _ in slices}
    out: Strands = {}
    phantoms = 0
    for key, paths in strands.items():
        alive = [p for p in paths if p in on_disk]
        phantoms += len(paths) - len(alive)
        if alive or not paths:
            out[key] = alive
    indexed = {p for paths in out.values() for p in paths}
    weaver = StrandWeaver(out)
    added = sum(weaver.weave(tag, path) for path, tags in slices if path not in indexed for tag in tags)
    return StrandRebuild(out, added, phantoms)


class StrandWeaver:
    """`weave_tag` for many tags at once: the normalised-key lookup is built once, not per tag."""

    def __init__(self, strands: Strands) -> None:
        self.strands = strands
        self._by_norm: dict[str, str] = {}
        for key in js_key_order(strands):
            self._by_norm.setdefault(normalize_key(key), key)
        self._members = {key: set(paths) for key, paths in strands.items()}

    def weave(self, tag: str, path: str) -> bool:
        """Add `path` under the tag's strand, exactly as `weave_tag`; whether it was new there."""
        norm = normalize_key(tag)
        key = self._by_norm.get(norm)
        if key is None:
            # A new key cannot shadow an existing one: none normalises to the same text.
            key = self._by_norm[norm] = norm
            self.strands[key], self._members[key] = [], set()
        if path in self._members[key]:
            return False
        self._members[key].add(path)
        self.strands[key].append(path)
        return True


def drop_slice(strands: Strands, path: str) -> tuple[Strands, list[str]]:
    """Strands without one slice path (forgetting it); keys left empty go. Returns the new map
    and the keys removed (they named only that slice)."""
    out: Strands = {}
    dropped: list[str] = []
    for key, paths in strands.items():
        alive = [p for p in paths if p != path]
        if alive or not paths:
            out[key] = alive
        else:
            dropped.append(key)
    return out, dropped
