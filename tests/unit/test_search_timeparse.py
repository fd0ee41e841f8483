"""Time parser: phrases → local date windows, against a fixed now in several timezones."""

from __future__ import annotations

from datetime import date
from zoneinfo import ZoneInfo

import pytest

from core.clock import parse_iso
from core.search.timeparse import parse_time

pytestmark = pytest.mark.unit

# Tuesday 2026-08-11 11:15 UTC.
NOW = parse_iso("2026-08-11T11:15:00Z")
UTC = ZoneInfo("UTC")


def window(question: str, tz: ZoneInfo = UTC, now: str | None = None) -> tuple[str, date | None, date | None]:
    tq = parse_time(question, parse_iso(now) if now else NOW, tz)
    assert len(tq.windows) == 1, tq.windows
    w = tq.windows[0]
    return w.kind, w.start, w.end


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("what did we say yesterday", ("during", date(2026, 8, 10), date(2026, 8, 10))),
        ("the day before yesterday", ("during", date(2026, 8, 9), date(2026, 8, 9))),
        ("two weeks ago", ("during", date(2026, 7, 25), date(2026, 7, 31))),
        ("3 days ago", ("during", date(2026, 8, 8), date(2026, 8, 8))),
        ("a few months ago", ("during", date(2026, 5, 1), date(2026, 5, 31))),
        ("last March", ("during", date(2026, 3, 1), date(2026, 3, 31))),
        ("in December", ("during", date(2025, 12, 1), date(2025, 12, 31))),
        ("in August", ("during", date(2026, 8, 1), date(2026, 8, 31))),
        ("last August", ("during", date(2025, 8, 1), date(2025, 8, 31))),
        ("in 2023", ("during", date(2023, 1, 1), date(2023, 12, 31))),
        ("on 8 May", ("during", date(2026, 5, 8), date(2026, 5, 8))),
        ("on May 8th, 2024", ("during", date(2024, 5, 8), date(2024, 5, 8))),
        ("on 2025-02-14", ("during", date(2025, 2, 14), date(2025, 2, 14))),
        ("May 2023", ("during", date(2023, 5, 1), date(2023, 5, 31))),
        ("last weekend", ("during", date(2026, 8, 8), date(2026, 8, 9))),
        ("this week", ("during", date(2026, 8, 10), date(2026, 8, 16))),
        ("last week", ("during", date(2026, 8, 3), date(2026, 8, 9))),
        ("last month", ("during", date(2026, 7, 1), date(2026, 7, 31))),
        ("last year", ("during", date(2025, 1, 1), date(2025, 12, 31))),
        ("last Friday", ("during", date(2026, 8, 7), date(2026, 8, 7))),
        ("last Tuesday", ("during", date(2026, 8, 4), date(2026, 8, 4))),
        ("the past 3 days", ("during", date(2026, 8, 8), date(2026, 8, 11))),
        ("early June", ("during", date(2026, 6, 1), date(2026, 6, 10))),
        ("the first weekend of August 2023", ("during", date(2023, 8, 5), date(2023, 8, 6))),
        ("last summer", ("during", date(2025, 6, 1), date(2025, 8, 31))),
        ("in the winter of 2024", ("during", date(2023, 12, 1), date(2024, 2, 29))),
        ("recently", ("recent", date(2026, 7, 12), date(2026, 8, 11))),
        ("before June 2023", ("before", None, date(2023, 5, 31))),
        ("as of September 2023", ("before", None, date(2023, 9, 30))),
        ("after 2024", ("after", date(2025, 1, 1), None)),
        ("since March", ("after", date(2026, 3, 1), None)),
        ("the week before 24 October 2023", ("during", date(2023, 10, 17), date(2023, 10, 24))),
        ("昨天", ("during", date(2026, 8, 10), date(2026, 8, 10))),
        ("三天前", ("during", date(2026, 8, 8), date(2026, 8, 8))),
        ("上周末", ("during", date(2026, 8, 8), date(2026, 8, 9))),
        ("去年三月", ("during", date(2025, 3, 1), date(2025, 3, 31))),
        ("2023年5月8日之前", ("before", None, date(2023, 5, 7))),
        ("最近", ("recent", date(2026, 7, 12), date(2026, 8, 11))),
    ],
)
def test_phrases_resolve_to_windows(question: str, expected: tuple[str, date | None, date | None]) -> None:
    assert window(question) == expected


def test_today_depends_on_the_users_timezone() -> None:
    late = "2026-08-11T02:30:00Z"  # still 10 August in California, already 11 August in Tokyo
    assert window("yesterday", ZoneInfo("America/Los_Angeles"), late)[1] == date(2026, 8, 9)
    assert window("yesterday", ZoneInfo("Asia/Tokyo"), late)[1] == date(2026, 8, 10)
    assert window("yesterday", UTC, late)[1] == date(2026, 8, 10)


def test_new_year_boundary_in_a_timezone() -> None:
    now = "2026-12-31T23:30:00Z"  # already 1 January 2027 in Berlin
    assert window("last month", ZoneInfo("Europe/Berlin"), now)[1:] == (date(2026, 12, 1), date(2026, 12, 31))
    assert window("last month", UTC, now)[1:] == (date(2026, 11, 1), date(2026, 11, 30))


def test_date_words_are_removed_from_the_question() -> None:
    tq = parse_time("What did Audrey eat for dinner on October 24, 2023?", NOW, UTC)
    assert tq.rest == "what did audrey eat for dinner ?"


def test_modal_may_and_verb_fall_are_not_dates() -> None:
    for text in ("I may go hiking", "the fall was hard", "Will you march with us?"):
        tq = parse_time(text, NOW, UTC)
        assert tq.windows == []


def test_before_an_event_is_an_anchor() -> None:
    tq = parse_time("What did I cook before the move to Berlin?", NOW, UTC)
    assert tq.windows == []
    assert [(a.direction, a.text) for a in tq.anchors] == [("before", "the move to berlin")]


def test_impossible_dates_are_ignored() -> None:
    assert parse_time("on 31 April", NOW, UTC).windows == []


def test_never_raises_on_odd_input() -> None:
    for text in ("", "   ", "99999 years ago", "on 0 May", "年月日", "🙂 last 🙂"):
        parse_time(text, NOW, UTC)
