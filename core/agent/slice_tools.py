"""The main agent's slice readers: a slice (or part of it), its summary, its card, its notes.

Each raises the error vocabulary with a message that says what to try instead; the tool
wrapper turns that into an `ERROR: …` result the model can act on.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from core.agent.tool_context import ToolContext
from core.clock import try_parse_iso
from core.errors import InvalidInput, NotFound
from core.memory import paths
from core.memory.card.migrate import is_legacy, migrate_to_card
from core.memory.card.model import render_card
from core.memory.owners.card import live_card
from core.memory.slice.agent_parts import log_text, read_parts
from core.memory.slice.model import parse_core_frontmatter
from core.memory.slice.segments import read_slice_range
from core.memory.slice.turns import count_turns, parse_turns
from core.reltime import format_local_time, normalize_locale
from core.reltime_blocks import annotate_slice, slice_local, slice_start_iso
from core.text import utf16_len, utf16_slice

OUTPUT_CHARS = 60_000
FIND_HINT = "Try readTimelineWindow (or recall) to find the right slice id."


class SliceRange(BaseModel):
    """Which part of a slice to return (leave it out for the whole slice)."""

    type: Literal["turns", "last", "date", "search", "lines"] = Field(
        description=(
            "turns: the turns numbered in `indices` (0 = first); last: the last `count` turns; "
            "date: turns at or after `after`; search: turns containing any of `keywords`, with "
            "`context` neighbours; lines: lines `start`–`end` of the file (1-based, inclusive)"
        )
    )
    indices: list[int] | None = Field(None, description="for turns: 0-based turn numbers")
    count: int | None = Field(None, ge=0, description="for last: how many turns (default 3; 0 = all)")
    after: str | None = Field(None, description="for date: an ISO time, e.g. 2026-08-11T11:00:00Z")
    keywords: list[str] | None = Field(None, description="for search: words to look for (any case)")
    context: int | None = Field(None, ge=0, le=10, description="for search: neighbours each side (1)")
    start: int | None = Field(None, ge=1, description="for lines: first line")
    end: int | None = Field(None, ge=1, description="for lines: last line")


def require_slice_id(slice_id: str) -> str:
    """The id, trimmed; InvalidInput naming the format otherwise."""
    sid = paths.SliceId.from_either((slice_id or "").strip())
    if sid is None:
        raise InvalidInput(
            f'"{slice_id}" is not a slice id. Slice ids are the UTC minute a slice began, '
            f"YYYY-MM-DD-HHMM (e.g. 2026-08-11-1115). {FIND_HINT}"
        )
    return sid.dash


def slice_text(ctx: ToolContext, slice_id: str) -> tuple[str, str]:
    """A slice's id and core.md text (a legacy flat file too); NotFound with a hint otherwise."""
    sid = require_slice_id(slice_id)
    text = ctx.reader.read(paths.core_md(sid))
    if text is None:
        text = ctx.reader.read(paths.legacy_flat_md(sid))
    if text is None:
        raise NotFound(f"There is no slice {sid}. {FIND_HINT}")
    return sid, text


def read_slice(ctx: ToolContext, slice_id: str, rng: SliceRange | None) -> str:
    """A slice (or the part `rng` picks) with local times added to its turn headers."""
    sid, text = slice_text(ctx, slice_id)
    return read_text(ctx, sid, text, rng)


def read_text(ctx: ToolContext, sid: str, text: str, rng: SliceRange | None, more: str = "") -> str:
    """`read_slice` over a slice's text already read (`more`: another way to read the rest)."""
    spec = _check_range(text, sid, rng) if rng is not None else None
    body = read_slice_range(text, sid, spec)
    annotated = localized(annotate_slice(body, sid, ctx.timezone, ctx.clock.now(), ctx.locale), sid, ctx)
    return cap(annotated, more or "use a range (last, search or lines) to read the rest")


def banner(ctx: ToolContext, slice_id: str) -> str:
    """The line above a slice read by a tool: when it happened on the user's clock.

    Chinese readers get the original's banner (pinned by the vectors); others the same in English.
    """
    zh = slice_local(slice_id, ctx.timezone, ctx.clock.now(), ctx.locale)
    if not zh.banner or normalize_locale(ctx.locale) == "zh":
        return zh.banner
    start = slice_start_iso(slice_id) or ""
    lt = format_local_time(start, ctx.timezone)
    where = f"{lt.zone}, {lt.offset}" if lt.offset else lt.zone
    return (
        f"> [time] This slice began at {lt.local} the user's local time ({where}) · {zh.rel}. "
        "Timestamps below are UTC, each followed by the local time."
    )


def localized(annotated: str, slice_id: str, ctx: ToolContext) -> str:
    """`annotate_slice` output with the banner in the reader's language."""
    zh = slice_local(slice_id, ctx.timezone, ctx.clock.now(), ctx.locale).banner
    if zh and annotated.startswith(zh):
        return banner(ctx, slice_id) + annotated[len(zh) :]
    return annotated


