"""Human labels for tool calls ("Viewing Jul 25 14:30", "Recalled 2 conversations about …").

The tools step puts them on the turn's events (`tool.call` `label`) and the page, the CLI and MCP
show them instead of tool names. Each tool declares its label's catalogue key beside its
definition (core/agent/main_tools.py `TOOL_LABELS`); this module fills in the subject. Every word
comes from the message catalogue (core/i18n: `tool.*`, `date.*`, `period.*`). Slice ids are UTC
minutes; given the user's zone the label shows their local time.
"""

from __future__ import annotations

import calendar
import json
from collections.abc import Mapping
from datetime import UTC, date
from typing import Any
from urllib.parse import urlsplit

from core.agent.main_tools import TOOL_LABELS
from core.i18n import t
from core.ids import DayKey
from core.memory.paths import SliceId
from core.reltime import normalize_locale, zone
from core.text import utf16_len, utf16_slice

QUERY_CHARS = 40


def tool_label(
    name: str,
    args: Mapping[str, Any] | None,
    state: str,
    locale: str = "en",
    *,
    timezone: str | None = None,
    output: str | None = None,
) -> str:
    """The label of one tool call in one state (running/completed/error/interrupted/denied).

    `output` (the tool's text, when completed) lets recall say how many conversations it found.
    """
    loc = normalize_locale(locale)
    args = args if isinstance(args, Mapping) else {}
    key = TOOL_LABELS.get(name, "tool.other")
    subject = _subject(name, args, loc, timezone)
    if name == "recall" and state == "completed":
        counted = _recall_done(subject, output, loc)
        if counted:
            return counted
    if state in ("completed", "error"):
        return t(f"{key}.{state}", loc, x=subject)
    suffix = t(f"tool.state.{state}", loc) if state in ("interrupted", "denied") else ""
    return t(f"{key}.running", loc, x=subject) + suffix


def _subject(name: str, args: Mapping[str, Any], loc: str, tz: str | None) -> str:
    if name in ("recall", "thinkDeep", "webSearch"):
        return short_text(args.get("query") or args.get("question") or "")
    if name in ("readSlice", "readSliceSummary", "readAgentTimeline"):
        return slice_when(args.get("sliceId"), loc, tz) or t("tool.subject.aSlice", loc)
    if name == "readPreviously":
        when = slice_when(args.get("sliceId"), loc, tz)
        return t("tool.subject.cardOf", loc, x=when) if when else t("tool.subject.card", loc)
    if name == "readTimelineWindow":
        return period(args.get("from"), args.get("to"), loc)
    if name in ("readMemoryFile", "writeMemoryFile"):
        return str(args.get("path") or "")
    if name == "webFetch":
        return url_summary(args.get("url")) or t("tool.subject.aPage", loc)
    if name == "listMemoryFiles":
        return str(args.get("prefix") or "memory/")
    return name


def url_summary(url: Any) -> str:
    """A URL as host and path, cut to a label's length."""
    parts = urlsplit(str(url or ""))
    text = (parts.netloc + (parts.path if parts.path != "/" else "")) if parts.netloc else str(url or "")
    return short_text(text)


def _recall_done(query: str, output: str | None, loc: str) -> str | None:
    count = hit_count(output)
    if count is None:
        return None
    key = "foundNone" if count == 0 else "foundOne" if count == 1 else "foundMany"
    return t(f"tool.recall.{key}", loc, count=count, query=query)


def hit_count(output: str | None) -> int | None:
    """How many hits a recall tool result holds (None when it is not one)."""
    try:
        data = json.loads(output or "")
    except ValueError:
        return None
    hits = data.get("hits") if isinstance(data, dict) else None
    return len(hits) if isinstance(hits, list) else None


def short_text(value: Any) -> str:
    """A query or question cut to a label's length, on one line."""
    text = " ".join(str(value).split())
    return text if utf16_len(text) <= QUERY_CHARS else utf16_slice(text, 0, QUERY_CHARS - 1) + "…"


def _month(month: int, loc: str) -> str:
    return t("date.monthNames", loc).split()[month - 1]


def slice_when(slice_id: Any, locale: str = "en", tz: str | None = None) -> str:
    """`Jul 25 14:30` (`date.dayTime`) for a slice id, in `tz` when given; "" for a bad id."""
    sid = SliceId.try_parse(slice_id)
    moment = sid.started if sid else None
    if moment is None:
        return ""
    if tz:
        moment = moment.astimezone(zone(tz) or UTC)
    loc = normalize_locale(locale)
    return t("date.dayTime", loc, month=_month(moment.month, loc), day=moment.day, time=f"{moment:%H:%M}")


def _day(value: Any) -> date | None:
    found = DayKey.try_parse(str(value or "").strip())
    return found.as_date if found else None


def period(start: Any, end: Any, locale: str = "en") -> str:
    """A date window as words: `Jul 2026`, `Jul 3–20, 2026`, `since Jul 3, 2026`, `the timeline`."""
    loc = normalize_locale(locale)
    a, b = _day(start), _day(end)
    if a and b:
        return _span(a, b, loc) if a <= b else _span(b, a, loc)
    if a:
        return t("period.since", loc, x=_full(a, loc))
    if b:
        return t("period.until", loc, x=_full(b, loc))
    return t("period.all", loc)


def _full(d: date, loc: str) -> str:
    return t("date.full", loc, year=d.year, month=_month(d.month, loc), day=d.day)


def _span(a: date, b: date, loc: str) -> str:
    whole_month = a.day == 1 and b.day == calendar.monthrange(b.year, b.month)[1]
    if (a.year, a.month) == (b.year, b.month):
        if whole_month:
            return t("period.month", loc, month=_month(a.month, loc), year=a.year)
        if a == b:
            return t("period.day", loc, date=_full(a, loc))
        return t("period.sameMonth", loc, month=_month(a.month, loc), fromDay=a.day, toDay=b.day, year=a.year)
    if a.year == b.year:
        return t(
            "period.sameYear",
            loc,
            fromMonth=_month(a.month, loc),
            fromDay=a.day,
            toMonth=_month(b.month, loc),
            toDay=b.day,
            year=a.year,
        )
    return t("period.otherYears", loc, start=_full(a, loc), end=_full(b, loc))
