"""An export's custom instructions and profile text, offered to the user card instead of dropped.

A Claude export's zip may carry `projects.json` (each project's `prompt_template`: the
instructions its conversations ran with) and `users.json` (profile or preference text, under
one of `PROFILE_KEYS`). These are not conversations, so they become no turn. The preview lists
them; accepting the import adds each as one line under the card's `## Unsorted` heading —
through the card's writer, which keeps the replaced card in the card's history — where the person
sees it and sorts, edits or removes it (docs/CARD.md). Each line says where it came from; line breaks inside a
text are folded to spaces so the text cannot break the card's layout. Importing again adds
nothing that is already there.
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
from core.memory.card.model import render_card
from core.memory.card.store import ChangeBy, read_card, write_card
from core.storage.base import Reader, WriteBatch

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


def claude_instructions(archive: zipfile.ZipFile) -> tuple[list[Instruction], list[str]]:
    """The instructions in a Claude export's zip, and the files that could not be read (named)."""
    found: list[Instruction] = []
    problems: list[str] = []
    projects = _json_member(archive, "projects.json", problems)
    for project in projects if isinstance(projects, list) else []:
        if isinstance(project, dict) and _text(project.get("prompt_template")):
            name = str(project.get("name") or project.get("uuid") or "a project")
            found.append(
                Instruction(f'Claude export, project "{name}" instructions', project["prompt_template"])
            )
    users = _json_member(archive, "users.json", problems)
    for user in users if isinstance(users, list) else [users]:
        if isinstance(user, dict):
            found += [
                Instruction(f"Claude export, your {key.replace('_', ' ')}", user[key])
                for key in PROFILE_KEYS
                if _text(user.get(key))
            ]
    return found, problems


def new_card_lines(reader: Reader, instructions: Sequence[Instruction]) -> list[str]:
    """The card lines accepting would add (the ones the card does not hold yet), in order."""
    have = set(read_card(reader).card(_ANY_INSTANT).unplaced)
    out: list[str] = []
    for line in (i.card_line for i in instructions):
        if line not in have and line not in out:
            out.append(line)
    return out


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


def _json_member(archive: zipfile.ZipFile, name: str, problems: list[str]) -> Any:
    members = sorted((n for n in archive.namelist() if n.rsplit("/", 1)[-1] == name), key=len)
    if not members:
        return None
    try:
        if archive.getinfo(members[0]).file_size > MAX_JSON_BYTES:
            problems.append(f"{members[0]} is larger than {MAX_JSON_BYTES:,} bytes")
            return None
        with archive.open(members[0]) as f:
            text = f.read(MAX_JSON_BYTES + 1).decode("utf-8")
        return check_depth(decode_guarded(members[0], json.loads, text), members[0])
    except InvalidInput as exc:
        problems.append(str(exc))
        return None
    except (OSError, zipfile.BadZipFile, UnicodeDecodeError, ValueError, RuntimeError) as exc:
        problems.append(f"{members[0]} is not readable JSON ({exc})")
        return None
