"""Slicing decisions: when the active slice closes, how it closes, and the next slice's id.

Pure functions over an injected instant (and, for recovery, a read view of storage). Signals are
checked at the start of the next user turn (a lazy close): `time_cap` from the slice's start,
`capacity` by turn count, `context_lost` when the client has clearly not seen the slice.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Literal

from core.clock import iso, try_parse_iso
from core.errors import InvalidInput
from core.memory import paths
from core.memory.config import UserConfig
from core.memory.slice.legacy import parse_legacy_slice
from core.memory.slice.model import Slice, Turn, new_slice, parse_core_md, render_turn
from core.storage.base import Reader
from core.text import JS_SPACES_RE, js_trim, utf16_len, utf16_slice

CloseSignal = Literal["time_cap", "capacity", "context_lost"]
WRITTEN_SIGNALS: tuple[str, ...] = ("time_cap", "capacity", "context_lost")
# Written by older versions; accepted when reading, never written.
LEGACY_SIGNALS: tuple[str, ...] = ("time_silence", "user_explicit")
FALLBACK_MARK = "fallback"
# How the deterministic focus line opens, per locale, so a reader can tell it from a real topic.
FALLBACK_FOCUS_PREFIX = {"en": "Opened with: ", "zh": "用户提到："}
# Marks the user wrote by hand: later passes only fill what the user left empty.
USER_MARK = "user"
OPENING_CHARS = 60
_MAX_ID_PROBES = 7 * 24 * 60


@dataclass(frozen=True)
class ClientView:
    """What the client says it has seen: the slice it shows and how many agent turns of it.

    `slice_id` None means the client does not track slices (a script, the CLI): it can never
    have "lost" the context, so the rule does not fire.
    """

    slice_id: str | None = None
    agent_turns_seen: int = 0


def slice_age_exceeded(start: str, now: datetime, max_ms: int) -> bool:
    """Whether `now − start ≥ max_ms`; an unparseable or future start never caps."""
    began = try_parse_iso(start)
    if began is None:
        return False
    return (now - began) >= timedelta(milliseconds=max_ms)


def context_lost(agent_turns_seen: int, slice_agent_turns: int) -> bool:
    """The client shows (almost) none of the slice's replies while the slice has some."""
    return (agent_turns_seen == 0 and slice_agent_turns >= 1) or (
        agent_turns_seen <= 1 and slice_agent_turns >= 3
    )


def client_lost_context(client: ClientView | None, current: Slice) -> bool:
    """`context_lost` from the client's report; a client showing another slice has seen none of this."""
    if client is None or client.slice_id is None:
        return False
    seen = client.agent_turns_seen if client.slice_id == current.slice_id else 0
    return context_lost(seen, sum(1 for t in current.turns if t.role == "agent"))


def close_signal(
    current: Slice, now: datetime, config: UserConfig, client: ClientView | None = None
) -> CloseSignal | None:
    """The signal that closes an active slice now, by precedence; None keeps it open."""
    if current.status != "active":
        return None
    if slice_age_exceeded(current.start, now, config.max_slice_minutes * 60_000):
        return "time_cap"
    if len(current.turns) >= config.max_turns_per_slice:
        return "capacity"
    if client_lost_context(client, current):
        return "context_lost"
    return None


def apply_close_marking(
    current: Slice, focus: str = "", summary: str = "", tags: Sequence[str] = (), tone: str = ""
) -> Slice:
    """A model's close marking: non-empty values replace; tags only when it gave at least one.

    Returns a copy; a marking that sets anything clears `marked_by` (a model, not the fallback).
    On a slice the user marked by hand it only fills what the user left empty.
    """
    out = current.copy()
    mine = current.marked_by == USER_MARK
    if focus.strip() and not (mine and out.focus):
        out.focus = focus
    if summary.strip() and not (mine and out.summary):
        out.summary = summary
    if tags and not (mine and out.tags):
        out.tags = list(tags)
    if tone.strip() and not (mine and out.emotional_tone):
        out.emotional_tone = tone
    if not mine and (focus.strip() or summary.strip() or tags or tone.strip()):
        out.marked_by = ""
    return out


@dataclass(frozen=True)
class Mark:
    """A focus line and a summary."""

    focus: str
    summary: str


def opening_line(turns: Sequence[Turn]) -> str:
    """The first user turn's first line, whitespace collapsed, cut to 60 UTF-16 units."""
    first = next((t for t in turns if t.role == "user"), None)
    if first is None:
        return ""
    line = js_trim(first.content).split("\n")[0]
    return JS_SPACES_RE.sub(" ", line)


