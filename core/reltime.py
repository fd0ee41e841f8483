"""User-local relative time: date keys, "3 days ago" phrases, date anchors, local clock text.

Everything here is pure and never raises: an unparseable date or an unknown zone degrades to
an empty phrase (or UTC), never to an exception, because these strings only decorate prompts.
Dates are compared as calendar days in the user's zone, so "yesterday" means the user's
yesterday, not UTC's. Its words are read by the model (prompts, tool results), not shown to the
user, so they stay here beside their rules rather than in the message catalogue (core/i18n).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from functools import lru_cache
from typing import Literal
from zoneinfo import ZoneInfo, available_timezones

from core.clock import iso, try_parse_iso
from core.ids import DayKey
from core.text import js_round

Locale = Literal["en", "zh"]
Instant = str | datetime | None

_WEEKDAYS = {
    "en": ("Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"),
    "zh": ("周日", "周一", "周二", "周三", "周四", "周五", "周六"),
}
# en-GB short month names as ICU 72+ prints them (September is "Sept").
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sept", "Oct", "Nov", "Dec")


def normalize_locale(locale: object) -> Locale:
    """Anything starting with `zh` (any case) is Chinese; everything else is English."""
    return "zh" if isinstance(locale, str) and locale.strip().lower().startswith("zh") else "en"


@lru_cache(maxsize=1)
def _zone_names() -> dict[str, str]:
    return {name.lower(): name for name in available_timezones()}


def zone(tz: object) -> ZoneInfo | None:
    """The IANA zone named `tz`, the one time-zone lookup of the code base.

    Read like Intl does: surrounding spaces ignored, any case (`asia/shanghai`); an empty name
    (or None) is UTC. Anything else — an unknown name, a folder of the zone database such as
    `Asia`, a path (`../etc/passwd`), a value that is not a string — is None and never raises,
    so the caller decides: refuse it (a request) or read it as UTC (`zone_or_utc`, stored data).
    """
    if tz is not None and not isinstance(tz, str):
        return None
    return _zone((tz or "").strip())


@lru_cache(maxsize=64)
def _zone(name: str) -> ZoneInfo | None:
    if not name:
        return ZoneInfo("UTC")
    try:
        return ZoneInfo(name)
    except (ValueError, OSError, KeyError):  # bad key, a directory such as "Asia", or unknown
        canonical = _zone_names().get(name.lower())
        return ZoneInfo(canonical) if canonical else None


def zone_or_utc(tz: object) -> ZoneInfo:
    """`zone`, with UTC for a name it does not know (zones read back from stored slices)."""
    return zone(tz) or ZoneInfo("UTC")


def zone_name(tz: object) -> str:
    """The canonical spelling of a known zone, else "UTC"."""
    found = zone(tz)
    return found.key if found is not None else "UTC"


def _instant(value: Instant) -> datetime | None:
    return try_parse_iso(value) if value is not None else None


def local_date_key(value: Instant, tz: str | None) -> str | None:
    """The calendar date (`YYYY-MM-DD`) of an instant in `tz`; a bare date passes through."""
    if isinstance(value, str) and DayKey.has_shape(value.strip()):
        return value.strip()
    moment = _instant(value)
    if moment is None:
        return None
    return moment.astimezone(zone(tz) or UTC).date().isoformat()


def _day_number(key: str | None) -> int | None:
    """Days since 0001-01-01 for `YYYY-MM-DD`, rolling over like JS `Date.UTC` (Feb 30 → Mar 2)."""
    found = DayKey.parts(key)
    if found is None:
        return None
    year, month, day = found
    year += (month - 1) // 12
    month = (month - 1) % 12 + 1
    try:
        return date(year, month, 1).toordinal() + day - 1
    except ValueError:
        return None


def day_diff(date_key: str | None, now_key: str | None) -> int | None:
    """Whole calendar days from `now_key` to `date_key` (negative = in the past)."""
    a, b = _day_number(date_key), _day_number(now_key)
    return None if a is None or b is None else a - b


def _weekday_index(day_number: int) -> int:
    """JS `getUTCDay()` numbering: Sunday = 0."""
    return date.fromordinal(day_number).isoweekday() % 7 if day_number > 0 else 0


def weekday_label(date_key: str | None, locale: object) -> str:
    """`Mon` / `周一` for a date key; empty for anything that is not one."""
    n = _day_number(date_key)
    if n is None or n <= 0:
        return ""
    return _WEEKDAYS[normalize_locale(locale)][_weekday_index(n)]


def _count(n: int, unit: str, locale: Locale) -> str:
    if locale == "zh":
        return f"{n} {'周' if unit == 'week' else '天'}"
    return f"{n} {unit}{'' if n == 1 else 's'}"


def _default_phrase(d: int, locale: Locale) -> str:
    if d == 0:
        return "今天" if locale == "zh" else "today"
    if d == 1:
        return "明天" if locale == "zh" else "tomorrow"
    if d == -1:
        return "昨天" if locale == "zh" else "yesterday"
    amount = _count(js_round(abs(d) / 7), "week", locale) if abs(d) > 14 else _count(abs(d), "day", locale)
    if locale == "zh":
        return f"{amount}{'后' if d > 0 else '前'}"
    return f"in {amount}" if d > 0 else f"{amount} ago"


def _due_phrase(d: int, locale: Locale) -> str:
    zh = locale == "zh"
    if d == 0:
        return "今天到期" if zh else "due today"
    if d == 1:
        return "明天到期" if zh else "due tomorrow"
    if d > 1:
        amount = _count(js_round(d / 7), "week", locale) if d > 14 else _count(d, "day", locale)
        return f"还剩 {amount}" if zh else f"in {amount}"
    amount = _count(js_round(-d / 7), "week", locale) if d < -14 else _count(-d, "day", locale)
    return f"已逾期 {amount}" if zh else f"{amount} overdue"


def rel_phrase(
    value: Instant, now: Instant, tz: str | None, locale: object, *, weekday: bool = False, due: bool = False
) -> str:
    """How far `value` is from `now` in the user's calendar ("3 days ago", "还剩 5 天"); "" if unknown."""
    loc = normalize_locale(locale)
    key = local_date_key(value, tz)
    d = day_diff(key, local_date_key(now, tz))
    if d is None:
        return ""
    if due:
        return _due_phrase(d, loc)
    phrase = _default_phrase(d, loc)
    if weekday and 1 < abs(d) <= 14:
        label = weekday_label(key, loc)
        if label:
            return f"{label}·{phrase}" if loc == "zh" else f"{label} · {phrase}"
    return phrase


