"""Taking the last exchange back before it is answered again: regenerate, or edit and resend.

The exchange (your message and the reply, one turn id) leaves the active slice's core.md and is
kept word for word in agent.md, in an entry `## Cognition <turn id> — <time> (replaced)`, so a
regenerated reply or an edited message never silently drops the words it replaces. The client
then sends the message (the same text, or the edited one) as a new turn, with the pictures
that were attached (`Retracted.pictures`, still stored in the slice) sent again by reference.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from core.clock import Clock, iso
from core.errors import InvalidInput, NotFound
from core.memory.config_store import read_config
from core.memory.evolution.fitness import Signal
from core.memory.evolution.store import record_signal
from core.memory.owners import catalog, slice_core
from core.memory.slice.agent_parts import queue_entry
from core.memory.slice.appendix import code_fence
from core.memory.slice.model import Slice, Turn
from core.memory.slice.picture_links import StoredPicture, split_turn_text
from core.storage.base import Storage, WriteBatch

RetractReason = Literal["regenerate", "message_edited"]
REPLACED = "(replaced)"
_TITLES = {"Replaced message": "user", "Replaced reply": "agent"}
_BLOCK_RE = re.compile(r"### (Replaced message|Replaced reply)\n\n(`{3,})\n")


@dataclass(frozen=True)
class Retracted:
    """The exchange taken back: its message (to send again: the words, and the pictures that
    were attached, still stored in the slice) and whether it had a reply."""

    slice_id: str
    turn_id: str
    message: str
    had_reply: bool
    pictures: tuple[StoredPicture, ...] = ()


def _block(title: str, text: str) -> str:
    fence = code_fence(text)
    return f"\n### {title}\n\n{fence}\n{text}\n{fence}\n"


def replaced_body(turns: list[Turn]) -> str:
    """The body of the agent.md entry that keeps a taken-back exchange, word for word."""
    return "".join(
        _block("Replaced message" if t.role == "user" else "Replaced reply", t.content) for t in turns
    )


def parse_replaced_body(body: str) -> list[tuple[str, str]]:
    """The inverse of `replaced_body` for an entry read back (trimmed, unescaped): the taken-back
    turns as (role, text), word for word. A block that is not as written ends the list there."""
    out: list[tuple[str, str]] = []
    at = 0
    while (m := _BLOCK_RE.match(body, at)) is not None:
        close = body.find(f"\n{m[2]}", m.end())
        if close == -1 or body.startswith("`", close + 1 + len(m[2])):
            break
        out.append((_TITLES[m[1]], body[m.end() : close]))
        at = close + 1 + len(m[2])
        while body.startswith("\n", at):
            at += 1
    return out


def is_replaced(label: str) -> bool:
    """Whether an agent.md entry label (after `## Cognition `) is a taken-back exchange's."""
    return label.endswith(" " + REPLACED)


def _last_exchange(s: Slice, turn_id: str) -> list[Turn]:
    mine = [t for t in s.turns if t.turn_id == turn_id]
    if not mine:
        raise NotFound(
            f"Slice {s.slice_id} has no turn {turn_id}; GET /api/slices/{s.slice_id} lists its turns."
        )
    if s.turns[-len(mine) :] != mine:
        raise InvalidInput(
            f"Turn {turn_id} is not the last exchange of slice {s.slice_id}; only the last one can be "
            "answered again or edited."
        )
    if s.status != "active":
        raise InvalidInput(f"Slice {s.slice_id} has closed; send a new message instead.")
    return mine


def retract_exchange(
    storage: Storage, slice_id: str, turn_id: str, clock: Clock, why: RetractReason = "regenerate"
) -> Retracted:
    """Move the slice's last exchange from core.md into agent.md (one commit).

    `why` (answer again, or the user's message edited) is recorded as a fitness signal.
    """
    batch = WriteBatch.open(storage)
    legacy = f"Slice {slice_id} is an old single-file slice; send a new message instead."
    current = slice_core.read_for_change(batch, slice_id, legacy)
    taken = _last_exchange(current, turn_id)
    now = clock.now()

    def without(s: Slice) -> Slice:
        out = s.copy()
        out.turns = [t for t in out.turns if t.turn_id != turn_id]
        return out

    queue_entry(batch, slice_id, f"{turn_id} — {iso(now)} {REPLACED}", replaced_body(taken), once_for=None)
    slice_core.queue_change(batch, slice_id, without, now)
    catalog.queue_entries(batch, without(current), now, read_config(batch)[0].locale)
    record_signal(batch, Signal(why, iso(now), slice_id))
    batch.commit(f"Turn {turn_id} — taken back to be answered again")
    stored = next((t.content for t in taken if t.role == "user"), "")
    message, pictures = split_turn_text(stored, slice_id, turn_id)
    return Retracted(slice_id, turn_id, message, any(t.role != "user" for t in taken), tuple(pictures))