def deterministic_mark(turns: Sequence[Turn], tags: Sequence[str], locale: str = "en") -> Mark:
    """The mark a slice gets when no model marked it (zh matches the original byte for byte)."""
    opening = opening_line(turns)
    cut = utf16_slice(opening, 0, OPENING_CHARS)
    ellipsis = "…" if utf16_len(opening) >= OPENING_CHARS else ""
    if locale == "zh":
        topics = "、".join(tags) if tags else "未标记话题"
        focus = f"{FALLBACK_FOCUS_PREFIX['zh']}{cut}{ellipsis}" if cut else f"会话（{topics}）"
        return Mark(focus, f"共 {len(turns)} 轮，涉及 {topics}。")
    topics = ", ".join(tags) if tags else "no tagged topics"
    focus = f"{FALLBACK_FOCUS_PREFIX['en']}{cut}{ellipsis}" if cut else f"Conversation ({topics})"
    exchanges = sum(1 for t in turns if t.role == "user") or len(turns)
    unit = "exchange" if exchanges == 1 else "exchanges"
    return Mark(focus, f"{exchanges} {unit}; topics: {topics}.")


def fallback_opening(focus: str) -> str | None:
    """The quoted opening inside a deterministic focus line, or None for any other focus."""
    for prefix in FALLBACK_FOCUS_PREFIX.values():
        if focus.startswith(prefix):
            return focus[len(prefix) :]
    return None


def apply_fallback_mark(current: Slice, locale: str = "en") -> Slice:
    """Fill a missing focus and/or summary with the deterministic mark, recorded as `fallback`
    (a slice the user marked by hand stays marked as theirs)."""
    if current.focus and current.summary:
        return current
    mark = deterministic_mark(current.turns, current.tags, locale)
    out = current.copy()
    out.focus, out.summary = current.focus or mark.focus, current.summary or mark.summary
    if current.marked_by != USER_MARK:
        out.marked_by = FALLBACK_MARK
    return out


def close_slice(current: Slice, signal: str, now: datetime) -> Slice:
    """Close: `end` is the last turn's time (now only for a slice without turns)."""
    out = current.copy()
    out.status, out.closed_by = "closed", signal
    out.end = current.turns[-1].timestamp if current.turns else iso(now)
    return out


def minute_id(instant: datetime) -> str:
    """`YYYY-MM-DD-HHMM` of an instant's UTC minute."""
    return iso(instant)[:16].replace("T", "-").replace(":", "")


def new_slice_id(now: datetime, taken: Callable[[str], bool]) -> str:
    """The current UTC minute's id, or the next free minute: an existing slice is never reused."""
    instant = now
    for _ in range(_MAX_ID_PROBES):
        candidate = minute_id(instant)
        if not taken(candidate):
            return candidate
        instant += timedelta(minutes=1)
    raise InvalidInput(f"No free slice id within a week after {minute_id(now)}; the memory looks corrupt.")


def slice_taken(reader: Reader, slice_id: str) -> bool:
    """Whether any file already lives at this slice id (directory or legacy flat file)."""
    return (
        bool(reader.list(paths.slice_dir(slice_id)))
        or reader.read(paths.legacy_flat_md(slice_id)) is not None
    )


def open_slice(message: str, timezone: str, turn_id: str, now: datetime, slice_id: str) -> Slice:
    """A new active slice whose first turn is the user's message, stamped `now`."""
    start = iso(now)
    return new_slice(
        slice_id, start, timezone, Turn(turn_id=turn_id, timestamp=start, role="user", content=message)
    )


@dataclass(frozen=True)
class ActiveSlice:
    """The recovered active slice and the file it came from (a legacy flat file is `legacy`)."""

    slice: Slice
    path: paths.MemoryPath
    legacy: bool = False


def find_active_slice(
    reader: Reader, now: datetime, known_active: Collection[str] | None = None
) -> ActiveSlice | None:
    """The newest active slice of today's or yesterday's UTC day folder, else None.

    Folders are tried newest name first, then legacy flat files; unreadable ones are skipped.
    With `known_active` (the ids the catalog lists as active) only those folders are read, not
    every slice of the two days; if one of them turns out not to be active, the list is stale
    and the day folders are read after all.
    """
    days = [iso(instant)[:10] for instant in (now, now - timedelta(hours=24))]
    if known_active is not None:
        try:
            return _active_among(reader, days, known_active)
        except _Stale:
            pass
    for day in days:
        found = _active_in_day(reader, _day_dir(day))
        if found:
            return found
    return None


