"""An export's custom instructions and profile text, offered to the user card instead of dropped.

A Claude export's zip may carry `projects.json` (each project's `prompt_template`: the
instructions its conversations ran with), `users.json` (profile or preference text, under one
of `PROFILE_KEYS`) and `memories.json` (what Claude remembered: one card line per non-blank
line, read by `core/imports/claude_projects.py`). These are not conversations, so they become
no turn (a project's own slice keeps its instructions word for word too). The preview lists
them; accepting the import adds each as one line under the card's `## Unsorted` heading —
through the card's writer, which keeps the replaced card in the card's history — where the person
sees it and sorts, edits or removes it (docs/CARD.md). Each line says where it came from; line
breaks inside a text are folded to spaces so the text cannot break the card's layout.
Importing again adds nothing that is already there; a line the card would not read back as
written is refused and listed as skipped, never half-kept.
"""

from __future__ import annotations

import json
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from core.errors import InvalidInput
from core.imports.bounds import check_depth, decode_guarded
from core.imports.claude_projects import (
    MEMORIES_JSON,
    PROJECTS_JSON,
    Project,
    Read,
    read_memories,
    read_projects,
)
from core.imports.model import Skipped
from core.memory.card.model import Card, parse_card, render_card
from core.memory.card.store import ChangeBy, read_card, write_card
from core.storage.base import Reader, WriteBatch
from core.text import js_trim

PROFILE_KEYS = ("conversation_preferences", "user_preferences", "profile", "custom_instructions")
MAX_JSON_BYTES = 5_000_000  # projects.json / users.json are small; a huge one is not read whole
# Parsing stamps an empty card with an instant; the lines read do not depend on it.
_ANY_INSTANT = datetime(2000, 1, 1, tzinfo=UTC)


@dataclass(frozen=True)
class Instruction:
    """One text the export carried for the model: where it came from, and the text."""

    source: str
    text: str

    @property
    def card_line(self) -> str:
        return f"From the {self.source}: {' '.join(self.text.split())}"


def claude_instructions(archive: zipfile.ZipFile) -> tuple[list[Instruction], Read]:
    """The instructions, profile text and memories in a Claude export's zip, and what was read
    and left out (a file that could not be read, a value of the wrong type: named)."""
    found = Read()
    read_projects(_json_member(archive, PROJECTS_JSON, found), found)
    instructions = [
        Instruction(f'Claude export, project "{p.name or p.uuid}" instructions', p.prompt_template)
        for p in found.projects
        if _text(p.prompt_template)
    ]
    users = _json_member(archive, "users.json", found)
    for i, user in enumerate(users if isinstance(users, list) else [] if users is None else [users]):
        if not isinstance(user, dict):
            found.skip(f"users.json[{i}]", "the account", "it is not an object; no profile text was read")
        else:
            instructions += [
                Instruction(f"Claude export, your {key.replace('_', ' ')}", user[key])
                for key in PROFILE_KEYS
                if _text(user.get(key))
            ]
    names = {p.uuid: p.name for p in found.projects if p.name}
    read_memories(_json_member(archive, MEMORIES_JSON, found), names, found)
    instructions += [Instruction(source, line) for source, line in found.memories]
    return instructions, found


def claude_projects(archive: zipfile.ZipFile) -> list[Project]:
    """The projects of a Claude export's zip that have a time to be placed at (problems are
    reported by `claude_instructions`, which reads the same file)."""
    found = Read()
    read_projects(_json_member(archive, PROJECTS_JSON, found), found)
    return [p for p in found.projects if p.created is not None]


def new_card_lines(reader: Reader, instructions: Sequence[Instruction]) -> tuple[list[str], list[Skipped]]:
    """The card lines accepting would add (the ones the card does not hold yet), in order, and
    the ones refused because the card would not read them back as written (an HTML comment)."""
    have = set(read_card(reader).card(_ANY_INSTANT).unplaced)
    out: list[str] = []
    refused: list[Skipped] = []
    for i in instructions:
        line = i.card_line
        if line in have or line in out:
            continue
        if parse_card(render_card(Card(unplaced=[line])), _ANY_INSTANT).unplaced != [line]:
            why = "the card would not read this line back as written (a card hides HTML comments)"
            refused.append(Skipped(i.source, f"the line {js_trim(i.text)[:200]!r}", why))
            continue
        out.append(line)
    return out, refused


def queue_card_lines(batch: WriteBatch, lines: Sequence[str], now: datetime, tool: str) -> bool:
    """Queue the card with `lines` added under Unsorted (those not there yet); whether it changes."""
    stored = read_card(batch)
    card = stored.card(now)
    fresh = [line for line in lines if line not in card.unplaced]
    if not fresh:
        return False
    card.unplaced = [*card.unplaced, *fresh]
    reason = f"instructions from the {tool} export"
    return write_card(batch, render_card(card), reason, now, ChangeBy.IMPORT).changed


def _text(value: Any) -> bool:
    return isinstance(value, str) and bool(value.strip())


def _json_member(archive: zipfile.ZipFile, name: str, found: Read) -> Any:
    members = sorted((n for n in archive.namelist() if n.rsplit("/", 1)[-1] == name), key=len)
    if not members:
        return None
    try:
        if archive.getinfo(members[0]).file_size > MAX_JSON_BYTES:
            found.skip(members[0], "instructions", f"{members[0]} is larger than {MAX_JSON_BYTES:,} bytes")
            return None
        with archive.open(members[0]) as f:
            text = f.read(MAX_JSON_BYTES + 1).decode("utf-8")
        return check_depth(decode_guarded(members[0], json.loads, text), members[0])
    except InvalidInput as exc:
        found.skip(members[0], "instructions", str(exc))
        return None
    except (OSError, zipfile.BadZipFile, UnicodeDecodeError, ValueError, RuntimeError) as exc:
        found.skip(members[0], "instructions", f"{members[0]} is not readable JSON ({exc})")
        return None
