"""Two core.md writers that keep the original's exact bytes: the dry-slice backfill and the flush.

The backfill (`needs_marking`) sets focus/summary on an old slice by re-dumping its frontmatter
with existing keys in their order and new keys appended, body untouched. The emergency flush
endpoint appends numbered turns to a core.md (or starts one with its fixed frontmatter).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from core.errors import InvalidInput, SliceFormatError
from core.memory.formats import matter
from core.memory.formats.escape import FLAG_KEY, FLAG_VALUE, escape_turn, has_flag_line, needs_escape
from core.memory.paths import is_slice_id
from core.memory.slice.appendix import appendix_entry, frontmatter_comments
from core.memory.slice.model import Turn, render_turn
from core.memory.slice.turns import SLICE_HEADER_RE, slice_turn_spans
from core.text import JS_SPACE_CHARS, js_trim, js_trim_end, utf16_len

FLUSH_MAX_TURNS = 50
FLUSH_MAX_CONTENT = 100_000
FLUSH_MAX_TIMESTAMP = 64
FLUSH_ROLES = ("user", "agent")
_NUMBERED_HEADER_RE = re.compile("(?:\\A|(?<=[\n\r\u2028\u2029]))## Turn [0-9]+ —")


def backfill_rewrite(text: str, focus: str, summary: str, now_iso: str) -> tuple[str, str | None]:
    """core.md with non-blank `focus`/`summary` set, and an appendix entry for dropped YAML comments.

    Raises SliceFormatError (nothing written) when the frontmatter does not parse.
    """
    split = matter.split(text)
    data = dict(matter.load(split, source="core.md frontmatter"))
    if focus.strip():
        data["focus"] = focus
    if summary.strip():
        data["summary"] = summary
    new_text = matter.stringify(data, split.body)
    if new_text == text:
        return text, None
    comments = frontmatter_comments(text)
    return new_text, appendix_entry(comments, now_iso) if comments else None


@dataclass(frozen=True)
class FlushTurn:
    """One turn posted to the flush endpoint."""

    role: str
    content: str
    timestamp: str


@dataclass(frozen=True)
class FlushRequest:
    """A validated flush request body."""

    slice_id: str
    turns: list[FlushTurn]


def parse_flush_request(body: Any) -> FlushRequest:
    """Validate a flush body (`sliceId`, 1–50 `turns`); InvalidInput("Invalid request body") otherwise."""
    bad = InvalidInput("Invalid request body")
    if not isinstance(body, dict):
        raise bad
    slice_id, turns = body.get("sliceId"), body.get("turns")
    if not isinstance(slice_id, str) or not is_slice_id(slice_id):
        raise bad
    if not isinstance(turns, list) or not 1 <= len(turns) <= FLUSH_MAX_TURNS:
        raise bad
    return FlushRequest(slice_id, [_flush_turn(t, bad) for t in turns])


def _flush_turn(raw: Any, bad: InvalidInput) -> FlushTurn:
    if not isinstance(raw, dict):
        raise bad
    role, content, timestamp = raw.get("role"), raw.get("content"), raw.get("timestamp")
    if role not in FLUSH_ROLES or not isinstance(content, str) or not isinstance(timestamp, str):
        raise bad
    if utf16_len(content) > FLUSH_MAX_CONTENT or utf16_len(timestamp) > FLUSH_MAX_TIMESTAMP:
        raise bad
    if not SLICE_HEADER_RE.fullmatch(Turn(None, timestamp, role, "", "1").header):
        # The original wrote such a header and then could not read the turn back.
        raise InvalidInput(
            "Invalid request body: a turn's timestamp must be non-empty and free of spaces and line "
            f"breaks (got {timestamp!r}); nothing was saved."
        )
    return FlushTurn(role, content, timestamp)


def flush_core_md(existing: str | None, slice_id: str, turns: Sequence[FlushTurn], now_iso: str) -> str:
    """The core.md text after flushing `turns`: numbered after the existing numbered headers.

    Text that needs escaping is written escaped (core/memory/escape.py); an existing file is
    then marked `turn_escape: v1` first, its own turns escaped in place so they read the same.
    """
    numbered = len(_NUMBERED_HEADER_RE.findall(existing or ""))
    has_text = bool(existing and existing.strip())
    escape = any(needs_escape(t.content) for t in turns) or (has_text and _flagged(existing or ""))
    blocks = "\n\n".join(
        render_turn(Turn(None, t.timestamp, t.role, t.content, str(numbered + i)), escape)
        for i, t in enumerate(turns, 1)
    )
    if existing and has_text:
        base = mark_escaped(existing) if escape else existing
        return f"{js_trim_end(base)}\n\n{blocks}"
    head = "\n".join(
        [
            "---",
            f"slice_id: {json.dumps(slice_id)}",
            'focus: ""',
            "status: active",
            f"start: {json.dumps(now_iso)}",
            "timezone: UTC",
            'summary: ""',
            "open_loops: []",
            "decisions: []",
            "tags: []",
            "related_slices: []",
            *([f"{FLAG_KEY}: {FLAG_VALUE}"] if escape else []),
            "---",
        ]
    )
    return f"{head}\n\n{blocks}"


def _flagged(text: str) -> bool:
    split = matter.split(text)
    return split.has_frontmatter and has_flag_line(split.yaml_text)


def mark_escaped(text: str) -> str:
    """An unescaped core.md as an escaped one that reads the same: the flag added, turn texts escaped.

    Raises SliceFormatError, changing nothing, when the frontmatter cannot take the flag.
    """
    if _flagged(text):
        return text
    split = matter.split(text)
    before = matter.load(split, source="core.md frontmatter") if split.has_frontmatter else {}
    body = split.body
    lead = len(body) - len(body.lstrip(JS_SPACE_CHARS))
    trimmed = js_trim(body)
    out, pos = [], 0
    for span in slice_turn_spans(trimmed):
        out += [
            trimmed[pos : span.content_start],
            escape_turn(trimmed[span.content_start : span.content_end]),
        ]
        pos = span.content_end
    new_body = body[:lead] + "".join(out) + trimmed[pos:] + body[lead + len(trimmed) :]
    if not split.has_frontmatter:  # a BOM, if any, stays first
        return f"{text[: split.body_offset]}---\n{FLAG_KEY}: {FLAG_VALUE}\n---\n{new_body}"
    yaml_end = split.yaml_offset + len(split.yaml_text)
    marked = f"{text[:yaml_end]}\n{FLAG_KEY}: {FLAG_VALUE}{text[yaml_end : split.body_offset]}{new_body}"
    if matter.load_text(marked, source="core.md frontmatter") != {**before, FLAG_KEY: FLAG_VALUE}:
        raise SliceFormatError(
            "This core.md's frontmatter is not a plain list of keys, so the escape flag cannot be added; "
            "nothing was saved. Rewrite the frontmatter as `key: value` lines and try again."
        )
    return marked