class _Stale(Exception):
    """A slice the catalog lists as active is missing or closed: the list cannot be trusted."""


def _active_among(reader: Reader, days: Sequence[str], known: Collection[str]) -> ActiveSlice | None:
    """The newest listed active slice of these days (`YYYY-MM-DD`), then their legacy flat files."""
    for day in days:
        for sid in sorted((i for i in known if i[:10] == day and paths.is_slice_id(i)), reverse=True):
            path = paths.core_md(sid)
            loaded = _try_parse(reader, path, False)
            if loaded is None or loaded.status != "active":
                raise _Stale(sid)
            return ActiveSlice(loaded, path)
        # Legacy flat files are not in the catalog: those of the day are read (rare; the
        # listing itself is free).
        found = _active_in(reader, [(p, True) for p in _folder_names(reader, _day_dir(day))[1]])
        if found:
            return found
    return None


def _day_dir(day: str) -> paths.MemoryPath:
    year, month, dd = day.split("-")
    return paths.day_dir(year, month, dd)


def _folder_names(reader: Reader, day: paths.MemoryPath) -> tuple[list[str], list[paths.MemoryPath]]:
    """The day's slice folder names (newest first) and legacy flat files (newest first)."""
    prefix = day.value + "/"
    names: set[str] = set()
    flats: list[paths.MemoryPath] = []
    for path in reader.list(day):
        rest = path.value[len(prefix) :]
        if "/" in rest:
            names.add(rest.split("/", 1)[0])
        elif rest.endswith(".md"):
            flats.append(path)
    return sorted(names, reverse=True), sorted(flats, reverse=True)


def _active_in_day(reader: Reader, day: paths.MemoryPath) -> ActiveSlice | None:
    names, flats = _folder_names(reader, day)
    candidates = [(day / f"{name}/timeline/core.md", False) for name in names]
    return _active_in(reader, candidates + [(p, True) for p in flats])


def _active_in(reader: Reader, candidates: Sequence[tuple[paths.MemoryPath, bool]]) -> ActiveSlice | None:
    for path, legacy in candidates:
        loaded = _try_parse(reader, path, legacy)
        if loaded is not None and loaded.status == "active":
            return ActiveSlice(loaded, path, legacy)
    return None


def _try_parse(reader: Reader, path: paths.MemoryPath, legacy: bool) -> Slice | None:
    try:
        text = reader.read(path)
        if text is None:
            return None
        return parse_legacy_slice(path, text) if legacy else parse_core_md(text)
    except InvalidInput:  # broken YAML, too large, not UTF-8: skipped, `check` names it
        return None


# Room kept in a slice's core.md for the frontmatter growing at the close (marking, end, tags).
CLOSE_HEADROOM_BYTES = 4_096


def overflows(current_text: str | None, turn: Turn) -> bool:
    """Whether appending `turn` would take the slice's core.md past the file size cap."""
    if current_text is None:
        return False
    added = len(render_turn(turn).encode("utf-8")) + 2  # the blank line before the turn
    size = len(current_text.encode("utf-8")) + added + CLOSE_HEADROOM_BYTES
    return size > paths.MAX_FILE_BYTES


def split_text(text: str, limit: int) -> list[str]:
    """`text` cut into parts of at most `limit` UTF-8 bytes, each cut between two characters that
    are not whitespace (a turn's edges are trimmed when read back), never inside a character.

    The one way a message too large for one slice is spread over several: a live reply
    (core/turn/overflow.py) and an imported message (core/imports/timeslice.py)."""
    parts: list[str] = []
    start = 0
    while len(text[start:].encode("utf-8")) > limit:
        end = _cut(text, start, limit)
        parts.append(text[start:end])
        start = end
    parts.append(text[start:])
    return parts


def _cut(text: str, start: int, limit: int) -> int:
    """The last good cut after `start` within `limit` bytes (a hard cut when there is none)."""
    size, end = 0, start
    while end < len(text) and size + len(text[end].encode("utf-8")) <= limit:
        size += len(text[end].encode("utf-8"))
        end += 1
    for i in range(end, start + 1, -1):
        if not text[i - 1].isspace() and not text[i].isspace():
            return i
    return end
