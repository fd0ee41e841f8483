"""Changing a slice's core.md safely: idempotent turn appends, conflict merges, appendix rescue.

Every write of a core.md goes through a `SliceUpdate`: a pair of storage `Update` functions (one
for core.md, one for appendix.md) evaluated against the file's *current* text. On a commit
conflict the storage re-evaluates them on the other writer's text, so both writers' turns
survive; re-running a step finds its turn already there and changes nothing; text the format
cannot hold moves to appendix.md in the same commit (docs/FORMAT.md).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from core.errors import NotFound, SliceIdTaken
from core.memory.paths import appendix_md, core_md
from core.memory.slice.appendix import append_appendix, rewrite_core_md
from core.memory.slice.model import Slice, Turn, parse_core_md, render_core_md
from core.storage.base import Update, WriteBatch
from core.text import utf16_slice

SliceEdit = Callable[[Slice], Slice | None]


def turn_key(turn: Turn) -> str:
    """What makes a turn the same turn: its id and role, or (no real id) time, role and opening text.

    The user and agent turns of one round share an id, so the role is part of the key; the
    original keyed by id alone, which would drop an agent reply merged onto its user turn.
    """
    if turn.turn_id and turn.turn_id != "?":
        return f"id:{turn.turn_id}|{turn.role}"
    return f"{turn.timestamp}|{turn.role}|{utf16_slice(turn.content, 0, 64)}"


def has_turn(s: Slice, turn: Turn) -> bool:
    """Whether `s` already holds `turn` (by `turn_key`)."""
    key = turn_key(turn)
    return any(turn_key(t) == key for t in s.turns)


def _union(first: Iterable[str], second: Iterable[str]) -> list[str]:
    return list(dict.fromkeys([*first, *second]))


def merge_slices(remote: Slice, local: Slice) -> Slice:
    """The remote slice (its frontmatter wins) plus local turns it lacks, tags and loops unioned."""
    merged = remote.copy()
    merged.tags = _union(remote.tags, local.tags)
    merged.loops = _union(remote.loops, local.loops)
    seen = {turn_key(t) for t in remote.turns}
    for turn in local.turns:
        key = turn_key(turn)
        if key not in seen:
            merged.turns.append(
                Turn(turn.turn_id, turn.timestamp, turn.role, turn.content, turn.legacy_label)
            )
            seen.add(key)
    return merged


def merge_turns(remote_text: str, local: Slice) -> str:
    """The conflict merge of the original's finalize step, as core.md text."""
    return render_core_md(merge_slices(parse_core_md(remote_text), local))


@dataclass
class SliceUpdate:
    """Linked storage updates for one slice's core.md and appendix.md.

    `edit` gets the slice parsed from the current core.md and returns the slice to write (or None
    for no change); when core.md does not exist yet, `create` is edited instead (NotFound when
    there is none).
    """

    edit: SliceEdit
    now_iso: str
    create: Slice | None = None
    _moved: str | None = field(default=None, init=False, repr=False)

    def core(self, current: str | None) -> str | None:
        """The core.md update: the new text, or None to leave the file alone."""
        self._moved = None
        if current is None or not current.strip():
            if self.create is None:
                raise NotFound("This slice has no core.md to change.")
            base = self.create.copy()
            return render_core_md(self.edit(base) or base)
        edited = self.edit(parse_core_md(current))
        if edited is None:
            return None
        text, moved = rewrite_core_md(current, edited, self.now_iso)
        if text == current:
            return None
        self._moved = moved
        return text

    def appendix(self, current: str | None) -> str | None:
        """The appendix.md update: append what the last core.md evaluation moved out, if anything."""
        return append_appendix(current, self._moved) if self._moved else None

    def changes(self, slice_id: str) -> list[Update]:
        """The two storage changes, core.md first (its evaluation feeds the appendix one).

        Always queue both: `core` alone would rewrite core.md without saving what it moves out.
        """
        appendix = Update(appendix_md(slice_id), self.appendix, self.moves)
        return [Update(core_md(slice_id), self.core), appendix]

    def moves(self) -> bool:
        """Whether the core.md change (evaluated first) moved text out: only then is appendix.md
        read and written, so a damaged appendix never stops a turn's save."""
        return self._moved is not None

    def queue(self, batch: WriteBatch, slice_id: str) -> None:
        """Queue both changes on a write batch."""
        batch.update(core_md(slice_id), self.core)
        batch.update(appendix_md(slice_id), self.appendix, self.moves)


def edit_slice(edit: SliceEdit, now_iso: str, create: Slice | None = None) -> SliceUpdate:
    """A general slice change (close, mark, add tags …) as linked storage updates."""
    return SliceUpdate(edit, now_iso, create)


def append_turn(
    turn: Turn, now_iso: str, *, create: Slice | None = None, edit: SliceEdit | None = None
) -> SliceUpdate:
    """Append `turn` unless the slice already holds it (so re-running never duplicates it).

    `edit` (optional) is applied first, e.g. to add the turn's tags; `create` is the slice to
    start from when core.md does not exist yet.
    """

    def apply(s: Slice) -> Slice:
        out = (edit(s) if edit else None) or s
        if not has_turn(out, turn):
            out.turns.append(Turn(turn.turn_id, turn.timestamp, turn.role, turn.content, turn.legacy_label))
        return out

    return SliceUpdate(apply, now_iso, create)


def merge_local(local: Slice, now_iso: str) -> SliceUpdate:
    """Write `local` onto whatever core.md holds now: the remote wins, missing local turns are added."""
    return SliceUpdate(lambda remote: merge_slices(remote, local), now_iso, create=local)


def create_slice(new: Slice, now_iso: str) -> SliceUpdate:
    """Write a newly opened slice; SliceIdTaken if its directory already holds a different slice.

    Re-running the step that created it (its first turn is already there) changes nothing.
    """

    def refuse_other(existing: Slice) -> Slice | None:
        if new.turns and has_turn(existing, new.turns[0]):
            return None
        raise SliceIdTaken(
            f"Slice {new.slice_id} already exists with other turns; "
            "open the new slice at the next free minute."
        )

    return SliceUpdate(refuse_other, now_iso, create=new)
