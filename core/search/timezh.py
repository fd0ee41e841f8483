"""Common Chinese date expressions: 昨天, 上周末, 三天前, 去年三月, 2023年5月8日, 5月8号之前 …"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date, timedelta

from core.search import timewords as tw
from core.search.window import TimeQuery, TimeWindow

_NUM = r"[\d一二两三四五六七八九十]+"
_SUFFIX = r"(?P<mod>之前|以前|之后|以后)?"
_Span = tuple[date, date]
_UNITS = "天|周|个星期|星期|个礼拜|礼拜|个月|年"


def _int(text: str | None) -> int | None:
    return tw.to_int(text) if text else None


def _ymd(m: re.Match[str], today: date) -> _Span | None:
    gd = m.groupdict()
    rel = gd.get("rel")
    year = _int(gd.get("y"))
    if year is None:
        year = today.year - {"去年": 1, "前年": 2}.get(rel or "", 0)
    month, day = _int(gd.get("mo")), _int(gd.get("d"))
    if month is None or not 1 <= month <= 12:
        return (date(year, 1, 1), date(year, 12, 31)) if gd.get("y") or rel else None
    if gd.get("y") is None and rel is None and (month, day or 1) > (today.month, today.day if day else 1):
        year -= 1
    if day is None:
        return date(year, month, 1), tw.month_end(year, month)
    d = tw.safe_date(year, month, day)
    return (d, d) if d else None


def _ago(m: re.Match[str], today: date) -> _Span | None:
    n = _int(m.group("n"))
    if n is None:
        return None
    unit = m.group("unit")
    if unit == "天":
        d = today - timedelta(days=n)
        return d, d
    if unit in ("周", "个星期", "星期", "个礼拜", "礼拜"):
        d = today - timedelta(days=7 * n)
        return d - timedelta(days=3), d + timedelta(days=3)
    if unit == "个月":
        y, mo = tw.add_months(today.year, today.month, -n)
        return date(y, mo, 1), tw.month_end(y, mo)
    return date(today.year - n, 1, 1), date(today.year - n, 12, 31)


def _named(m: re.Match[str], today: date) -> _Span | None:
    word = m.group("w")
    days = {"今天": 0, "今晚": 0, "昨天": 1, "昨晚": 1, "前天": 2}
    if word in days:
        d = today - timedelta(days=days[word])
        return d, d
    mon = tw.monday_of(today)
    if word in ("上周末", "上个周末"):
        return mon - timedelta(days=2), mon - timedelta(days=1)
    if word in ("这周末", "本周末", "这个周末"):
        return mon + timedelta(days=5), mon + timedelta(days=6)
    if word.startswith("上"):
        if "月" in word:
            y, mo = tw.add_months(today.year, today.month, -1)
            return date(y, mo, 1), tw.month_end(y, mo)
        return mon - timedelta(days=7), mon - timedelta(days=1)
    if "月" in word:
        return date(today.year, today.month, 1), tw.month_end(today.year, today.month)
    if "年" in word:
        year = today.year - {"今年": 0, "去年": 1, "前年": 2}[word]
        return date(year, 1, 1), date(year, 12, 31)
    return mon, mon + timedelta(days=6)


_Handler = Callable[[re.Match[str], date], _Span | None]
_PATTERNS: list[tuple[re.Pattern[str], _Handler]] = [
    (
        re.compile(
            rf"(?:(?P<y>\d{{4}})年|(?P<rel>去年|前年|今年))?(?P<mo>{_NUM})月(?:份)?(?:(?P<d>{_NUM})[日号])?{_SUFFIX}"
        ),
        _ymd,
    ),
    (re.compile(rf"(?P<y>\d{{4}})年{_SUFFIX}"), _ymd),
    (re.compile(rf"(?P<n>{_NUM})(?P<unit>{_UNITS})(?:前|以前|之前){_SUFFIX}"), _ago),
    (
        re.compile(
            r"(?P<w>今天|今晚|昨天|昨晚|前天|上个?周末|这个?周末|本周末|上个?星期|上周|这个?星期|本周|这周"
            rf"|上个月|这个月|本月|去年|今年|前年){_SUFFIX}"
        ),
        _named,
    ),
]
_RECENT = re.compile(r"最近|近来|前些天|这些天")


def _window(span: _Span, mod: str | None, phrase: str) -> TimeWindow:
    start, end = span
    if mod in ("之前", "以前"):
        return TimeWindow(None, start - timedelta(days=1), "before", phrase)
    if mod in ("之后", "以后"):
        return TimeWindow(end + timedelta(days=1), None, "after", phrase)
    return TimeWindow(start, end, "during", phrase)


def chinese(work: str, today: date, out: TimeQuery) -> str:
    """Add the windows of Chinese date words in `work` to `out`; return `work` without them."""
    for pattern, handler in _PATTERNS:
        for m in list(pattern.finditer(work)):
            span = handler(m, today)
            if span is None:
                continue
            out.windows.append(_window(span, m.groupdict().get("mod"), m.group(0)))
            work = work[: m.start()] + " " * (m.end() - m.start()) + work[m.end() :]
    for m in list(_RECENT.finditer(work)):
        out.windows.append(TimeWindow(today - timedelta(days=30), today, "recent", m.group(0)))
        work = work[: m.start()] + " " * (m.end() - m.start()) + work[m.end() :]
    return work
