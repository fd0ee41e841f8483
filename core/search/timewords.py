"""The calendar vocabulary the time parser reads: month, weekday, number and season words."""

from __future__ import annotations

import calendar
from datetime import date, timedelta

MONTHS = {
    name: i
    for i, names in enumerate(
        (
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sep", "sept"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        ),
        start=1,
    )
    for name in names
}
# "may" and "march" are also a modal verb and a verb: the patterns only accept them next to a
# day number, a year, or a word such as "in"/"last" (see timeparse).
WEEKDAYS = {
    name: i
    for i, names in enumerate(
        (
            ("monday", "mon"),
            ("tuesday", "tue", "tues"),
            ("wednesday", "wed"),
            ("thursday", "thu", "thurs"),
            ("friday", "fri"),
            ("saturday", "sat"),
            ("sunday", "sun"),
        )
    )
    for name in names
}
NUMBER_WORDS = {
    "a": 1,
    "an": 1,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "couple of": 2,
    "a couple of": 2,
    "a couple": 2,
    "few": 3,
    "a few": 3,
    "several": 4,
}
ORDINALS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "last": -1}
# Meteorological seasons of the northern hemisphere: (first month, last month).
SEASONS = {"spring": (3, 5), "summer": (6, 8), "fall": (9, 11), "autumn": (9, 11), "winter": (12, 2)}

ZH_DIGITS = {ch: i for i, ch in enumerate("零一二三四五六七八九")} | {"两": 2}

MONTH_ALT = "|".join(sorted(MONTHS, key=len, reverse=True))
WEEKDAY_ALT = "|".join(sorted(WEEKDAYS, key=len, reverse=True))
NUMBER_ALT = "|".join(sorted(NUMBER_WORDS, key=len, reverse=True))


def to_int(word: str) -> int | None:
    """A count written as digits, an English number word or a Chinese numeral up to 99."""
    w = " ".join(word.lower().split())
    if w.isdigit():
        return int(w)
    if w in NUMBER_WORDS:
        return NUMBER_WORDS[w]
    return zh_int(w)


def zh_int(text: str) -> int | None:
    """Chinese numerals 一 … 九十九 (and 两)."""
    if not text or any(ch not in ZH_DIGITS and ch != "十" for ch in text):
        return None
    if "十" not in text:
        return ZH_DIGITS[text] if len(text) == 1 else None
    tens, _, ones = text.partition("十")
    t = ZH_DIGITS.get(tens, 0) if tens else 1
    o = ZH_DIGITS.get(ones, 0) if ones else 0
    return t * 10 + o


def month_end(year: int, month: int) -> date:
    return date(year, month, calendar.monthrange(year, month)[1])


def add_months(year: int, month: int, delta: int) -> tuple[int, int]:
    """(year, month) moved by `delta` months."""
    index = year * 12 + (month - 1) + delta
    return index // 12, index % 12 + 1


def monday_of(day: date) -> date:
    return day - timedelta(days=day.weekday())


def safe_date(year: int, month: int, day: int) -> date | None:
    """The date, or None for impossible ones (31 April)."""
    try:
        return date(year, month, day)
    except ValueError:
        return None
