"""Prompt text built from the relative-time layer: read-tool banners, continuity, the slice head.

Pure and never raising, like `core.reltime`. The English continuity lines, the slice-head
block and the Chinese read-tool banner are fixed by the test vectors (`relative_time.json`);
they are prompt text, never file content.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Literal

from core.clock import try_parse_iso
from core.memory.paths import SliceId
from core.reltime import (
    Instant,
    date_anchors,
    format_local_time,
    local_clock,
    normalize_locale,
    rel_phrase,
    rel_tag,
    tag_sep,
)
from core.text import js_round

DAY_MS = 86_400_000
_TURN_TS_RE = re.compile(r"^(## Turn .*? — )(\d{4}-\d{2}-\d{2}T[^\s(（]+)", re.MULTILINE)
_SINCE_RE = re.compile(r"(\|\s*since:\s*)(\d{4}-\d{2}-\d{2})")
_BY_RE = re.compile(r"(—\s*by:\s*)(\d{4}-\d{2}-\d{2})")


# ---------------------------------------------------------------- read-tool annotations


def slice_start_iso(slice_id: str) -> str | None:
    """The UTC start minute of a slice id (`2026-08-07-0709` or `2026/08/07/0709`) as ISO."""
    sid = SliceId.from_either((slice_id or "").strip())
    if sid is None or sid.started is None:
        return None
    return sid.start_iso


@dataclass(frozen=True)
class SliceLocal:
    """When a slice happened for the user: local clock, relative phrase and the banner line."""

    clock: str | None
    rel: str | None
    banner: str


def slice_local(slice_id: str, tz: str | None, now: Instant, locale: object = "zh") -> SliceLocal:
    """The banner put above a slice read by a tool (Chinese text; the phrase follows `locale`)."""
    start = slice_start_iso(slice_id)
    if start is None:
        return SliceLocal(clock=None, rel=None, banner="")
    lt = format_local_time(start, tz)
    rel = rel_phrase(start, now, tz, locale)
    where = f"{lt.zone}, {lt.offset}" if lt.offset else lt.zone
    banner = f"> [时间] 该时间片发生于用户当地时间 {lt.local}（{where}） · {rel}。下方时间戳为原始 UTC。"
    return SliceLocal(clock=local_clock(start, tz), rel=rel, banner=banner)


def turn_time_note(timestamp: str, tz: str | None, now: Instant, locale: object) -> str:
    """`（本地 15:09 · 10 天前）` / ` (local 15:09 · 10 days ago)`; "" for an unparseable time."""
    clock = local_clock(timestamp, tz)
    if clock is None:
        return ""
    rel = rel_phrase(timestamp, now, tz, locale)
    body = f"{clock} · {rel}" if rel else clock
    return f"（本地 {body}）" if normalize_locale(locale) == "zh" else f" (local {body})"


def annotate_slice(raw: str, slice_id: str, tz: str | None, now: Instant, locale: object = "zh") -> str:
    """A slice file as a read tool returns it: the banner, then every turn header with local time."""

    def note(m: re.Match[str]) -> str:
        return m.group(1) + m.group(2) + turn_time_note(m.group(2), tz, now, locale)

    body = _TURN_TS_RE.sub(note, raw)
    banner = slice_local(slice_id, tz, now, locale).banner
    return f"{banner}\n\n{body}" if banner else body


def annotate_reason(reason: str, turn_iso: str, tz: str | None, now: Instant, locale: object) -> str:
    """A recall hit's reason with the hit's local time appended."""
    return reason + turn_time_note(turn_iso, tz, now, locale)


# ---------------------------------------------------------------- card annotations


def annotate_card_times(card_text: str, anchor: Instant, tz: str | None, locale: object) -> str:
    """The injected copy of the card: `since:` / `by:` dates get a relative tag; bad dates stay."""
    sep = tag_sep(locale)

    def since(m: re.Match[str]) -> str:
        tag = rel_tag(m.group(2), anchor, tz, locale)
        return m.group(0) + (sep + tag if tag else "")

    def by(m: re.Match[str]) -> str:
        tag = rel_tag(m.group(2), anchor, tz, locale, due=True)
        return m.group(0) + (sep + tag if tag else "")

    return _BY_RE.sub(by, _SINCE_RE.sub(since, card_text))


# ---------------------------------------------------------------- continuity


@dataclass(frozen=True)
class PrevSlice:
    """The slice before the current one, as continuity needs it."""

    id: str
    focus: str = ""
    start: str = ""
    end: str = ""


Tier = Literal["none", "continuing", "recent_return", "cold"]


@dataclass(frozen=True)
class Continuity:
    """How the current slice relates to the previous one; `gap_ms` None when unknown."""

    tier: Tier
    gap_ms: int | None = None
    prev: PrevSlice | None = None


def format_gap(gap_ms: float) -> str:
    """`N min(s) ago` under an hour, `N hour(s) ago` under a day, else `N day(s) ago`."""
    minutes = max(1, js_round(gap_ms / 60_000))
    if minutes < 60:
        return f"{minutes} min{'' if minutes == 1 else 's'} ago"
    hours = js_round(minutes / 60)
    if hours < 24:
        return f"{hours} hour{'' if hours == 1 else 's'} ago"
    days = js_round(hours / 24)
    return f"{days} day{'' if days == 1 else 's'} ago"


def continuity(now: Instant, prev: PrevSlice | None, *, same_slice: bool = False) -> Continuity:
    """Tier the gap between the previous slice's end (or start) and `now`."""
    if same_slice:
        return Continuity(tier="continuing")
    if prev is None:
        return Continuity(tier="none")
    moment = try_parse_iso(now) if not isinstance(now, datetime) else now
    ref = try_parse_iso(prev.end if prev.end else prev.start)
    if moment is None or ref is None:
        return Continuity(tier="cold", prev=prev)
    gap = (moment - ref) // timedelta(milliseconds=1)
    return Continuity(tier="recent_return" if gap < DAY_MS else "cold", gap_ms=gap, prev=prev)


