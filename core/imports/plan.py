"""The Only Way In: read an export, and say exactly what importing it would do — writing nothing.

`plan_import` streams the export once, cuts every conversation into slices, checks that each
slice reads back as written, and gives every slice an id: its first message's minute, or the
next free one. An id already holding the same part of the same conversation (found through the
`source` frontmatter and the first turn id) makes that slice `unchanged`, or `extend` when the
newer export only adds turns at its end; an id holding anything else is passed over. The plan's
`digest` names the file and every decision, so an accepted preview is applied exactly as shown.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from core.clock import iso
from core.errors import InvalidInput, SliceFormatError
from core.imports.bounds import Deadline
from core.imports.instructions import new_card_lines
from core.imports.model import Skipped
from core.imports.source import ExportFile
from core.imports.timeslice import Part, build_slice, split_conversation, turn_hash
from core.memory import paths
from core.memory.config import UserConfig
from core.memory.slice.model import Slice, parse_core_md, render_core_md
from core.memory.slice.slicer import minute_id, new_slice_id, slice_taken
from core.storage.base import Reader

Progress = Callable[[str, int, int | None], None]
ACTIONS = ("new", "extend", "unchanged", "kept")
PREVIEW_SKIPPED = 50


@dataclass(frozen=True)
class PlannedSlice:
    """One slice of the plan: where it goes and what happens there."""

    slice_id: str
    action: str
    key: str
    conversation: str
    start: str
    turns: int
    new_turns: int
    fingerprint: str
    title: str = ""  # the conversation's own title; "" when the export gives none

    def as_dict(self) -> dict[str, Any]:
        return {
            "slice_id": self.slice_id,
            "action": self.action,
            "conversation": self.conversation,
            "title": self.title,
            "start": self.start,
            "turns": self.turns,
            "new_turns": self.new_turns,
        }


@dataclass
class PlannedProject:
    """A Claude project of the export: the slice holding its texts, and its documents."""

    project: str
    key: str  # the start of its slice's key: tool and conversation id
    documents: int
    slice_id: str = ""
    action: str = ""

    def as_dict(self) -> dict[str, Any]:
        return {
            "project": self.project,
            "documents": self.documents,
            "slice_id": self.slice_id,
            "action": self.action,
        }


@dataclass
class ImportPlan:
    """What importing one export would create, change and skip."""

    tool: str
    file_name: str
    file_sha: str
    conversations: int = 0
    messages: int = 0
    attachments: int = 0
    images: int = 0
    asides: int = 0
    slices: list[PlannedSlice] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    # The export's instructions / profile text, as the lines accepting adds to the card's Unsorted.
    card_lines: list[str] = field(default_factory=list)
    projects: list[PlannedProject] = field(default_factory=list)
    memory_lines: int = 0  # lines of the export's memories (those not on the card yet are card_lines)

    @property
    def counts(self) -> dict[str, int]:
        found = Counter(s.action for s in self.slices)
        return {a: found.get(a, 0) for a in ACTIONS}

    @property
    def first(self) -> str:
        return min((s.start for s in self.slices), default="")

    @property
    def last(self) -> str:
        return max((s.start for s in self.slices), default="")

    @property
    def writes(self) -> int:
        """Slices to create or extend, plus one for card lines (0: accepting changes nothing)."""
        return sum(1 for s in self.slices if s.action in ("new", "extend")) + (1 if self.card_lines else 0)

    @property
    def digest(self) -> str:
        """Names the file and every decision; an accept must match the preview it answers."""
        h = hashlib.sha256(f"{self.tool}|{self.file_sha}".encode())
        for s in self.slices:
            h.update(f"|{s.slice_id}|{s.action}|{s.fingerprint}".encode())
        for line in self.card_lines:
            h.update(f"|card|{line}".encode())
        return h.hexdigest()[:32]

    def as_dict(self, limit: int = 200) -> dict[str, Any]:
        """The preview: totals, the date range, the first `limit` slices, and the skipped rows."""
        reasons = Counter(s.why for s in self.skipped)
        return {
            "format": self.tool,
            "file": self.file_name,
            "digest": self.digest,
            "conversations": self.conversations,
            "messages": self.messages,
            "attachments": self.attachments,
            "images": self.images,
            "kept_aside": self.asides,
            "slices": self.counts,
            "first": self.first,
            "last": self.last,
            "writes": self.writes,
            "planned": [s.as_dict() for s in self.slices[:limit]],
            "planned_total": len(self.slices),
            "card_lines": self.card_lines,
            "projects": [p.as_dict() for p in self.projects],
            "documents": sum(p.documents for p in self.projects),
            "memory_lines": self.memory_lines,
            "skipped": [str(s) for s in self.skipped[:PREVIEW_SKIPPED]],
            "skipped_total": len(self.skipped),
            "skipped_reasons": dict(sorted(reasons.items())),
        }


@dataclass(frozen=True)
class _Found:
    key: str
    start: datetime
    label: str
    hashes: tuple[str, ...]
    first_role: str = "user"
    title: str = ""


def file_sha(path: Path) -> str:
    """The export file's sha256 (read in chunks)."""
    h = hashlib.sha256()
    with path.open("rb") as f:
        while chunk := f.read(1 << 20):
            h.update(chunk)
    return h.hexdigest()


