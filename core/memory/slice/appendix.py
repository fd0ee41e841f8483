"""`timeline/appendix.md`: where a rewrite of core.md puts what core.md's format cannot hold.

The slice parser keeps frontmatter values and turns; everything else in a core.md — text before
the first turn, a header-shaped line it does not accept and what follows it, the rest of a turn
after a `## Turn ` written inside it, YAML comments, a value it has to coerce — would vanish when
the file is rendered again. A rewrite therefore moves those parts, verbatim and under a dated
note saying why, to appendix.md in the same commit (docs/FORMAT.md, "appendix.md").
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass
from typing import Any

from yaml.nodes import MappingNode, Node, ScalarNode

from core.memory.formats import matter
from core.memory.formats.yaml_load import scan_tokens
from core.memory.slice.model import KEY_ORDER, LIST_KEYS, Slice, as_text, render_core_md, slice_from_data
from core.memory.slice.turns import TURN_MARK, slice_turn_spans
from core.text import JS_SPACE_CHARS, js_trim_end

TITLE = (
    "# Appendix\n\n"
    "Text from this slice's core.md that no turn or frontmatter field could hold. Each section says "
    "when and why it was moved. Previously never reads this file back; it is yours to keep or tidy.\n"
)
_COMMENT_START_RE = re.compile(r"(?:^|(?<=[ \t]))#", re.M)
_LINE_ENDS = "\n\r\u2028\u2029"


@dataclass(frozen=True)
class Unplaced:
    """A run of core.md text a rewrite would lose: where it is, the text, and why."""

    first_line: int
    last_line: int
    text: str
    reason: str


class _Lines:
    """1-based line numbers of offsets in one text."""

    def __init__(self, text: str) -> None:
        self.starts = [0] + [m.end() for m in re.finditer("\n", text)]

    def of(self, offset: int) -> int:
        return bisect.bisect_right(self.starts, offset)


def explain_unplaceable(text: str) -> list[Unplaced]:
    """Everything in a core.md that parsing and rendering it again would drop, in file order.

    Raises SliceFormatError when the frontmatter does not parse (such a file is never rewritten).
    """
    split = matter.split(text)
    data, node = matter.load_with_nodes(split, source="core.md frontmatter")
    lines = _Lines(text)
    found = _yaml_comments(split, lines) + _lost_values(split, data, node) + _body_leftovers(split, lines)
    return sorted(found, key=lambda u: u.first_line)


def find_unplaceable(text: str) -> list[tuple[int, str]]:
    """`(line number, text)` for every non-blank line (or part of one) a rewrite would drop."""
    out = []
    for block in explain_unplaceable(text):
        for i, line in enumerate(block.text.split("\n")):
            if line.strip():
                out.append((block.first_line + i, line.rstrip("\r")))
    return out


def frontmatter_comments(text: str) -> list[Unplaced]:
    """The YAML comments in a file's frontmatter (a re-dump of the frontmatter drops them)."""
    return _yaml_comments(matter.split(text), _Lines(text))


def _yaml_comments(split: matter.Matter, lines: _Lines) -> list[Unplaced]:
    if not split.has_frontmatter or "#" not in split.yaml_text:
        return []
    spans = sorted(scan_tokens(split.yaml_text))
    starts = [s for s, _ in spans]
    reach: list[int] = []
    for _, end in spans:
        reach.append(max(end, reach[-1]) if reach else end)
    found = []
    for m in _COMMENT_START_RE.finditer(split.yaml_text):
        i = bisect.bisect_right(starts, m.start()) - 1
        if i >= 0 and reach[i] > m.start():
            continue  # inside a quoted or block scalar: text, not a comment
        eol = split.yaml_text.find("\n", m.start())
        comment = split.yaml_text[m.start() : eol if eol != -1 else None].rstrip("\r")
        line = lines.of(split.yaml_offset + m.start())
        found.append(Unplaced(line, line, comment, "a YAML comment (comments do not survive a rewrite)"))
    return found


def _survives(raw: Any, kept: Any) -> bool:
    if raw is None or raw == "":
        return True
    if isinstance(kept, list):
        return isinstance(raw, list) and all(not isinstance(x, dict | list) for x in raw)
    return not isinstance(raw, dict | list) and as_text(raw) == kept


