"""A slice as an outside agent reads it: the words exactly as written, in parts by character offset.

core.md escapes turn text (`#\\# Turn`, guard backslashes) so nothing a person writes can be read
as file structure; that escape is a storage detail no reader outside the file shows. The plain
text here is the core.md with every turn's text unescaped by the one slice parser
(`core.memory.slice.model`), the same path the API reads. A `chars` range returns exactly the
characters `offset`…`offset + length` of that plain text (Python characters, i.e. code points),
so any message, a 100,000-character line too, can be read whole in parts.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from core.actions.briefing import Arrival
from core.agent.slice_tools import OUTPUT_CHARS, SliceRange
from core.errors import SliceFormatError
from core.memory.formats import matter
from core.memory.formats.escape import has_flag_line
from core.memory.slice.model import Turn, parse_core_md, render_turn, salvage_turns

TURN_START = "\n## Turn "


class OutsideRange(SliceRange):
    """Which part of a slice to return (leave it out for the whole slice)."""

    type: Literal["turns", "last", "date", "search", "lines", "chars"] = Field(  # type: ignore[assignment]
        description=(
            "turns: the turns numbered in `indices` (0 = first); last: the last `count` turns; "
            "date: turns at or after `after`; search: turns containing any of `keywords`, with "
            "`context` neighbours; lines: lines `start`–`end` of the file (1-based, inclusive); "
            "chars: exactly `length` characters from `offset` of the file's plain text, no times "
            "added (read a long slice whole in parts: offset 0, then offset + length, until a part "
            "comes back shorter than `length`)"
        )
    )
    offset: int | None = Field(None, ge=0, description="for chars: the first character (0-based)")
    length: int | None = Field(
        None, ge=1, le=OUTPUT_CHARS, description=f"for chars: how many characters (at most {OUTPUT_CHARS})"
    )


def _turns(text: str) -> tuple[list[Turn], bool]:
    """The slice's turns, unescaped, and whether the file was escaped at all."""
    split = matter.split(text)
    head = split.yaml_text if split.closed else split.yaml_text.split(TURN_START, 1)[0]
    if not has_flag_line(head):
        return [], False
    try:
        return parse_core_md(text).turns, True
    except SliceFormatError:
        return salvage_turns(text), True


def plain_text(text: str) -> str:
    """A core.md with its turns' text exactly as written (the file itself when it is not escaped).

    An escaped turn never holds a line starting `## Turn `, so the first such line in an escaped
    file is its first turn header; everything before it is kept byte for byte.
    """
    turns, flagged = _turns(text)
    if not flagged or not turns:
        return text
    at = text.find(TURN_START)
    head = text[: at + 1] if at >= 0 else text + "\n\n"
    return head + "\n\n".join(render_turn(t) for t in turns) + "\n"


def chars(plain: str, rng: OutsideRange) -> str:
    """Exactly the characters a `chars` range picks ('' past the end)."""
    start = rng.offset or 0
    return plain[start : start + (rng.length or OUTPUT_CHARS)]


def briefing_text(arrival: Arrival) -> str:
    """The arrival briefing ("Previously on…") as plain lines for another agent."""
    b = arrival.briefing
    if arrival.empty:
        return "Previously on… nothing yet: this memory holds no conversations."
    lines = ["Previously on…"]
    if b.name:
        lines.append(f"The user: {b.name}")
    if b.last_topic:
        where = f" (slice {b.last_slice_id})" if b.last_slice_id else ""
        lines.append(f"Last time: {b.last_topic}{where}")
    lines += [f"Open: {loop}" for loop in b.open_loops]
    if arrival.active is not None:
        lines.append(f"Open conversation: slice {arrival.active.id}, {len(arrival.active_turns)} turns")
    lines += [f"Recent: slice {s.id} — {s.focus or s.summary or '(no summary)'}" for s in arrival.recent]
    lines += [f"Could ask about: {s.prompt}" for s in b.suggestions]
    if b.card_excerpt:
        lines.append(f"From the card: {b.card_excerpt}")
    return "\n".join(lines)
