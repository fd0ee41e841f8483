"""Dates in a question → calendar windows, resolved against `now` in the user's timezone.

"last March", "two weeks ago", "in 2023", "yesterday", "on 8 May", "last weekend", "recently",
"before June 2023", "the week before 24 October", and their common Chinese forms. Every window
is a range of *local* calendar dates; a date without a year is the most recent one not after
today (memory looks back). The matched words are cut out of the question so that "May" or
"2023" do not also count as search terms. "before/after <something that is not a date>"
becomes an anchor the engine resolves by searching for <something>.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime, timedelta, tzinfo

from core.search import timewords as tw
from core.search.timezh import chinese
from core.search.window import Anchor, TimeQuery, TimeWindow

RECENT_DAYS = 30


@dataclass(frozen=True)
class _Ctx:
    today: date


_Span = tuple[date, date]
_Handler = Callable[[re.Match[str], _Ctx], _Span | None]

_M = tw.MONTH_ALT
_W = tw.WEEKDAY_ALT
_N = tw.NUMBER_ALT
_ORD = r"(?:st|nd|rd|th)?"
_YEAR = r"(?:19|20)\d{2}"
_MOD = (
    r"(?:(?P<near>(?:the\s+)?(?:" + _W + r"|weekend|week|day|night|few\s+days|couple\s+of\s+days)\s+)?"
    r"(?P<mod>before|after|since|until|till|by|as\s+of|prior\s+to|earlier\s+than|later\s+than)\s+)?"
)
_PREP = r"(?:(?:on|in|during|at|of|from|around|for)\s+)?(?:the\s+)?"


def _most_recent(ctx: _Ctx, month: int, day: int | None = None, strict: bool = False) -> int:
    """The year of the most recent `month` (`day`) not after today (strictly before this month)."""
    year = ctx.today.year
    if strict:
        return year if month < ctx.today.month else year - 1
    if (month, day or 1) > (ctx.today.month, ctx.today.day if day else 1):
        return year - 1
    return year


def _year_of(m: re.Match[str], group: str, ctx: _Ctx, month: int, day: int | None) -> int:
    raw = m.group(group)
    return int(raw) if raw else _most_recent(ctx, month, day)


def _day(m: re.Match[str], ctx: _Ctx) -> _Span | None:
    month = tw.MONTHS[m.group("month").rstrip(".")]
    day = int(m.group("day"))
    d = tw.safe_date(_year_of(m, "year", ctx, month, day), month, day)
    return (d, d) if d else None


def _iso(m: re.Match[str], ctx: _Ctx) -> _Span | None:
    d = tw.safe_date(int(m.group("y")), int(m.group("mo")), int(m.group("d")))
    return (d, d) if d else None


def _month(m: re.Match[str], ctx: _Ctx) -> _Span | None:
    month = tw.MONTHS[m.group("month").rstrip(".")]
    lead = (m.groupdict().get("lead") or "").strip()
    year = int(m.group("year")) if m.groupdict().get("year") else None
    if year is None:
        year = _most_recent(ctx, month, strict=lead in ("last", "past", "previous"))
    return date(year, month, 1), tw.month_end(year, month)


def _part_of_month(m: re.Match[str], ctx: _Ctx) -> _Span | None:
    start, end = _month(m, ctx) or (None, None)
    if start is None or end is None:
        return None
    part = m.group("part")
    if part in ("early", "mid", "late"):
        third = {"early": (1, 10), "mid": (11, 20), "late": (21, end.day)}[part]
        return start.replace(day=third[0]), start.replace(day=third[1])
    n = tw.ORDINALS[m.group("ord")]
    if m.group("unit") == "weekend":
        sats = [d for d in _days(start, end) if d.weekday() == 5]
        sat = sats[n - 1] if n > 0 and n <= len(sats) else sats[-1]
        return sat, sat + timedelta(days=1)
    first = start + timedelta(days=7 * (n - 1)) if n > 0 else end - timedelta(days=6)
    return first, min(first + timedelta(days=6), end)


def _days(start: date, end: date) -> list[date]:
    return [start + timedelta(days=i) for i in range((end - start).days + 1)]


def _year(m: re.Match[str], ctx: _Ctx) -> _Span | None:
    year = int(m.group("year"))
    if not 1970 <= year <= ctx.today.year + 1:
        return None
    return date(year, 1, 1), date(year, 12, 31)


def _season(m: re.Match[str], ctx: _Ctx) -> _Span | None:
    first, last = tw.SEASONS[m.group("season")]
    lead = (m.group("lead") or "").strip()
    if m.group("year"):
        year = int(m.group("year"))
    else:
        year = ctx.today.year
        # The season's end in `year`; step back a year while it has not begun yet (or, for
        # "last", while today is still inside it).
        start_month_year = year - 1 if first > last else year
        begun = date(start_month_year, first, 1) <= ctx.today
        if not begun or (lead in ("last", "past", "previous") and ctx.today <= tw.month_end(year, last)):
            year -= 1
    start_year = year - 1 if first > last else year
    return date(start_year, first, 1), tw.month_end(year, last)


def _ago(m: re.Match[str], ctx: _Ctx) -> _Span | None:
    n = tw.to_int(m.group("n"))
    if n is None:
        return None
    unit = m.group("unit")
    vague = m.group("n").strip() in ("few", "a few", "several", "couple of", "a couple of", "a couple")
    if unit.startswith("day"):
        d = ctx.today - timedelta(days=n)
        pad = 1 if vague else 0
        return d - timedelta(days=pad), d + timedelta(days=pad)
    if unit.startswith("week"):
        d = ctx.today - timedelta(days=7 * n)
        return d - timedelta(days=3), d + timedelta(days=3)
    if unit.startswith("month"):
        y, mo = tw.add_months(ctx.today.year, ctx.today.month, -n)
        return date(y, mo, 1), tw.month_end(y, mo)
    return date(ctx.today.year - n, 1, 1), date(ctx.today.year - n, 12, 31)


def _past_n(m: re.Match[str], ctx: _Ctx) -> _Span | None:
    n = tw.to_int(m.group("n") or "1") or 1
    unit = m.group("unit")
    days = {"day": 1, "week": 7, "month": 30, "year": 365}[unit.rstrip("s")]
    return ctx.today - timedelta(days=n * days), ctx.today


def _named_day(m: re.Match[str], ctx: _Ctx) -> _Span | None:
    word = " ".join(m.group(0).split())
    back = 2 if "before yesterday" in word else 1 if ("yesterday" in word or "last night" in word) else 0
    d = ctx.today - timedelta(days=back)
    return d, d


def _this_last(m: re.Match[str], ctx: _Ctx) -> _Span | None:
    lead, unit = m.group("lead"), m.group("unit")
    back = 0 if lead == "this" else 1
    t = ctx.today
    if unit in ("week", "weekend"):
        mon = tw.monday_of(t) - timedelta(days=7 * back)
        return (mon, mon + timedelta(days=6)) if unit == "week" else (mon + timedelta(5), mon + timedelta(6))
    if unit == "month":
        y, mo = tw.add_months(t.year, t.month, -back)
        return date(y, mo, 1), tw.month_end(y, mo)
    return date(t.year - back, 1, 1), date(t.year - back, 12, 31)


def _weekday(m: re.Match[str], ctx: _Ctx) -> _Span | None:
    target = tw.WEEKDAYS[m.group("wd")]
    back = (ctx.today.weekday() - target) % 7
    if back == 0 and m.group("lead") == "last":
        back = 7
    d = ctx.today - timedelta(days=back)
    return d, d


def _recent(m: re.Match[str], ctx: _Ctx) -> _Span | None:
    return ctx.today - timedelta(days=RECENT_DAYS), ctx.today


def _rx(core: str) -> re.Pattern[str]:
    return re.compile(r"\b" + _MOD + _PREP + core + r"(?![\w-])", re.IGNORECASE)


_MONTH_G = rf"(?P<month>{_M})\.?"
# Its own pattern: "the day before yesterday" must not read as "the day before" + "yesterday".
_NAMED_DAY = re.compile(
    r"\b(?:the\s+day\s+before\s+yesterday|yesterday|today|tonight|last\s+night"
    r"|this\s+(?:morning|afternoon|evening))\b",
    re.IGNORECASE,
)
_YEAR_OPT = rf"(?:,?\s+(?P<year>{_YEAR}))?"
_NUM = rf"(?P<n>\d+|{_N})"
_MONTH_LEADS = "last|this|past|previous|in|during|of|since|before|after|until|by"

# Most specific first: a span consumed by one pattern is not seen by the later ones.
_PATTERNS: list[tuple[re.Pattern[str], _Handler]] = [
    (_rx(r"(?P<y>\d{4})-(?P<mo>\d{1,2})-(?P<d>\d{1,2})"), _iso),
    (_rx(rf"(?P<day>\d{{1,2}}){_ORD}\s+(?:of\s+)?{_MONTH_G}{_YEAR_OPT}"), _day),
    (_rx(rf"{_MONTH_G}\s+(?:the\s+)?(?P<day>\d{{1,2}}){_ORD}{_YEAR_OPT}"), _day),
    (
        _rx(
            r"(?:(?P<ord>first|second|third|fourth|last)\s+(?P<unit>week|weekend)\s+of\s+"
            rf"|(?P<part>early|mid|late)[\s-]+){_MONTH_G}{_YEAR_OPT}"
        ),
        _part_of_month,
    ),
    (_rx(rf"{_MONTH_G},?\s+(?:of\s+)?(?P<year>{_YEAR})"), _month),
    (_rx(rf"{_NUM}\s+(?P<unit>days?|weeks?|months?|years?)\s+ago"), _ago),
    (_rx(rf"(?:last|past)\s+(?:{_NUM}\s+)?(?P<unit>days|weeks|months|years)"), _past_n),
    (_NAMED_DAY, _named_day),
    (_rx(r"(?P<lead>this|last|past|previous)\s+(?P<unit>weekend|week|month|year)"), _this_last),
    (_rx(rf"(?:(?P<lead>last|this|on|past)\s+)(?P<wd>{_W})"), _weekday),
    (
        _rx(
            r"(?:(?P<lead>last|this|past|previous)\s+)?(?P<season>spring|summer|fall|autumn|winter)"
            rf"(?:\s+(?:of\s+)?(?P<year>{_YEAR}))?"
        ),
        _season,
    ),
    (_rx(rf"(?P<lead>{_MONTH_LEADS})\s+{_MONTH_G}"), _month),
    (_rx(rf"(?P<year>{_YEAR})"), _year),
    (_rx(r"(?:recently|lately|the\s+other\s+day|these\s+days)"), _recent),
]
# A season needs a lead word or a year ("fall" is also a verb); checked after matching.
_SEASON_NEEDS = re.compile(r"\b(?:in|during|this|last|past|previous)\b|\d{4}$", re.IGNORECASE)
_ANCHOR_RE = re.compile(r"\b(?P<dir>before|after|since)\s+(?P<text>[^?.!,;]+)", re.IGNORECASE)
_BEFORE = ("before", "prior to", "earlier than")
_UNTIL = ("until", "till", "by", "as of")
_AFTER = ("after", "later than")


def _apply_modifier(m: re.Match[str], span: _Span, phrase: str) -> TimeWindow:
    groups = m.groupdict()
    mod = " ".join((groups.get("mod") or groups.get("lead") or "").lower().split())
    near = " ".join((groups.get("near") or "").lower().split())
    start, end = span
    if mod and near:
        unit = near.removeprefix("the ")
        reach = 2 if unit in ("day", "night") else 3 if unit == "couple of days" else 7
        if mod in _AFTER or mod == "since":
            return TimeWindow(end, end + timedelta(days=reach), "during", phrase)
        return TimeWindow(start - timedelta(days=reach), start, "during", phrase)
    if mod in _BEFORE:
        return TimeWindow(None, start - timedelta(days=1), "before", phrase)
    if mod in _UNTIL:
        return TimeWindow(None, end, "before", phrase)
    if mod in _AFTER:
        return TimeWindow(end + timedelta(days=1), None, "after", phrase)
    if mod == "since":
        return TimeWindow(start, None, "after", phrase)
    return TimeWindow(start, end, "during", phrase)


def _consume(text: str, start: int, end: int) -> str:
    return text[:start] + " " * (end - start) + text[end:]


def _english(work: str, ctx: _Ctx, out: TimeQuery) -> str:
    for pattern, handler in _PATTERNS:
        for m in list(pattern.finditer(work)):
            if handler is _season and not _SEASON_NEEDS.search(m.group(0)):
                continue
            try:
                span = handler(m, ctx)
            except (ValueError, OverflowError):
                span = None  # "99999 years ago": no calendar date
            if span is None:
                continue
            phrase = " ".join(m.group(0).split())
            kind_recent = handler is _recent
            window = _apply_modifier(m, span, phrase)
            if kind_recent:
                window = TimeWindow(window.start, window.end, "recent", phrase)
            out.windows.append(window)
            work = _consume(work, m.start(), m.end())
    return work


def local_today(now: datetime, tz: tzinfo) -> date:
    """Today's date on the user's calendar."""
    return now.astimezone(tz).date()


def parse_time(question: str, now: datetime, tz: tzinfo) -> TimeQuery:
    """Find the dates in `question`; never raises (an unparseable question has no windows)."""
    ctx = _Ctx(local_today(now, tz))
    out = TimeQuery()
    # Lower-case one character at a time so match offsets stay valid for the original text.
    work = "".join(c.lower() if len(c.lower()) == 1 else c for c in question or "")
    work = _english(work, ctx, out)
    work = chinese(work, ctx.today, out)
    for m in _ANCHOR_RE.finditer(work):
        text = " ".join(m.group("text").split())
        if text:
            out.anchors.append(Anchor(m.group("dir").lower(), text))
    out.rest = " ".join(work.split())
    return out
