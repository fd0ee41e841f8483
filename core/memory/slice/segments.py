"""The readSlice `search` / `lines` ranges (also webFetch's): split, match, and the exact tool text.

`search` splits a document into segments — a slice at each `## Turn ` line (its frontmatter is
segment 0), a web page at blank lines — and returns every segment containing a keyword
(case-insensitive), each with `context` neighbours on both sides. `lines` returns a 1-based,
inclusive line range, clamped to the document.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from core.memory.slice.turns import apply_range
from core.text import JS_SPACE, js_trim

_TURN_SPLIT_RE = re.compile(r"^(?=## Turn )", re.M)
_PARAGRAPH_SPLIT_RE = re.compile(f"\\n{JS_SPACE}*\\n")
DEFAULT_CONTEXT = 1


def split_turns(raw: str) -> list[str]:
    """A core.md as segments: the frontmatter, then one segment per `## Turn ` line onwards."""
    return [s for s in (js_trim(p) for p in _TURN_SPLIT_RE.split(raw)) if s]


def split_paragraphs(text: str) -> list[str]:
    """A page as segments: blank-line separated paragraphs, trimmed, empty ones dropped."""
    return [s for s in (js_trim(p) for p in _PARAGRAPH_SPLIT_RE.split(text)) if s]


@dataclass(frozen=True)
class SearchHit:
    """A matching segment: its index, the text with its context window, the keywords it holds."""

    index: int
    content: str
    keywords: list[str]


def search_segments(
    segments: Sequence[str], keywords: Sequence[str], context: int = DEFAULT_CONTEXT
) -> list[SearchHit]:
    """Every segment containing a keyword (case-insensitive), with `context` segments either side."""
    wanted = [k.lower() for k in keywords if k]
    context = max(0, context)
    hits = []
    for i, seg in enumerate(segments):
        low = seg.lower()
        found = [k for k in wanted if k in low]
        if found:
            window = segments[max(0, i - context) : i + context + 1]
            hits.append(SearchHit(i, "\n".join(window), found))
    return hits


def search_output(
    raw: str, segments: Sequence[str], keywords: Sequence[str], label: str, context: Any = None
) -> str:
    """The tool text for a `search` range over `raw` (whose segments are given)."""
    ctx = context if isinstance(context, int) and not isinstance(context, bool) else DEFAULT_CONTEXT
    hits = search_segments(segments, keywords, ctx)
    shown = ", ".join(keywords) or "(none)"
    if not hits:
        return f"No segments matched keywords [{shown}] in {label} — full content returned:\n\n{raw}"
    noun = "segment" if len(hits) == 1 else "segments"
    body = "\n\n".join(h.content for h in hits)
    return f"Matched {len(hits)} {noun} for [{shown}] in {label}:\n\n{body}"


@dataclass(frozen=True)
class LineRange:
    """A line range after clamping: the effective bounds, the text, and whether it was clamped."""

    start: int
    end: int
    content: str
    clamped: bool


def line_range(doc: str, start: int, end: int) -> LineRange:
    """Lines `start`..`end` (1-based, inclusive) of `doc`, clamped to the lines that exist."""
    lines = doc.split("\n")
    s, e = max(1, start), min(len(lines), end)
    clamped = s != start or e != end or s > e
    content = "\n".join(lines[s - 1 : e]) if s <= e else ""
    return LineRange(s, e, content, clamped)


def lines_output(doc: str, start: Any, end: Any, label: str) -> str:
    """The tool text for a `lines` range (an error line when the bounds are not numbers)."""
    if not all(isinstance(v, int | float) and not isinstance(v, bool) and v == v for v in (start, end)):
        return f"ERROR: Invalid line range {start}-{end} in {label}."
    r = line_range(doc, int(start), int(end))
    note = " (clamped)" if r.clamped else ""
    return f"Lines {r.start}-{r.end} of {label}{note}:\n\n{r.content or '(empty range)'}"


def read_slice_range(raw: str, slice_id: str, rng: dict[str, Any] | None) -> str:
    """readSlice's text for any range type (time annotations are the caller's business)."""
    kind = (rng or {}).get("type")
    if rng and kind == "search":
        keywords = [k for k in rng.get("keywords") or [] if isinstance(k, str)]
        return search_output(raw, split_turns(raw), keywords, slice_id, rng.get("context"))
    if rng and kind == "lines":
        return lines_output(raw, rng.get("start"), rng.get("end"), slice_id)
    if kind in ("turns", "last", "date"):
        return apply_range(raw, rng).text
    return raw
