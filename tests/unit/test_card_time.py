"""Time on the card: aged Now items, overdue Horizon items, the prompt's overdue block."""

from __future__ import annotations

import pytest

from core.clock import FixedClock
from core.memory.card.model import HorizonItem, NowItem
from core.memory.card.timing import aged_line, overdue_block, overdue_line, time_flags, user_today
from core.memory.card.timing import card_from_text as to_card
from tests.fakes.evolution import card_text

pytestmark = pytest.mark.unit

CARD = card_text(
    now=[
        NowItem("Fresh", ["2026/08/10/0900"], "2026-08-10"),
        NowItem("Old", ["2026/08/01/0900"], "2026-08-01"),
    ],
    horizon=[
        HorizonItem("Send the grant report", "2026-08-05", ["2026/08/01/0900"]),
        HorizonItem("Book the flights", "2026-09-01", ["2026/08/01/0900"]),
        HorizonItem("Someday, maybe", "", ["2026/08/01/0900"]),
    ],
)


def test_user_today_follows_the_zone(clock: FixedClock) -> None:
    clock.current = clock.current.replace(hour=23)
    assert user_today(clock.now(), "UTC") == "2026-08-11"
    assert user_today(clock.now(), "Asia/Shanghai") == "2026-08-12"
    assert user_today(clock.now(), "Not/AZone") == "2026-08-11"


def test_flags_on_the_users_today(clock: FixedClock) -> None:
    flags = time_flags(to_card(CARD, clock.now()), "2026-08-08")
    assert [n.text for n in flags.aged_now] == ["Old"], "7 days old is aged"
    assert [h.text for h in flags.overdue] == ["Send the grant report"]
    assert time_flags(to_card(CARD, clock.now()), "2026-08-04").empty
    assert aged_line(flags.aged_now[0], "2026-08-08") == '- "Old" (since 2026-08-01, 7 days ago)'
    assert (
        overdue_line(flags.overdue[0], "2026-08-08")
        == '- "Send the grant report" (by 2026-08-05, 3 days overdue)'
    )


def test_overdue_block_en_and_zh() -> None:
    en = overdue_block(CARD, "2026-09-02", "en")
    head, body = en.split("\n")
    assert head == "## Overdue commitments"
    assert body.endswith(': "Send the grant report" (by 2026-08-05); "Book the flights" (by 2026-09-01)')
    zh = overdue_block(CARD, "2026-08-11", "zh-CN")
    assert zh.startswith("## 逾期承诺\n") and zh.endswith("：「Send the grant report」（by 2026-08-05）")


def test_overdue_block_absent() -> None:
    assert overdue_block(CARD, "2026-08-05", "en") == "", "due today is not overdue"
    assert overdue_block(CARD, "not a date", "en") == ""
    assert overdue_block(None, "2026-08-11", "en") == ""
    assert overdue_block("# Previously On\n\n## User identity\n\n- Mara\n", "2026-08-11", "en") == ""