def _check_range(text: str, sid: str, rng: SliceRange) -> dict[str, Any]:
    spec = rng.model_dump(exclude_none=True)
    turns = len(parse_turns(text))
    if rng.type == "turns" and rng.indices:
        if not any(0 <= i < turns for i in rng.indices):
            raise InvalidInput(
                f"Slice {sid} has {turns} turns, numbered 0–{max(turns - 1, 0)}; none of {rng.indices} "
                "exist. Try a range of type last, or read the whole slice."
            )
    elif rng.type == "date" and try_parse_iso(rng.after or "") is None:
        raise InvalidInput('A date range needs `after` as an ISO time, e.g. "2026-08-11T11:00:00Z".')
    elif rng.type == "search" and not [k for k in rng.keywords or [] if k.strip()]:
        raise InvalidInput('A search range needs `keywords`, e.g. ["flight", "visa"].')
    elif rng.type == "lines" and (rng.start is None or rng.end is None or rng.start > rng.end):
        raise InvalidInput("A lines range needs `start` ≤ `end` (1-based), e.g. start 1, end 40.")
    return spec


def cap(text: str, how: str) -> str:
    """Long tool output cut at a size a model can take, saying so and how to get the rest."""
    if utf16_len(text) <= OUTPUT_CHARS:
        return text
    return utf16_slice(text, 0, OUTPUT_CHARS) + f"\n\n(cut at {OUTPUT_CHARS} characters — {how})"


def read_slice_summary(ctx: ToolContext, slice_id: str) -> str:
    """A slice's frontmatter as plain lines, times also shown on the user's clock."""
    sid, text = slice_text(ctx, slice_id)
    s = parse_core_frontmatter(text)
    lines = [f"Slice {sid}", f"Started: {_when(s.start, ctx.timezone)}"]
    if s.closed:
        closed_by = f" ({s.closed_by.replace('_', ' ')})" if s.closed_by else ""
        lines.append(f"Ended: {_when(s.end, ctx.timezone) if s.end else '(unknown)'}{closed_by}")
    else:
        lines.append("Ended: (still open)")
    lines += [
        f"Turns: {count_turns(text)}",
        f"Focus: {s.focus or '(none)'}",
        f"Summary: {s.summary or '(none yet)'}",
        f"Tags: {'; '.join(s.tags) or '(none)'}",
        f"Tone: {s.emotional_tone or '(none)'}",
        f"Open loops: {'; '.join(s.open_loops) or '(none)'}",
        f"Decisions: {'; '.join(s.decisions) or '(none)'}",
    ]
    if s.evolution_summary:
        lines.append(f"Card change when it opened: {s.evolution_summary}")
    return "\n".join(lines)


def _when(iso_text: str, tz: str | None) -> str:
    if try_parse_iso(iso_text) is None:
        return iso_text or "(unknown)"
    lt = format_local_time(iso_text, tz)
    return f"{lt.local} ({lt.zone}) · UTC {lt.utc}"


def read_previously(ctx: ToolContext, slice_id: str | None) -> str:
    """The live user card, or the card as it stood in one slice (with its time banner)."""
    now = ctx.clock.now()
    if not (slice_id or "").strip():
        # Through the card's owner: a damaged card (not UTF-8, over its cap) is named and the
        # newest readable snapshot shown instead, never an error that hides the rest.
        card = live_card(ctx.reader)
        text = card.text or ""
        if not text.strip():
            return card.notice or "The user card is still empty: nothing has been learned about the user yet."
        shown = _display_card(text, ctx.slice_id or "", now)
        return f"{card.notice}\n\n{shown}" if card.notice else shown
    sid, _ = slice_text(ctx, slice_id or "")
    snapshot = ctx.reader.read(paths.card_snapshot(sid))
    if snapshot is None or not snapshot.strip():
        raise NotFound(
            f"Slice {sid} has no card snapshot. Try readPreviously without a sliceId for the live card."
        )
    top = banner(ctx, sid)
    shown = _display_card(snapshot, sid, now)
    return f"{top}\n\n{shown}" if top else shown


def _display_card(text: str, slice_id: str, now: Any) -> str:
    """Legacy card formats are shown migrated to today's card (the file is not touched)."""
    if is_legacy(text):
        return render_card(migrate_to_card(text, slice_id=slice_id, now=now))
    return text


def read_agent_timeline(ctx: ToolContext, slice_id: str) -> str:
    """A slice's cognition log (what the agent thought and which tools it used, per turn)."""
    sid, _ = slice_text(ctx, slice_id)
    text = log_text(read_parts(ctx.reader, sid))  # every part of the log, in order
    if not text.strip():
        return f"No notes were recorded for slice {sid}."
    return cap(text, "the rest of the log is in the file")
