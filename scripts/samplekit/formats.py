"""Slice files: `timeline/core.md` (REFERENCE §2), `timeline/agent.md` (§3) and the JSON style (§10–11)."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .jsyaml import dump_mapping

FRONTMATTER_KEYS = (
    "slice_id",
    "focus",
    "status",
    "start",
    "end",
    "timezone",
    "summary",
    "open_loops",
    "decisions",
    "tags",
    "related_slices",
    "loops",
    "emotional_tone",
    "closed_by",
    "evolution_summary",
)


@dataclass(frozen=True)
class TurnOut:
    """One turn as written: the header fields and the verbatim content."""

    turn_id: str
    timestamp: str
    role: str
    content: str


def render_core(frontmatter: Mapping[str, str | Sequence[str]], turns: Sequence[TurnOut]) -> str:
    """`core.md` bytes: keys in §2.1 order, empty strings dropped, gray-matter framing (§2.2)."""
    unknown = set(frontmatter) - set(FRONTMATTER_KEYS)
    if unknown:
        raise ValueError(f"unknown frontmatter keys: {sorted(unknown)}")
    items = [(k, frontmatter[k]) for k in FRONTMATTER_KEYS if k in frontmatter and frontmatter[k] != ""]
    body = "\n\n".join(f"## Turn {t.turn_id} — {t.timestamp} ({t.role})\n\n{t.content}" for t in turns)
    # gray-matter adds a newline to the body unless it has one, so an empty body becomes "\n".
    return f"---\n{dump_mapping(items)}\n---\n" + (body if body.endswith("\n") else body + "\n")


@dataclass(frozen=True)
class ToolCall:
    """A tool call as the cognition log lists it."""

    name: str
    params: Mapping[str, Any]
    status: str = "ok"


def _param(value: Any) -> str:
    if isinstance(value, str):
        return f'"{value[:80]}…"' if len(value) > 80 else f'"{value}"'
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def tool_line(call: ToolCall) -> str:
    """`` - `name`(key: value, …) → status `` with the first five parameters."""
    params = ", ".join(f"{k}: {_param(v)}" for k, v in list(call.params.items())[:5])
    return f"- `{call.name}`({params}) → {call.status}"


def cognition_body(thinking: Sequence[str], tools: Sequence[ToolCall]) -> str:
    """The body of one model step: a Thinking block and/or a Tools block, then a newline."""
    lines: list[str] = []
    if thinking:
        lines.append("\n### Thinking")
        lines.extend(p.strip() for p in thinking if p.strip())
    if tools:
        lines.append("\n### Tools")
        lines.extend(tool_line(c) for c in tools)
    return "\n".join(lines) + "\n"


def append_cognition(existing: str, turn_id: str, at: str, body: str) -> str:
    """Append one `## Cognition` entry the way the finalize step does (§3)."""
    entry = f"## Cognition {turn_id} — {at}\n{body}"
    return existing.rstrip() + "\n\n" + entry if existing.strip() else entry


def js_json(value: Any) -> str:
    """`JSON.stringify(value, null, 2)`: two-space indent, no trailing newline."""
    return json.dumps(value, indent=2, ensure_ascii=False)
