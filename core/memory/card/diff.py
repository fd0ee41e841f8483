"""What changed between two versions of the card: line diff, change counters, unified diff.

`diff_card_lines` and `summarize_card_changes` reproduce the original's UI payload
(`card_diff.json`); `unified_card_diff` is what the `card.evolved` event carries; `summary_line`
is the one-sentence fallback when the card pass gave no summary.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from typing import Literal

from core.memory.card.model import split_refs
from core.text import js_trim

MAX_LINES_PER_SIDE = 12
SIMILAR = 0.5

_BULLET_RE = re.compile(r"^[-*+]\s+")
_TOKEN_RE = re.compile(r"[^\W_]+")
_DATE_TAIL_RE = re.compile(r"(\|\s*since:|—\s*by:)\s*\d{4}-\d{2}-\d{2}")
_SECTION_ALIASES = {"profile": "past", "recent": "now"}


@dataclass(frozen=True)
class LineChange:
    """One line that left (`removed`) or entered (`added`) the card."""

    type: Literal["removed", "added"]
    text: str


@dataclass
class ChangeCounts:
    """Per-entry counters: new, rewritten (superseded), dropped, moved Now → Past, profile refreshed."""

    added: int = 0
    reinforced: int = 0
    demoted: int = 0
    removed: int = 0
    superseded: int = 0

    @property
    def total(self) -> int:
        """How many changes were counted."""
        return self.added + self.reinforced + self.demoted + self.removed + self.superseded


def _content_lines(text: str) -> list[str]:
    lines = (js_trim(line) for line in (text or "").split("\n"))
    return [t for t in lines if t and not t.startswith(("#", "_", "<!--"))]


def _unique_missing(lines: list[str], other: set[str]) -> list[str]:
    seen: set[str] = set()
    out = []
    for line in lines:
        if line not in other and line not in seen:
            seen.add(line)
            out.append(line)
    return out


def diff_card_lines(before: str, after: str, limit: int = MAX_LINES_PER_SIDE) -> list[LineChange]:
    """Set-based diff of content lines (blank, heading, stamp and comment lines ignored)."""
    old, new = _content_lines(before), _content_lines(after)
    removed = _unique_missing(old, set(new))[:limit]
    added = _unique_missing(new, set(old))[:limit]
    return [LineChange("removed", t) for t in removed] + [LineChange("added", t) for t in added]


# ---------------------------------------------------------------- counters


def _tokens(text: str) -> set[str]:
    return set(_TOKEN_RE.findall(text.lower()))


def similarity(a: str, b: str) -> float:
    """Word-token overlap: the larger of Jaccard and containment (0 when either is empty)."""
    ta, tb = _tokens(a), _tokens(b)
    if not ta or not tb:
        return 0.0
    common = len(ta & tb)
    return max(common / len(ta | tb), common / min(len(ta), len(tb)))


def entry_words(line: str) -> str:
    """A bullet's words without the marker, dates and refs, so bookkeeping does not look alike."""
    body = _BULLET_RE.sub("", line)
    return split_refs(_DATE_TAIL_RE.sub("", body))[0]


@dataclass
class _Section:
    profile: list[str]
    entries: list[str]


def _sections(text: str) -> dict[str, _Section]:
    out: dict[str, _Section] = {}
    name = ""
    for raw in (text or "").split("\n"):
        line = js_trim(raw)
        if line.startswith("## "):
            key = re.sub(r"[\s\-_]+", "", line[3:]).lower()
            name = _SECTION_ALIASES.get(key, key)
            continue
        if not line or line.startswith(("#", "_", "<!--")):
            continue
        sec = out.setdefault(name, _Section([], []))
        is_profile = name == "past" and not _BULLET_RE.match(line)
        (sec.profile if is_profile else sec.entries).append(line)
    return out


def _pair(removed: list[str], added: list[str]) -> list[tuple[str, str]]:
    """Greedy best-first pairing of removed/added entries that are at least SIMILAR."""
    scored = [
        (similarity(entry_words(r), entry_words(a)), i, j)
        for i, r in enumerate(removed)
        for j, a in enumerate(added)
    ]
    used_r: set[int] = set()
    used_a: set[int] = set()
    pairs = []
    for score, i, j in sorted(scored, key=lambda s: (-s[0], s[1], s[2])):
        if score >= SIMILAR and i not in used_r and j not in used_a:
            used_r.add(i)
            used_a.add(j)
            pairs.append((removed[i], added[j]))
    return pairs


def _consume(lines: list[str], taken: list[str]) -> list[str]:
    gone = set(taken)
    return [x for x in lines if x not in gone]


def summarize_card_changes(before: str, after: str) -> ChangeCounts:
    """Count added / superseded / removed entries per section, Now → Past moves, profile rewrites."""
    old, new = _sections(before), _sections(after)
    empty = _Section([], [])
    counts = ChangeCounts()
    changed: dict[str, tuple[list[str], list[str]]] = {}
    for name in dict.fromkeys([*old, *new]):
        o, n = old.get(name, empty), new.get(name, empty)
        changed[name] = (
            _unique_missing(o.entries, set(n.entries)),
            _unique_missing(n.entries, set(o.entries)),
        )
        _count_profile(counts, "\n".join(o.profile), "\n".join(n.profile))
    now_removed, _ = changed.get("now", ([], []))
    past_removed, past_added = changed.get("past", ([], []))
    moved = _pair(now_removed, past_added)
    counts.demoted = len(moved)
    if moved:
        changed["now"] = (_consume(now_removed, [r for r, _ in moved]), changed["now"][1])
        changed["past"] = (past_removed, _consume(past_added, [a for _, a in moved]))
    for removed, added in changed.values():
        pairs = _pair(removed, added)
        counts.superseded += len(pairs)
        counts.removed += len(removed) - len(pairs)
        counts.added += len(added) - len(pairs)
    return counts


def _count_profile(counts: ChangeCounts, old: str, new: str) -> None:
    if old == new:
        return
    if old and new:
        counts.reinforced += 1
    elif new:
        counts.added += 1
    else:
        counts.removed += 1


# ---------------------------------------------------------------- event payloads


def unified_card_diff(before: str, after: str, context: int = 1) -> str:
    """A unified, line-level diff of two card texts ("" when they are equal)."""
    lines = difflib.unified_diff(
        (before or "").splitlines(),
        (after or "").splitlines(),
        fromfile="card (before)",
        tofile="card (after)",
        lineterm="",
        n=context,
    )
    return "\n".join(lines)


def summary_line(counts: ChangeCounts) -> str:
    """One sentence for the user when the agent did not write one."""
    if counts.total == 0:
        return "The card is unchanged."
    parts = ["profile refreshed"] if counts.reinforced else []
    for n, what in (
        (counts.added, "added"),
        (counts.superseded, "revised"),
        (counts.demoted, "moved from Now to Past"),
        (counts.removed, "removed"),
    ):
        if n:
            parts.append(f"{n} {'entry' if n == 1 else 'entries'} {what}")
    return "Card updated: " + ", ".join(parts) + "."
