"""The two turn-header parsers of core.md and turn ranges.

1. The *slice parser* (what becomes `Slice.turns`): a header is a whole line
   `## Turn <id> — <timestamp> (<role>)`; a turn's text runs to the next `## Turn ` anywhere
   (even mid-line) and is trimmed. That cut is the original's behaviour; text it leaves out is
   what `appendix.py` rescues on a rewrite.
2. The *read-tool parser* (`parse_turns`): a line that *starts* like a header is a header;
   a turn's text is every following line up to the next header, right-trimmed only. Read tools,
   ranges and turn counts use it.
JS regex semantics are kept: `\\s` is the JS whitespace set, `\\w`/`\\d` are ASCII, and `^`/`$`
in the slice parser also break at `\\r`, U+2028 and U+2029.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from core.clock import try_parse_iso
from core.ids import is_legacy_number
from core.text import JS_SPACE_CHARS, js_trim, js_trim_end

_NS = f"[^{re.escape(JS_SPACE_CHARS)}]+"
_LT = "\n\r\u2028\u2029"
_HEADER_CORE = f"## Turn ({_NS}) — ({_NS}) \\(([A-Za-z0-9_]+)\\)"
SLICE_HEADER_RE = re.compile(f"(?:\\A|(?<=[{_LT}])){_HEADER_CORE}(?=[{_LT}]|\\Z)")
_SLICE_HEADER_AT = re.compile(f"{_HEADER_CORE}(?=[{_LT}]|\\Z)")
TOOL_HEADER_RE = re.compile(_HEADER_CORE)
TURN_MARK = "## Turn "
_LINE_MARK = "\n" + TURN_MARK
NO_MATCH_NOTE = "_(No turns matched the requested range.)_"


class HeaderSpan(NamedTuple):
    """One turn found by the slice parser, as offsets into the text it was given."""

    label: str
    timestamp: str
    role: str
    header_start: int
    header_end: int
    content_start: int  # after trimming
    content_end: int


def slice_turn_spans(body: str) -> list[HeaderSpan]:
    """The slice parser over `body` (a core.md body, already trimmed by the caller or not)."""
    spans = []
    for m in _slice_headers(body):
        end = body.find(TURN_MARK, m.end())
        end = len(body) if end == -1 else end
        raw = body[m.end() : end]
        lead = len(raw) - len(raw.lstrip(JS_SPACE_CHARS))
        kept = js_trim(raw)
        c_start = m.end() + lead if kept else m.end()
        spans.append(HeaderSpan(m[1], m[2], m[3], m.start(), m.end(), c_start, c_start + len(kept)))
    return spans


def _slice_headers(body: str) -> Iterator[re.Match[str]]:
    """`SLICE_HEADER_RE.finditer(body)`, but only trying where `## Turn ` starts a line (much faster)."""
    pos = body.find(TURN_MARK)
    while pos != -1:
        m = _SLICE_HEADER_AT.match(body, pos) if pos == 0 or body[pos - 1] in _LT else None
        pos = body.find(TURN_MARK, m.end() if m else pos + 1)
        if m:
            yield m


def is_numeric_label(label: str) -> bool:
    """Legacy numbered headers (`## Turn 3 — …`) carry no turn id (the rule is `core.ids`')."""
    return is_legacy_number(label)


@dataclass(frozen=True)
class ParsedTurn:
    """One turn as the read tools see it."""

    index: int
    turn_id: str
    header: str
    timestamp: str
    role: str
    content: str


@dataclass(frozen=True)
class ParsedDoc:
    """A core.md split by the read-tool parser: the text before the first header, then turns."""

    frontmatter: str
    turns: list[ParsedTurn]


def parse_doc(text: str) -> ParsedDoc:
    """The read-tool parser: line scan, header lines start like a header, content right-trimmed."""
    head: list[str] = []
    turns: list[ParsedTurn] = []
    current: tuple[str, re.Match[str]] | None = None
    lines: list[str] = []
    for line in text.split("\n"):
        m = TOOL_HEADER_RE.match(line)
        if m is None:
            (lines if current else head).append(line)
            continue
        if current:
            turns.append(_tool_turn(len(turns), current, lines))
        current, lines = (line, m), []
    if current:
        turns.append(_tool_turn(len(turns), current, lines))
    return ParsedDoc(js_trim_end("\n".join(head)), turns)


def _tool_turn(index: int, current: tuple[str, re.Match[str]], lines: list[str]) -> ParsedTurn:
    line, m = current
    return ParsedTurn(index, m[1], line, m[2], m[3], js_trim_end("\n".join(lines)))


def parse_turns(text: str) -> list[ParsedTurn]:
    """The turns of a core.md as the read tools see them."""
    return parse_doc(text).turns


def count_turns(text: str) -> int:
    """How many turn headers a core.md holds (the catalog's `turn_count`); cheap."""
    count = 1 if text.startswith(TURN_MARK) and TOOL_HEADER_RE.match(text) else 0
    pos = text.find(_LINE_MARK)
    while pos != -1:
        count += TOOL_HEADER_RE.match(text, pos + 1) is not None
        pos = text.find(_LINE_MARK, pos + 1)
    return count


class RangeResult(NamedTuple):
    """Turns picked by a range and the text the read tool returns for them."""

    selected: list[int]
    text: str


def select_turns(turns: Sequence[ParsedTurn], rng: Mapping[str, Any] | None) -> list[ParsedTurn]:
    """Apply a `turns` / `last` / `date` range (absent or unknown → every turn)."""
    kind = (rng or {}).get("type")
    if kind == "turns":
        indices = _int_list(rng.get("indices")) if rng else []
        return [t for t in turns if t.index in indices] if indices else list(turns)
    if kind == "last":
        # JS `slice(-count)`: 0 keeps every turn, a negative count skips from the front.
        return list(turns[-_as_int(rng.get("count") if rng else None, 3) :])
    if kind == "date":
        after = try_parse_iso(rng.get("after") if rng else None)
        if after is None:
            return list(turns)
        return [t for t in turns if (ts := try_parse_iso(t.timestamp)) is not None and ts >= after]
    return list(turns)


def apply_range(text: str, rng: Mapping[str, Any] | None) -> RangeResult:
    """A readSlice `turns`/`last`/`date` range over a core.md: the selected indices and the text."""
    doc = parse_doc(text)
    picked = select_turns(doc.turns, rng)
    if not picked:
        return RangeResult([], f"{doc.frontmatter}\n\n{NO_MATCH_NOTE}")
    blocks = "\n".join(f"\n{t.header}\n{t.content}" for t in picked)
    return RangeResult([t.index for t in picked], f"{doc.frontmatter}\n{blocks}")


def _as_int(value: Any, default: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int | float) or value != value:
        return default
    return int(value)


def _int_list(value: Any) -> list[int]:
    if not isinstance(value, list):
        return []
    return [int(v) for v in value if isinstance(v, int | float) and not isinstance(v, bool)]