def plan_import(
    export: ExportFile,
    reader: Reader,
    config: UserConfig,
    progress: Progress | None = None,
    deadline: Deadline | None = None,
) -> ImportPlan:
    """Stream the export and plan every slice; InvalidInput (naming the conversation) on bad input."""
    plan = ImportPlan(export.fmt, export.name, file_sha(export.path))
    found: list[_Found] = []
    for conv in export.conversations():
        if deadline is not None:
            deadline.check(export.name)
        if conv.kind == "project":
            key = f"{conv.tool}|{conv.conversation_id}|"
            plan.projects.append(PlannedProject(conv.label, key, len(conv.attachments)))
        else:
            plan.conversations += 1
            plan.messages += len(conv.messages)
            plan.attachments += len(conv.attachments)
        plan.images += sum(1 for p in conv.pictures if p.image is not None)
        plan.asides += sum(len(a.messages) for a in conv.asides)
        plan.skipped.extend(conv.skipped)
        parts = split_conversation(conv, config)
        if not parts:
            rows = sum(len(a.messages) for a in conv.asides)
            why = "it has no message to show" + (
                f" (its {rows} hidden rows are not imported)" if rows else ""
            )
            plan.skipped.append(Skipped(conv.label, "the conversation", why))
        for part in parts:
            check_round_trip(part)
            found.append(
                _Found(
                    part.key, part.start, conv.label, part.turn_hashes, part.turns[0].role, conv.shown_title
                )
            )
        if progress:
            progress("read", plan.conversations, None)
    _check_unique(found)
    plan.slices = allocate(found, reader)
    _place_projects(plan)
    instructions, extras = export.instructions()
    plan.memory_lines = len(extras.memories)
    plan.card_lines, refused = new_card_lines(reader, instructions)
    plan.skipped += extras.skipped + refused
    return plan


def _place_projects(plan: ImportPlan) -> None:
    """Each project named with the slice that holds it (its first, for one cut in pieces)."""
    for project in plan.projects:
        mine = next((s for s in plan.slices if s.key.startswith(project.key)), None)
        if mine is not None:
            project.slice_id, project.action = mine.slice_id, mine.action
        if project.action == "kept":
            why = (
                f"slice {project.slice_id} holds an earlier version of it and is kept as it is; "
                "what the export has new there (documents included) is not imported"
            )
            plan.skipped.append(Skipped(project.project, "the project's new texts and documents", why))


def check_round_trip(part: Part) -> None:
    """Refuse a slice whose core.md would not read back as its turns (a word would be lost)."""
    s = build_slice(part, minute_id(part.start))
    back = parse_core_md(render_core_md(s)).turns
    mine = [(t.turn_id, t.timestamp, t.role, t.content) for t in part.turns]
    theirs = [(t.turn_id, t.timestamp, t.role, t.content) for t in back]
    if mine == theirs:
        return
    at = next((i for i, (a, b) in enumerate(zip(mine, theirs, strict=False)) if a != b), len(theirs))
    msg = part.turns[min(at, len(part.turns) - 1)]
    raise InvalidInput(
        f"{part.conversation.tool} conversation {part.conversation.label}: the message at "
        f"{msg.timestamp} ({msg.role}) holds text the slice format would read differently "
        "(a line shaped like a turn header); nothing was imported."
    )


def _check_unique(found: list[_Found]) -> None:
    seen: dict[str, str] = {}
    for f in found:
        if f.key in seen:
            raise InvalidInput(
                f"Conversation {f.label} appears twice in the export (or shares its id with "
                f"{seen[f.key]}); nothing was imported."
            )
        seen[f.key] = f.label


def allocate(found: list[_Found], reader: Reader) -> list[PlannedSlice]:
    """Give each part an id, in time order so the result does not depend on the export's order."""
    taken_here: set[str] = set()
    out: list[PlannedSlice] = []
    for f in sorted(found, key=lambda f: (f.start, f.key)):
        existing: dict[str, Slice] = {}

        def taken(candidate: str, f: _Found = f, existing: dict[str, Slice] = existing) -> bool:
            if candidate in taken_here:
                return True
            if not slice_taken(reader, candidate):
                return False
            mine = _ours(reader, candidate, f)
            if mine is not None:
                existing[candidate] = mine
                return False
            return True

        slice_id = new_slice_id(f.start, taken)
        taken_here.add(slice_id)
        action, new = _action(existing.get(slice_id), f)
        fingerprint = hashlib.sha256("".join(f.hashes).encode()).hexdigest()[:16]
        out.append(
            PlannedSlice(
                slice_id, action, f.key, f.label, iso(f.start), len(f.hashes), new, fingerprint, f.title
            )
        )
    return out


def _ours(reader: Reader, slice_id: str, f: _Found) -> Slice | None:
    """The slice at `slice_id` when it holds this part (same source and first turn), else None."""
    text = reader.read(paths.core_md(slice_id))
    if text is None:
        return None
    try:
        s = parse_core_md(text)
    except SliceFormatError:
        return None
    source = s.extra.get("source")
    if not isinstance(source, dict) or not s.turns:
        return None
    key = f"{source.get('tool')}|{source.get('conversation')}|{s.turns[0].turn_id}"
    base, cut, _ = f.key.partition("#")
    if key != base or s.turns[0].role != f.first_role:
        return None
    # A piece of a message cut across slices shares its turn id with the other pieces: its own
    # first words tell which one this slice holds.
    return s if not cut or turn_hash(s.turns[0]) == f.hashes[0] else None


def _action(existing: Slice | None, f: _Found) -> tuple[str, int]:
    if existing is None:
        return "new", len(f.hashes)
    have = tuple(turn_hash(t) for t in existing.turns)
    if have == f.hashes:
        return "unchanged", 0
    if f.hashes[: len(have)] == have:
        return "extend", len(f.hashes) - len(have)
    return "kept", 0
