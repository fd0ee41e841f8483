"""The main agent's time tools: the current time (and the slice's clock), and timeline windows."""

from __future__ import annotations

import re
from datetime import timedelta

from core.agent.catalog_view import read_catalog, settle_before
from core.agent.slice_tools import FIND_HINT
from core.agent.timeline_brief import brief_line, in_window, newest_first
from core.agent.tool_context import ToolContext
from core.clock import iso, try_parse_iso
from core.errors import InvalidInput, NotFound
from core.ids import DayKey
from core.memory.catalog.entry import CatalogEntry
from core.memory.catalog.timeline_md import entries_of
from core.memory.paths import SliceId
from core.reltime import date_anchors, format_local_time, normalize_locale
from core.reltime_blocks import slice_start_iso
from core.text import js_round

WINDOW_DEFAULT = 20
WINDOW_MAX = 50
_MONTH_RE = re.compile(r"^\d{4}-(0[1-9]|1[0-2])\Z")


def current_time(ctx: ToolContext) -> str:
    """Now on the user's clock and in UTC, how long this slice has run, and the date anchors."""
    now = ctx.clock.now()
    lt = format_local_time(now, ctx.timezone)
    where = f"{lt.zone}, {lt.offset}" if lt.offset else lt.zone
    lines = [f"Now: {lt.local} ({where})", f"UTC: {iso(now)}"]
    start = slice_start_iso(ctx.slice_id or "")
    if ctx.slice_id and start:
        began = format_local_time(start, ctx.timezone)
        lines += [
            "",
            f"This slice ({ctx.slice_id}):",
            f"- Started: {began.local} ({began.zone}) · UTC {start}",
        ]
        lines.append("- " + _slice_clock(now - (try_parse_iso(start) or now), ctx.config.max_slice_minutes))
    anchors = date_anchors(now, ctx.timezone, ctx.locale)
    if anchors:
        lines += ["", "Date anchors:", *(f"- {a}" for a in anchors)]
    return "\n".join(lines)


def _slice_clock(elapsed: timedelta, cap: int) -> str:
    minutes = max(0, js_round(elapsed.total_seconds() / 60))
    if minutes < cap:
        return (
            f"Running for {minutes} min — {cap - minutes} min left of the {cap}-minute cap; "
            "after that the next message opens a new slice."
        )
    return f"Running for {minutes} min, past the {cap}-minute cap: the next message opens a new slice."


def check_day(value: str | None, name: str) -> str | None:
    """A `YYYY-MM-DD` bound (None when absent); InvalidInput with an example otherwise."""
    text = (value or "").strip()
    if not text:
        return None
    if DayKey.matches(text):
        return text
    raise InvalidInput(f'`{name}` must be a date like 2026-08-01 (YYYY-MM-DD), not "{value}".')


def timeline_window(ctx: ToolContext, start: str | None, end: str | None, limit: int) -> str:
    """Pointer lines for the slices whose id date lies in [start, end], newest first."""
    a, b = check_day(start, "from"), check_day(end, "to")
    if a and b and a > b:
        raise InvalidInput(f"`from` ({a}) is after `to` ({b}). Swap them.")
    entries = catalog_entries(ctx)
    span = f"{a or 'the beginning'} → {b or 'now'}"
    if not entries:
        return "The memory has no slices yet."
    picked = in_window(entries, a, b)
    if not picked:
        ids = sorted(SliceId.parse(e.id) for e in entries)
        return f"No slices in {span}. The timeline runs from {ids[0].date} to {ids[-1].date} (UTC dates)."
    shown = picked[: max(1, min(limit, WINDOW_MAX))]
    count = f"{len(picked)} slice{'s' if len(picked) != 1 else ''}"
    if len(shown) < len(picked):
        count += f"; showing the newest {len(shown)} — narrow the dates for the rest"
    labels = normalize_locale(ctx.locale)
    head = f"Timeline {span} (UTC dates of slice ids): {count}, newest first."
    lines = [brief_line(e, timezone=ctx.timezone, locale=ctx.locale, labels=labels) for e in shown]
    return "\n".join([head, "", *lines])


def catalog_entries(ctx: ToolContext) -> list[CatalogEntry]:
    """The timeline catalog's entries, lagging "active" ones settled from their files."""
    index = settle_before(ctx.reader, read_catalog(ctx.reader, ctx.clock.now()), ctx.slice_id or "9999")
    return entries_of(index or {})


def months(ctx: ToolContext) -> list[tuple[str, int]]:
    """Each `YYYY-MM` (UTC, from the slice ids) with how many slices it holds, newest first."""
    counts: dict[str, int] = {}
    for e in catalog_entries(ctx):
        month = e.id[:7]
        counts[month] = counts.get(month, 0) + 1
    return sorted(counts.items(), reverse=True)


def month_text(ctx: ToolContext, month: str) -> str:
    """One pointer line per slice of `month` (`YYYY-MM`, UTC dates of the ids), newest first, all of them."""
    if not _MONTH_RE.match(month or ""):
        raise InvalidInput(f'A month looks like 2026-08 (YYYY-MM), not "{month}".')
    picked = [e for e in newest_first(catalog_entries(ctx)) if e.id.startswith(month + "-")]
    if not picked:
        raise NotFound(f"There are no slices in {month}. {FIND_HINT}")
    labels = normalize_locale(ctx.locale)
    count = f"{len(picked)} slice{'s' if len(picked) != 1 else ''}"
    lines = [brief_line(e, timezone=ctx.timezone, locale=ctx.locale, labels=labels) for e in picked]
    return "\n".join([f"Timeline {month} (UTC dates of slice ids): {count}, newest first.", "", *lines])