def continuity_line(c: Continuity) -> str:
    """The continuity sentence of the slice head."""
    if c.tier == "continuing":
        return (
            "The user is mid-conversation — the recent turns above are the immediate context; "
            "continue naturally, no recall needed."
        )
    if c.prev is None:
        return "No past conversation yet."
    focus = f'"{c.prev.focus}"' if c.prev.focus else f"slice {c.prev.id}"
    when = format_gap(c.gap_ms) if c.gap_ms is not None else "a while ago"
    if c.tier == "recent_return":
        label = f'slice {c.prev.id}, "{c.prev.focus}"' if c.prev.focus else f"slice {c.prev.id}"
        return (
            f"The user's last session ended {when} ({label}) — this message is its direct "
            "continuation. Recall that slice FIRST, before any older threads."
        )
    return f"The user's last session was {when} ({focus}). No strong continuity — start fresh."


# ---------------------------------------------------------------- the slice head (L3)

_ANCHOR_INTRO = {
    "en": (
        '- Date anchors (resolve relative dates like "last Friday" from this table — '
        "never do date arithmetic yourself):"
    ),
    "zh": "- 日期锚点（“上周五”“下周一”这类说法请直接对照此表换算成日期，不要自己推算）：",
}


def slice_head_block(
    start: str,
    tz: str | None,
    cont: Continuity,
    *,
    locale: object = "en",
    evolution_summary: str = "",
) -> str:
    """The frozen "this slice" block: start time, date anchors, continuity, local-time rule."""
    lt = format_local_time(start, tz)
    where = f"{lt.zone}, {lt.offset}" if lt.offset else lt.zone
    lines = [
        "## This slice — snapshot at its start",
        f"- Slice started: {lt.local} ({where}) · UTC {lt.utc}",
        "- Slice ids are UTC labels (YYYY-MM-DD-HHMM; stored at memory/episodic/slices/YYYY/MM/DD/HHMM). "
        "The times in this block are already computed in the user's zone and in UTC.",
    ]
    anchors = date_anchors(start, tz, locale)
    if anchors:
        lines.append(_ANCHOR_INTRO[normalize_locale(locale)])
        lines.extend(f"    - {a}" for a in anchors)
    lines.append(f"- Continuity: {continuity_line(cont)}")
    if evolution_summary.strip():
        one_line = " ".join(evolution_summary.split())
        lines.append(f"- The user card was updated just as this slice began: {one_line}")
    lines.append(
        "- The slice-start time above may already be tens of minutes old. Whenever a precise time "
        'matters ("now", "in a few minutes", something due today), call the currentTime tool first '
        "instead of trusting this snapshot."
    )
    lines.append(f"Use the user's local time ({lt.zone}) for any time references in your reply — not UTC.")
    return "\n".join(lines)
