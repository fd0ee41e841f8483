"""Human labels for tool calls ("Viewing Jul 25 14:30", "Recalled 2 conversations about …").

The tools step puts them on the turn's events (`tool.call` `label`) and the page, the CLI and MCP
show them instead of tool names. Each tool declares its phrases beside its definition
(core/agent/main_tools.py `TOOL_LABELS`); this module fills in the subject. Slice ids are UTC
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
from core.ids import DayKey
from core.memory.paths import SliceId
from core.reltime import normalize_locale, zone
from core.text import utf16_len, utf16_slice

QUERY_CHARS = 40
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")

_OTHER = {
    "en": ("Using {x}", "Used {x}", "{x} failed"),
    "zh": ("正在使用 {x}", "已使用 {x}", "{x} 失败"),
}
_SUFFIX = {
    "interrupted": {"en": " — stopped", "zh": "（已中断）"},
    "denied": {"en": " — not allowed", "zh": "（未获允许）"},
}
_WORDS = {
    "en": {"a_slice": "a slice", "a_page": "a page", "card": "the user card", "card_of": "the card from {x}",
           "timeline": "the timeline", "since": "since {x}", "until": "up to {x}"},
    "zh": {"a_slice": "一个时间片", "a_page": "一个网页", "card": "用户卡片", "card_of": " {x} 的卡片",
           "timeline": "时间线", "since": " {x} 以来", "until": " {x} 以前"},
}  # fmt: skip


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
    running, done, failed = TOOL_LABELS.get(name, {}).get(loc) or _OTHER[loc]
    subject = _subject(name, args, loc, timezone)
    if name == "recall" and state == "completed":
        counted = _recall_done(subject, output, loc)
        if counted:
            return counted
    if state == "completed":
        return done.format(x=subject)
    if state == "error":
        return failed.format(x=subject)
    return running.format(x=subject) + _SUFFIX.get(state, {}).get(loc, "")


def _subject(name: str, args: Mapping[str, Any], loc: str, tz: str | None) -> str:
    words = _WORDS[loc]
    if name in ("recall", "thinkDeep", "webSearch"):
        return short_text(args.get("query") or args.get("question") or "")
    if name in ("readSlice", "readSliceSummary", "readAgentTimeline"):
        return slice_when(args.get("sliceId"), loc, tz) or words["a_slice"]
    if name == "readPreviously":
        when = slice_when(args.get("sliceId"), loc, tz)
        return words["card_of"].format(x=when) if when else words["card"]
    if name == "readTimelineWindow":
        return period(args.get("from"), args.get("to"), loc)
    if name in ("readMemoryFile", "writeMemoryFile"):
        return str(args.get("path") or "")
    if name == "webFetch":
        return url_summary(args.get("url")) or words["a_page"]
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
    if loc == "zh":
        return f"没有找到关于“{query}”的对话" if count == 0 else f"回忆起 {count} 段关于“{query}”的对话"
    if count == 0:
        return f'Found nothing about "{query}"'
    noun = "conversation" if count == 1 else "conversations"
    return f'Recalled {count} {noun} about "{query}"'


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


def slice_when(slice_id: Any, locale: str = "en", tz: str | None = None) -> str:
    """`Jul 25 14:30` / `7月25日 14:30` for a slice id, in `tz` when given; "" for a bad id."""
    sid = SliceId.try_parse(slice_id)
    moment = sid.started if sid else None
    if moment is None:
        return ""
    if tz:
        moment = moment.astimezone(zone(tz) or UTC)
    if normalize_locale(locale) == "zh":
        return f"{moment.month}月{moment.day}日 {moment:%H:%M}"
    return f"{_MONTHS[moment.month - 1]} {moment.day} {moment:%H:%M}"


def _day(value: Any) -> date | None:
    found = DayKey.try_parse(str(value or "").strip())
    return found.as_date if found else None


def period(start: Any, end: Any, locale: str = "en") -> str:
    """A date window as words: `Jul 2026`, `Jul 3–20, 2026`, `since Jul 3, 2026`, `the timeline`."""
    loc = normalize_locale(locale)
    a, b = _day(start), _day(end)
    words = _WORDS[loc]
    if a and b:
        return _span(a, b, loc) if a <= b else _span(b, a, loc)
    if a:
        return words["since"].format(x=_full(a, loc))
    if b:
        return words["until"].format(x=_full(b, loc))
    return words["timeline"]


def _full(d: date, loc: str) -> str:
    return f"{d.year}年{d.month}月{d.day}日" if loc == "zh" else f"{_MONTHS[d.month - 1]} {d.day}, {d.year}"


def _span(a: date, b: date, loc: str) -> str:
    zh = loc == "zh"
    whole_month = a.day == 1 and b.day == calendar.monthrange(b.year, b.month)[1]
    if (a.year, a.month) == (b.year, b.month):
        if whole_month:
            return f" {a.year}年{a.month}月" if zh else f"{_MONTHS[a.month - 1]} {a.year}"
        if a == b:
            return f" {_full(a, loc)}" if zh else _full(a, loc)
        return (
            f" {a.year}年{a.month}月{a.day}日–{b.day}日"
            if zh
            else f"{_MONTHS[a.month - 1]} {a.day}–{b.day}, {a.year}"
        )
    if zh:
        return f" {_full(a, loc)}–{_full(b, loc)}"
    if a.year == b.year:
        return f"{_MONTHS[a.month - 1]} {a.day} – {_MONTHS[b.month - 1]} {b.day}, {a.year}"
    return f"{_full(a, loc)} – {_full(b, loc)}"
