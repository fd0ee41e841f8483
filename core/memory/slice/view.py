"""One slice as a reader sees it: turns, frontmatter, cognition per agent turn, snapshot, appendix.

`GET /api/slices/{id}` and the slice view of the UI read through here. A slice whose YAML is
broken is still shown: its turns come from the body and `problem` says which line to fix.
"""

from __future__ import annotations

from dataclasses import dataclass

from core.errors import Damage, DamagedFile, InvalidInput, NotFound, SliceFormatError
from core.memory.catalog.recent import Lister
from core.memory.damage import read_or_skip, read_text
from core.memory.paths import (
    MemoryPath,
    SliceId,
    appendix_md,
    card_snapshot,
    core_md,
    legacy_flat_md,
)
from core.memory.slice.agent_parts import cognition_in, read_parts
from core.memory.slice.model import Slice, Turn, parse_core_md, salvage_turns


@dataclass(frozen=True)
class SliceDetail:
    """A slice plus its side files (what the slice page shows); `cognition` maps round (turn)
    ids to their agent.md block."""

    slice: Slice
    path: MemoryPath
    cognition: dict[str, str]
    previously: str | None
    appendix: str | None
    problem: str | None = None

    def cognition_of(self, turn: Turn) -> str | None:
        """An agent turn's cognition block (user turns share the round's id but have none)."""
        if turn.role == "user" or not turn.turn_id:
            return None
        return self.cognition.get(turn.turn_id)


def slice_file(view: Lister, slice_id: str) -> tuple[MemoryPath, str | Damage]:
    """The file holding a slice (core.md, else a legacy flat file) and its text, or what makes it
    unreadable; NotFound when there is neither."""
    SliceId.parse(slice_id)  # InvalidInput before any read
    for path in (core_md(slice_id), legacy_flat_md(slice_id)):
        try:
            text = read_text(view, path)
        except DamagedFile as exc:
            return path, exc.damage
        if text is not None:
            return path, text
    raise missing_slice(slice_id)


def readable_slice_file(view: Lister, slice_id: str) -> tuple[MemoryPath, str]:
    """`slice_file` for changes that must parse the slice: a damaged file is refused, untouched."""
    path, text = slice_file(view, slice_id)
    if isinstance(text, Damage):
        raise InvalidInput(
            f"{text}. Repair the file first (it is left exactly as it is), or forget the whole slice."
        )
    return path, text


def missing_slice(slice_id: str) -> NotFound:
    """The error for a slice id with no files, saying where to find the ones that exist."""
    return NotFound(f"There is no slice {slice_id}; GET /api/timeline lists the slices that exist.")


def _parse(slice_id: str, text: str | Damage) -> tuple[Slice, str | None]:
    if isinstance(text, Damage):
        return Slice(slice_id=slice_id), text.problem
    try:
        s = parse_core_md(text)
    except SliceFormatError as exc:
        fallback = Slice(slice_id=slice_id, turns=salvage_turns(text))
        return fallback, f"{exc} The turns shown are read from the rest of the file."
    if not s.slice_id:
        s.slice_id = slice_id
    return s, None


def read_slice_detail(view: Lister, slice_id: str) -> SliceDetail:
    """Everything the slice view shows; NotFound for an unknown id, InvalidInput for a malformed one."""
    path, text = slice_file(view, slice_id)
    s, problem = _parse(slice_id, text)
    log = read_parts(view, slice_id)
    cognition = {}
    for turn in s.turns:
        if turn.role != "user" and turn.turn_id and log:
            block = cognition_in(log, turn.turn_id)
            if block:
                cognition[turn.turn_id] = block
    return SliceDetail(
        slice=s,
        path=path,
        cognition=cognition,
        previously=read_or_skip(view, card_snapshot(slice_id)),
        appendix=read_or_skip(view, appendix_md(slice_id)),
        problem=problem,
    )
