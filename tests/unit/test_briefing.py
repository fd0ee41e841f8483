"""The arrival briefing: real data only, loops deduplicated and capped, chips ≤ 30 characters."""

from __future__ import annotations

import pytest

from core.agent.briefing import arrival, build_briefing, shorten
from core.clock import FixedClock
from core.memory.card import parse_card
from core.memory.paths import CARD, core_md
from core.memory.recent import SliceInfo, recent_slices
from core.storage.memory import InMemoryStorage
from tests.unit.card_samples import CARD_TEXT

pytestmark = pytest.mark.unit
NOW = FixedClock.at("2026-08-11T11:15:00.000Z").now()


def _s(
    sid: str, focus: str = "", loops: tuple[str, ...] = (), status: str = "closed", summary: str = ""
) -> SliceInfo:
    return SliceInfo(
        slice_id=sid,
        start=f"{sid[:10]}T00:00:00.000Z",
        status=status,
        focus=focus,
        summary=summary,
        open_loops=list(loops),
    )


def test_empty_memory_gives_an_empty_briefing() -> None:
    b = build_briefing([], None, None, NOW)
    assert (b.name, b.last_topic, b.open_loops, b.suggestions, b.card_excerpt) == (None, None, [], [], None)


def test_last_topic_prefers_the_newest_closed_slice_and_falls_back_to_summary() -> None:
    slices = [_s("2026-08-11-1100", status="active"), _s("2026-08-10-0900", summary="Talked about the move")]
    b = build_briefing(slices, None, None, NOW)
    assert b.last_topic == "Talked about the move" and b.last_slice_id == "2026-08-10-0900"


def test_loops_newest_first_deduplicated_capped_with_overdue_horizon() -> None:
    card = parse_card(CARD_TEXT, NOW)
    slices = [
        _s("2026-08-10-0900", "Move", ("Call the landlord", "book a van")),
        _s("2026-08-09-0900", "Run", ("Book a van ", "Buy shoes", "Stretch")),
    ]
    b = build_briefing(slices, CARD_TEXT, card, NOW, "Europe/London")
    assert b.open_loops == [
        "Call the landlord",
        "book a van",
        "Renew the passport (was due 2026-08-01)",
        "Buy shoes",
    ]


def test_suggestions_are_short_labels_with_full_prompts() -> None:
    long_focus = "Planning the big move to a new flat across town in September"
    slices = [_s("2026-08-10-0900", long_focus, ("x",)), _s("2026-08-09-0900", "Training for the 5K")]
    b = build_briefing(slices, None, None, NOW)
    labels = [s.label for s in b.suggestions]
    assert labels == [
        "Continue: Planning the big mo…",
        "Show my open threads",
        "Talk about Training for the 5K",
    ]
    assert all(len(label) <= 30 for label in labels)
    assert long_focus in b.suggestions[0].prompt
    assert "Training for the 5K" in b.suggestions[2].prompt


def test_no_loops_no_threads_chip_and_no_other_topic_no_talk_chip() -> None:
    b = build_briefing([_s("2026-08-10-0900", "Move")], None, None, NOW)
    assert [s.label for s in b.suggestions] == ["Continue: Move"]


def test_chinese_chips() -> None:
    b = build_briefing([_s("2026-08-10-0900", "搬家", ("联系房东",))], None, None, NOW, locale="zh")
    assert [s.label for s in b.suggestions] == ["继续：搬家", "看看还欠着的事"]


def test_name_and_excerpt_come_from_the_card() -> None:
    card = parse_card(CARD_TEXT, NOW)
    b = build_briefing([], CARD_TEXT, card, NOW)
    assert b.name == "Alex"
    assert b.card_excerpt is not None and b.card_excerpt.startswith("## Now")
    assert "## Identity" not in b.card_excerpt and "Renew the passport" in b.card_excerpt


def test_shorten_counts_utf16_units() -> None:
    assert shorten("😀" * 20) == "😀" * 14 + "…"
    assert shorten("short") == "short"


def test_arrival_reads_an_active_slice_without_a_catalog() -> None:
    core = (
        '---\nslice_id: "2026-08-11-1100"\nstatus: active\nstart: "2026-08-11T11:00:00.000Z"\n---\n\n'
        "## Turn a1 — 2026-08-11T11:00:00.000Z (user)\n\nhello\n"
    )
    closed = (
        '---\nslice_id: "2026-08-10-0900"\nfocus: Move\nstatus: closed\n'
        "open_loops:\n  - Call the landlord\n---\n"
    )
    storage = InMemoryStorage.from_texts(
        {str(core_md("2026-08-11-1100")): core, str(core_md("2026-08-10-0900")): closed, str(CARD): CARD_TEXT}
    )
    state = arrival(storage.snapshot(), NOW)
    assert state.active is not None and state.active.slice_id == "2026-08-11-1100"
    assert [t.content for t in state.active_turns] == ["hello"]
    assert state.active.turn_count == 1
    assert [s.slice_id for s in state.recent] == ["2026-08-10-0900"]
    assert state.briefing.last_topic == "Move" and state.briefing.name == "Alex"
    assert [s.slice_id for s in recent_slices(storage.snapshot(), 1)] == ["2026-08-11-1100"]
    assert not state.empty