def _lost_values(split: matter.Matter, data: dict[str, Any], node: Node | None) -> list[Unplaced]:
    if not isinstance(node, MappingNode):
        return []
    parsed = slice_from_data(data)
    yaml_lines = split.yaml_text.split("\n")
    found = []
    for key_node, value_node in node.value:
        key = key_node.value if isinstance(key_node, ScalarNode) else None
        if key not in KEY_ORDER or key not in data:
            continue
        kept = getattr(parsed, key)
        if _survives(data[key], kept if key in LIST_KEYS or kept else ""):
            continue
        first, last = key_node.start_mark.line, value_node.end_mark.line
        if value_node.end_mark.column == 0 and last > first:
            last -= 1
        while last > first and not yaml_lines[last].strip():
            last -= 1
        block = "\n".join(line.rstrip("\r") for line in yaml_lines[first : last + 1])
        reason = f"the value of `{key}`, which the slice format cannot keep as written"
        # yaml line 0 is the rest of the opening `---` line, i.e. file line 1.
        found.append(Unplaced(first + 1, last + 1, block, reason))
    return found


def _body_leftovers(split: matter.Matter, lines: _Lines) -> list[Unplaced]:
    body = split.body
    lead = len(body) - len(body.lstrip(JS_SPACE_CHARS))
    trimmed = body[lead:].rstrip(JS_SPACE_CHARS)
    base = split.body_offset + lead
    spans = slice_turn_spans(trimmed)
    placed = sorted(
        [(s.header_start, s.header_end) for s in spans] + [(s.content_start, s.content_end) for s in spans]
    )
    gaps, pos = [], 0
    for start, end in placed:
        if start > pos:
            gaps.append((pos, start))
        pos = max(pos, end)
    if pos < len(trimmed):
        gaps.append((pos, len(trimmed)))
    found = []
    for start, end in gaps:
        seg = trimmed[start:end]
        if not seg.strip(JS_SPACE_CHARS):
            continue
        first = start + len(seg) - len(seg.lstrip(JS_SPACE_CHARS))
        # Keep the indentation of a gap's first line, but not the space before a mid-line cut.
        line_start = max(trimmed.rfind(c, start, first) for c in _LINE_ENDS) + 1 or first
        stop = start + len(js_trim_end(seg))
        reason = _gap_reason(trimmed, first, spans[0].header_start if spans else None)
        found.append(
            Unplaced(lines.of(base + line_start), lines.of(base + stop - 1), trimmed[line_start:stop], reason)
        )
    return found


def _gap_reason(trimmed: str, first: int, first_header: int | None) -> str:
    if first_header is None:
        return "text outside any turn (the file has no turn header)"
    if first < first_header:
        return "text before the first turn"
    at_line_start = first == 0 or trimmed[first - 1] in _LINE_ENDS
    if at_line_start and trimmed.startswith(TURN_MARK, first):
        return "a line shaped like a turn header that the format does not accept, and the text after it"
    return "text after a `## Turn ` written inside a turn (the format ends a turn there)"


def _fence(text: str) -> str:
    longest = max((len(m) for m in re.findall("`+", text)), default=0)
    return "`" * max(3, longest + 1)


def appendix_entry(blocks: list[Unplaced], now_iso: str) -> str:
    """One dated appendix section holding `blocks` verbatim."""
    parts = [
        f"## Moved from core.md — {now_iso}\n\n"
        "core.md was rewritten and these parts had no place in its format, so they were moved "
        "here unchanged.\n"
    ]
    for b in blocks:
        where = (
            f"Line {b.first_line}" if b.first_line == b.last_line else f"Lines {b.first_line}–{b.last_line}"
        )
        fence = _fence(b.text)
        parts.append(f"\n{where} — {b.reason}:\n\n{fence}\n{b.text}\n{fence}\n")
    return "".join(parts)


def append_appendix(existing: str | None, entry: str) -> str:
    """The appendix with `entry` added at the end (the file is created with a short title)."""
    if existing is None or not existing.strip():
        return f"{TITLE}\n{entry}"
    return f"{js_trim_end(existing)}\n\n{entry}"


def rewrite_core_md(old_text: str | None, new_slice: Slice, now_iso: str) -> tuple[str, str | None]:
    """The new core.md for `new_slice`, and the appendix entry for what the old text loses (or None).

    Raises SliceFormatError, writing nothing, when the old text's frontmatter does not parse.
    """
    new_text = render_core_md(new_slice)
    if old_text is None or not old_text.strip() or old_text == new_text:
        return new_text, None
    blocks = explain_unplaceable(old_text)
    return new_text, appendix_entry(blocks, now_iso) if blocks else None


def code_fence(text: str) -> str:
    """The backtick fence that holds `text` verbatim in Markdown (longer than any run inside)."""
    return _fence(text)
