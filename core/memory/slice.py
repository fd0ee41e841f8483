"""The slice model: one burst of conversation, stored as `timeline/core.md`.

Parsing and rendering of core.md live beside this model (docs/FORMAT.md, "core.md").
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class Turn:
    """One message in a slice. `turn_id` is None for legacy numeric headers (`## Turn 3 — …`)."""

    turn_id: str | None
    timestamp: str
    role: str
    content: str


@dataclass
class Slice:
    """A slice's frontmatter and turns. Empty strings mean "absent" on disk."""

    slice_id: str
    status: str = "active"
    start: str = ""
    timezone: str = "UTC"
    focus: str = ""
    end: str = ""
    summary: str = ""
    open_loops: list[str] = field(default_factory=list)
    decisions: list[str] = field(default_factory=list)
    tags: list[str] = field(default_factory=list)
    related_slices: list[str] = field(default_factory=list)
    loops: list[str] = field(default_factory=list)
    emotional_tone: str = ""
    closed_by: str = ""
    evolution_summary: str = ""
    # Ours: "fallback" when the focus/summary came from the deterministic mark (a model may redo it).
    marked_by: str = ""
    # Frontmatter keys we do not model, kept in file order so a rewrite loses nothing.
    extra: dict[str, Any] = field(default_factory=dict)
    turns: list[Turn] = field(default_factory=list)

    @property
    def closed(self) -> bool:
        return self.status == "closed"
