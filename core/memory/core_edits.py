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

from core.errors import InvalidInput
from core.memory import matter
from core.memory.appendix import appendix_entry, frontmatter_comments
from core.memory.turns import parse_slice_id
from core.text import js_trim_end, utf16_len

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
    if not isinstance(slice_id, str) or parse_slice_id(slice_id) is None:
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
    return FlushTurn(role, content, timestamp)


def flush_core_md(existing: str | None, slice_id: str, turns: Sequence[FlushTurn], now_iso: str) -> str:
    """The core.md text after flushing `turns`: numbered after the existing numbered headers."""
    numbered = len(_NUMBERED_HEADER_RE.findall(existing or ""))
    blocks = "\n\n".join(
        f"## Turn {numbered + i} — {t.timestamp} ({t.role})\n\n{t.content}" for i, t in enumerate(turns, 1)
    )
    if existing and existing.strip():
        return f"{js_trim_end(existing)}\n\n{blocks}"
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
            "---",
        ]
    )
    return f"{head}\n\n{blocks}"
