"""Notes other agents ask the memory to keep (MCP `remember`), and how they become turns.

A note never edits memory by itself. Depending on config.json `mcpRemember` it is refused
(`off`, the default), staged in `memory/inbox/notes/<id>.json` until the user accepts it
(`stage`), or appended straight away as a turn of the open slice (`append`). An accepted note
becomes that same turn, its text kept word for word under a first line naming its source.
A staged note is never deleted: accepting or declining only records the decision in its file.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, replace
from datetime import datetime, timedelta
from typing import Literal

from core.clock import IdSource, iso
from core.errors import ConflictError, InvalidInput, NotFound, ReadOnly
from core.memory.config import UserConfig
from core.memory.paths import NOTES_DIR, MemoryPath
from core.memory.slice.merge import append_turn
from core.memory.slice.model import Turn
from core.memory.slice.slicer import ActiveSlice, find_active_slice, slice_age_exceeded
from core.storage.base import Reader, WriteBatch
from core.text import js_trim, utf16_len

MAX_NOTE_CHARS = 20_000
MAX_SOURCE_CHARS = 80
Status = Literal["staged", "accepted", "declined"]
STATUSES: tuple[Status, ...] = ("staged", "accepted", "declined")
OFF_HINT = (
    "Writing to this memory from other agents is off. Its owner can allow it in "
    'memory/user/config.json: "mcpRemember": "stage" (notes wait until the owner accepts them '
    'with `previously notes accept`) or "append" (a note becomes a turn of the open conversation).'
)


@dataclass(frozen=True)
class StagedNote:
    """One note: who sent it and when, its exact text, and what the user decided."""

    note_id: str
    received: str
    source: str
    text: str
    status: Status = "staged"
    decided: str = ""
    slice_id: str = ""


@dataclass(frozen=True)
class Remembered:
    """What `remember` did: `staged` (with the note) or `appended` (with the slice and turn)."""

    outcome: Literal["staged", "appended"]
    note: StagedNote | None = None
    slice_id: str = ""
    turn_id: str = ""
    why_staged: str = ""


def note_path(note_id: str) -> MemoryPath:
    """Where one note lives (`memory/inbox/notes/<id>.json`)."""
    if not note_id or "/" in note_id or note_id.startswith("."):
        raise InvalidInput(f'"{note_id}" is not a note id; `previously notes` lists them.')
    return NOTES_DIR / f"{note_id}.json"


def render_note(note: StagedNote) -> str:
    """The note file: 2-space JSON in field order, non-ASCII kept, one trailing newline."""
    return json.dumps(asdict(note), ensure_ascii=False, indent=2) + "\n"


def parse_note(text: str, where: str = "note") -> StagedNote:
    """A note file back into its value; InvalidInput naming the file when it is not one."""
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise InvalidInput(f"{where} is not valid JSON ({exc}); fix or remove the file.") from exc
    fields = ("note_id", "received", "source", "text", "status", "decided", "slice_id")
    if not isinstance(data, dict) or any(not isinstance(data.get(f, ""), str) for f in fields):
        raise InvalidInput(f"{where} is not a staged note (expected text fields {', '.join(fields)}).")
    if data.get("status", "staged") not in STATUSES or not data.get("note_id") or "text" not in data:
        raise InvalidInput(f"{where} is not a staged note (its id, text or status is missing or wrong).")
    return StagedNote(**{f: data[f] for f in fields if f in data})


def check_note_text(text: str) -> str:
    """The text as given, when it has words and fits; InvalidInput saying what to change."""
    if not isinstance(text, str) or not js_trim(text):
        raise InvalidInput("Nothing to remember: send the text of the note.")
    if utf16_len(text) > MAX_NOTE_CHARS:
        raise InvalidInput(
            f"The note is {utf16_len(text)} characters; the limit is {MAX_NOTE_CHARS}. "
            "Send the essentials, or several shorter notes."
        )
    return text  # any text, `## Turn ` lines too: core.md escapes them (docs/FORMAT.md "Escaped turn text")


def clean_source(source: str) -> str:
    """One short line naming the sender (`MCP` when it gave nothing usable)."""
    line = " ".join((source or "").split())[:MAX_SOURCE_CHARS]
    return line or "MCP"


def marked_text(note_text: str, source: str) -> str:
    """The turn's text: a first line naming the source, then the note word for word."""
    return f"[remembered via {clean_source(source)}]\n\n{note_text}"


