"""A temporary minimal core.md reader/writer for tests until the formats work lands on main."""

from __future__ import annotations

import re

import yaml

from core.memory.catalog import SliceMeta
from core.memory.slice import Slice, Turn

_HEADER = re.compile(r"^## Turn (\S+) — (\S+) \((\w+)\)$", re.M)
_HEADER2 = re.compile(r"^## Turn (\S+) — (\S+) \((\w+)\)", re.M)


def core_text(s: Slice) -> str:
    fm = {"slice_id": s.slice_id, "status": s.status, "start": s.start, "tags": s.tags}
    body = "\n\n".join(f"## Turn {t.turn_id} — {t.timestamp} ({t.role})\n\n{t.content}" for t in s.turns)
    return "---\n" + yaml.safe_dump(fm, sort_keys=False) + "---\n" + body + "\n"


def parse_core(text: str) -> Slice:
    _, head, body = text.split("---\n", 2)
    fm = yaml.safe_load(head) or {}
    turns = [Turn(m.group(1), m.group(2), m.group(3), "") for m in _HEADER.finditer(body)]
    return Slice(
        slice_id=str(fm.get("slice_id", "")),
        status=str(fm.get("status", "active")),
        start=str(fm.get("start", "")),
        tags=list(fm.get("tags") or []),
        turns=turns,
    )


def read_meta(text: str) -> SliceMeta:
    """Frontmatter + parser-2 turn count (temporary, PyYAML)."""
    if not text.startswith("---"):
        return SliceMeta({}, len(_HEADER2.findall(text)))
    _, head, body = text.split("---\n", 2)
    return SliceMeta(yaml.safe_load(head) or {}, len(_HEADER2.findall(body)))
