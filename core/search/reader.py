"""Read slices for indexing: find every core.md in a snapshot and pull out the searchable text.

`read_slice` is the one place that parses core.md here; it becomes a thin wrapper over
`core.memory.slice.parse_core_md` once that lands. It never raises on a damaged file: broken
YAML leaves the frontmatter fields empty and the turns are still indexed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Protocol

import yaml

from core.memory.paths import SLICES, MemoryPath

_CORE_RE = re.compile(r"^memory/episodic/slices/(\d{4})/(\d{2})/(\d{2})/(\d{4})/timeline/core\.md$")
_LEGACY_RE = re.compile(r"^memory/episodic/slices/(\d{4})/(\d{2})/(\d{2})/(\d{4})\.md$")
_TURN_RE = re.compile(r"^## Turn (\S+) — (\S+) \((\w+)\)", re.MULTILINE)
# libyaml's safe loader when PyYAML was built with it (parsing dominates indexing time).
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_FRONT_RE = re.compile(r"^---[ \t]*\r?\n(.*?)\r?\n---[ \t]*(?:\r?\n|$)", re.DOTALL)


class Readable(Protocol):
    """What indexing needs from storage: a Snapshot or a WriteBatch (read-your-writes)."""

    def read(self, path: MemoryPath) -> str | None: ...

    def list(self, prefix: MemoryPath) -> list[MemoryPath]: ...


@dataclass
class TurnText:
    """One turn's role, timestamp and text."""

    role: str
    timestamp: str
    content: str


@dataclass
class SliceText:
    """The parts of a slice the index reads."""

    slice_id: str
    start: str = ""
    timezone: str = "UTC"
    status: str = "active"
    focus: str = ""
    summary: str = ""
    tags: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    turns: list[TurnText] = field(default_factory=list)

    @property
    def head(self) -> str:
        """Focus, summary, tags, open loops and decisions: what the slice says about itself."""
        return "\n".join(p for p in (self.focus, self.summary, *self.tags, *self.notes) if p)


def slice_paths(snapshot: Readable) -> dict[str, MemoryPath]:
    """Slice id → its core.md (or legacy flat `HHMM.md`) for every slice in the snapshot."""
    found: dict[str, MemoryPath] = {}
    for path in snapshot.list(SLICES):
        m = _CORE_RE.match(path.value)
        if m:
            found["-".join(m.groups())] = path
    for path in snapshot.list(SLICES):
        m = _LEGACY_RE.match(path.value)
        if m:
            found.setdefault("-".join(m.groups()), path)
    return found


def _text(value: Any) -> str:
    if isinstance(value, str):
        return value.strip()
    if isinstance(value, dict) and value:
        return str(next(iter(value))).strip()
    if value is None or isinstance(value, (list, tuple)):
        return ""
    return str(value).strip()


def _texts(value: Any) -> list[str]:
    if not isinstance(value, list):
        return []
    return [t for t in (_text(v) for v in value) if t]


def _frontmatter(text: str) -> tuple[dict[str, Any], str]:
    m = _FRONT_RE.match(text)
    if not m:
        return {}, text
    try:
        data = yaml.load(m.group(1), Loader=_LOADER)
    except yaml.YAMLError:
        data = None
    return (data if isinstance(data, dict) else {}), text[m.end() :]


def _turns(body: str) -> list[TurnText]:
    heads = list(_TURN_RE.finditer(body))
    turns = []
    for i, h in enumerate(heads):
        end = heads[i + 1].start() if i + 1 < len(heads) else len(body)
        turns.append(TurnText(h.group(3), h.group(2), body[h.end() : end].strip()))
    return turns


def read_slice(slice_id: str, text: str) -> SliceText:
    """Parse one core.md (any key order, any quoting) into the fields the index uses."""
    fm, body = _frontmatter(text)
    start = fm.get("start")
    start_text = start.isoformat() if start is not None and hasattr(start, "isoformat") else _text(start)
    return SliceText(
        slice_id=slice_id,
        start=start_text,
        timezone=_text(fm.get("timezone")) or "UTC",
        status=_text(fm.get("status")) or "active",
        focus=_text(fm.get("focus")),
        summary=_text(fm.get("summary")),
        tags=_texts(fm.get("tags")),
        notes=_texts(fm.get("open_loops")) + _texts(fm.get("decisions")),
        turns=_turns(body),
    )