def remember(
    batch: WriteBatch, text: str, source: str, config: UserConfig, now: datetime, ids: IdSource
) -> Remembered:
    """Queue what config.json allows for a note (nothing is committed here); ReadOnly when refused."""
    check_note_text(text)
    mode = config.mcp_remember
    if mode not in ("stage", "append"):
        raise ReadOnly(OFF_HINT)
    if mode == "append":
        active = open_slice(batch, config, now)
        if active is not None:
            turn_id = queue_turn(batch, active, text, source, now, ids)
            return Remembered("appended", slice_id=active.slice.slice_id, turn_id=turn_id)
    note = stage(batch, text, source, now, ids)
    why = "no conversation is open to add it to" if mode == "append" else ""
    return Remembered("staged", note=note, why_staged=why)


def stage(batch: WriteBatch, text: str, source: str, now: datetime, ids: IdSource) -> StagedNote:
    """Queue a new staged note (its id: the UTC second it arrived plus a random turn id)."""
    note_id = f"{now.strftime('%Y%m%d-%H%M%S')}-{ids.turn_id()}"
    note = StagedNote(note_id, iso(now), clean_source(source), check_note_text(text))
    path = note_path(note_id)
    batch.update(path, lambda current: _create_only(current, note))
    return note


def _create_only(current: str | None, note: StagedNote) -> str | None:
    if current is not None and parse_note(current).text != note.text:
        raise ConflictError(f"Note {note.note_id} already exists with other text; send the note again.")
    return render_note(note) if current is None else None


def open_slice(reader: Reader, config: UserConfig, now: datetime) -> ActiveSlice | None:
    """The active slice a note may join: not legacy, and neither past its time cap nor full."""
    active = find_active_slice(reader, now)
    if active is None or active.legacy:
        return None
    s = active.slice
    if slice_age_exceeded(
        s.start, now, int(timedelta(minutes=config.max_slice_minutes).total_seconds() * 1000)
    ):
        return None
    return None if len(s.turns) >= config.max_turns_per_slice else active


def queue_turn(
    batch: WriteBatch, active: ActiveSlice, text: str, source: str, now: datetime, ids: IdSource
) -> str:
    """Queue the note as a user turn of `active` (merged, never overwriting); returns its turn id."""
    check_note_text(text)  # a hand-edited staged note too
    turn_id = ids.turn_id()
    turn = Turn(turn_id=turn_id, timestamp=iso(now), role="user", content=marked_text(text, source))
    append_turn(turn, iso(now)).queue(batch, active.slice.slice_id)
    return turn_id


def list_notes(reader: Reader) -> list[StagedNote]:
    """Every note, oldest first; InvalidInput naming the first file that is not a note."""
    notes = []
    for path in reader.list(NOTES_DIR):
        if not path.name.endswith(".json"):
            continue
        text = reader.read(path)
        if text is not None:
            notes.append(parse_note(text, str(path)))
    return sorted(notes, key=lambda n: n.note_id)


def read_note(reader: Reader, note_id: str) -> StagedNote:
    """One note; NotFound with a hint when there is none."""
    path = note_path(note_id)
    text = reader.read(path)
    if text is None:
        raise NotFound(f"There is no note {note_id}; `previously notes` lists them.")
    return parse_note(text, str(path))


def accept(batch: WriteBatch, note_id: str, config: UserConfig, now: datetime, ids: IdSource) -> StagedNote:
    """Queue a staged note as a turn of the open slice and record the acceptance in its file."""
    note = _pending(batch, note_id)
    active = open_slice(batch, config, now)
    if active is None:
        raise ConflictError(
            "No conversation is open to add the note to. Start one (previously chat or the web app), "
            "then accept again; the note stays staged."
        )
    queue_turn(batch, active, note.text, note.source, now, ids)
    decided = replace(note, status="accepted", decided=iso(now), slice_id=active.slice.slice_id)
    batch.update(note_path(note_id), lambda current: _decide(current, decided))
    return decided


def decline(batch: WriteBatch, note_id: str, now: datetime) -> StagedNote:
    """Queue the decision not to keep a staged note (the file stays, marked declined)."""
    decided = replace(_pending(batch, note_id), status="declined", decided=iso(now))
    batch.update(note_path(note_id), lambda current: _decide(current, decided))
    return decided


def _pending(reader: Reader, note_id: str) -> StagedNote:
    note = read_note(reader, note_id)
    if note.status != "staged":
        raise ConflictError(f"Note {note_id} was already {note.status} on {note.decided}.")
    return note


def _decide(current: str | None, decided: StagedNote) -> str:
    """The decided note, unless another writer decided it first (then refuse; nothing is lost)."""
    if current is None:
        raise NotFound(f"Note {decided.note_id} disappeared; `previously notes` lists what is left.")
    now_there = parse_note(current)
    if now_there.status != "staged":
        raise ConflictError(f"Note {decided.note_id} was already {now_there.status} on {now_there.decided}.")
    return render_note(decided)