def wrap_tag(phrase: str, locale: object) -> str:
    """Parenthesise a phrase in the locale's style; "" stays ""."""
    if not phrase:
        return ""
    return f"（{phrase}）" if normalize_locale(locale) == "zh" else f"({phrase})"


def rel_tag(
    value: Instant, now: Instant, tz: str | None, locale: object, *, weekday: bool = False, due: bool = False
) -> str:
    """`rel_phrase` in parentheses: `（3 天前）` / `(3 days ago)`; "" when the date is unknown."""
    return wrap_tag(rel_phrase(value, now, tz, locale, weekday=weekday, due=due), locale)


def tag_sep(locale: object) -> str:
    """Chinese tags hug the date; English ones follow a space."""
    return "" if normalize_locale(locale) == "zh" else " "


def annotate_date(value: str, now: Instant, tz: str | None, locale: object) -> str:
    """`2026-08-14（周五·3 天前）`: the local date plus its tag; the input unchanged if unparseable."""
    key = local_date_key(value, tz)
    tag = rel_tag(value, now, tz, locale, weekday=True)
    if key is None or not tag:
        return value
    return f"{key}{tag_sep(locale)}{tag}"


def _fmt_day(day_number: int, locale: Locale, with_weekday: bool = False) -> str:
    text = date.fromordinal(day_number).isoformat()
    if not with_weekday:
        return text
    label = _WEEKDAYS[locale][_weekday_index(day_number)]
    return f"{text}（{label}）" if locale == "zh" else f"{text} ({label})"


def date_anchors(now: Instant, tz: str | None, locale: object) -> list[str]:
    """Today, this week's Monday, last week, tomorrow and this weekend as explicit dates."""
    loc = normalize_locale(locale)
    today = _day_number(local_date_key(now, tz))
    if today is None or today < 8:
        return []
    monday = today - (_weekday_index(today) + 6) % 7
    if loc == "zh":
        return [
            f"今天：{_fmt_day(today, loc, True)}",
            f"本周一：{_fmt_day(monday, loc)}",
            f"上周：{_fmt_day(monday - 7, loc, True)} 至 {_fmt_day(monday - 1, loc, True)}",
            f"明天：{_fmt_day(today + 1, loc, True)}",
            f"本周末：{_fmt_day(monday + 5, loc, True)} 至 {_fmt_day(monday + 6, loc, True)}",
        ]
    return [
        f"Today: {_fmt_day(today, loc, True)}",
        f"This week's Monday: {_fmt_day(monday, loc)}",
        f"Last week: {_fmt_day(monday - 7, loc, True)} → {_fmt_day(monday - 1, loc, True)}",
        f"Tomorrow: {_fmt_day(today + 1, loc, True)}",
        f"This weekend: {_fmt_day(monday + 5, loc, True)} → {_fmt_day(monday + 6, loc, True)}",
    ]


@dataclass(frozen=True)
class LocalTime:
    """An instant as the user sees it: `local` clock text, the zone name and its UTC offset."""

    local: str
    zone: str
    offset: str
    utc: str


def _offset_text(delta: timedelta | None) -> str:
    minutes = int((delta or timedelta()).total_seconds() // 60)
    sign = "-" if minutes < 0 else "+"
    hours, mins = divmod(abs(minutes), 60)
    return f"UTC{sign}{hours:02d}:{mins:02d}"


def format_local_time(value: Instant, tz: str | None) -> LocalTime:
    """`02 Aug 2026, 14:32` in `tz` with its offset; an unknown zone keeps the raw UTC text."""
    moment = _instant(value)
    raw = iso(moment) if moment is not None else (value if isinstance(value, str) else "")
    tzinfo = zone(tz)
    if moment is None or tzinfo is None:
        return LocalTime(local=raw, zone=zone_name(tz), offset="", utc=raw)
    local = moment.astimezone(tzinfo)
    text = f"{local.day:02d} {_MONTHS[local.month - 1]} {local.year}, {local.hour:02d}:{local.minute:02d}"
    return LocalTime(local=text, zone=tzinfo.key, offset=_offset_text(local.utcoffset()), utc=raw)


def local_clock(value: Instant, tz: str | None) -> str | None:
    """`HH:MM` of an instant in the user's zone (UTC for an unknown zone); None if unparseable."""
    moment = _instant(value)
    if moment is None:
        return None
    return moment.astimezone(zone(tz) or UTC).strftime("%H:%M")
