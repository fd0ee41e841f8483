"""The arrival briefing: real data only, loops deduplicated and capped, chips ≤ 30 characters."""

from __future__ import annotations

import pytest

from core.actions.briefing import arrival, build_briefing, shorten
from core.clock import FixedClock
from core.memory.card.model import parse_card
from core.memory.catalog.entry import CatalogEntry
from core.memory.catalog.recent import recent_slices
from core.memory.paths import CARD, core_md
from core.storage.memory import InMemoryStorage
from tests.unit.card_samples import CARD_TEXT

pytestmark = pytest.mark.unit
NOW = FixedClock.at("2026-08-11T11:15:00.000Z").now()


def _s(
    sid: str, focus: str = "", loops: tuple[str, ...] = (), status: str = "closed", summary: str = ""
) -> CatalogEntry:
    return CatalogEntry(
        id=sid,
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


def test_d28_a_loop_that_repeats_an_earlier_one_in_fewer_words_is_said_once() -> None:
    card = parse_card(CARD_TEXT.replace("Renew the passport", "Book the flights to Chengdu"), NOW)
    slices = [
        _s("2026-08-10-0900", "Trip", ("Book the Chengdu flights with Leo on Saturday morning",)),
        _s("2026-08-09-0900", "Trip", ("book flight to Chengdu", "Pack", "Pack the bags", "Call Leo")),
    ]
    b = build_briefing(slices, None, card, NOW, "Europe/London")
    assert b.open_loops == [
        "Book the Chengdu flights with Leo on Saturday morning",
        "Pack",
        "Pack the bags",
        "Call Leo",
    ]
    # Different loops that share a word stay apart.
    slices = [_s("2026-08-10-0900", "Trip", ("Book the flights", "Book the hotel", "订机票", "订酒店"))]
    assert build_briefing(slices, None, None, NOW).open_loops == [
        "Book the flights",
        "Book the hotel",
        "订机票",
        "订酒店",
    ]
    slices = [
        _s("2026-08-10-0900", "Trip", ("记得订成都机票",)),
        _s("2026-08-09-0900", "Trip", ("订成都机票",)),
    ]
    assert build_briefing(slices, None, None, NOW).open_loops == ["记得订成都机票"]


def test_suggestions_are_short_labels_with_full_prompts() -> None:
    long_focus = "Planning the big move to a new flat across town in September"
    slices = [_s("2026-08-10-0900", long_focus, ("x",)), _s("2026-08-09-0900", "Training for the 5K")]
    b = build_briefing(slices, None, None, NOW)
    labels = [s.label for s in b.suggestions]
    assert labels == [
        "Continue: Planning the big mo…",
        "Show my open threads",
        "Talk about training for the 5K",
    ]
    assert all(len(label) <= 30 for label in labels)
    assert long_focus in b.suggestions[0].prompt
    assert "Training for the 5K" in b.suggestions[2].prompt


def test_a_fallback_focus_is_never_shown_as_a_topic_the_openings_are_quoted() -> None:
    slices = [
        _s("2026-08-11-1100", status="active"),
        _s("2026-08-10-0900", "Opened with: Hello, my name is Sam", summary="9 turns; topics: x."),
    ]
    b = build_briefing(slices, None, None, NOW, openings={"2026-08-11-1100": "Where did we get to?"})
    assert b.last_topic == "“Where did we get to?”" and b.last_slice_id == "2026-08-11-1100"
    # The label spends its 30 characters on the words, not on a quote the cut leaves open.
    assert [s.label for s in b.suggestions] == ["Continue: Where did we get to?"]
    assert b.suggestions[0].prompt.endswith("“Where did we get to?”")
    b = build_briefing(slices[1:], None, None, NOW)
    assert b.last_topic == "“Hello, my name is Sam”"
    assert "Opened with" not in b.suggestions[0].label


def test_a_topic_of_its_own_wins_over_newer_unmarked_slices() -> None:
    slices = [
        _s("2026-08-11-1100", status="active"),
        _s("2026-08-10-0900", "Opened with: hi"),
        _s("2026-08-09-0900", "Move"),
    ]
    b = build_briefing(slices, None, None, NOW, openings={"2026-08-11-1100": "hello"})
    assert b.last_topic == "Move"


def test_talk_about_reads_mid_sentence_but_keeps_names() -> None:
    slices = [_s("2026-08-10-0900", "Move"), _s("2026-08-09-0900", "The flight deadline")]
    assert build_briefing(slices, None, None, NOW).suggestions[-1].label == "Talk about the flight deadline"
    slices = [_s("2026-08-10-0900", "Move"), _s("2026-08-09-0900", "Alex's visit")]
    assert build_briefing(slices, None, None, NOW).suggestions[-1].label == "Talk about Alex's visit"
    slices = [_s("2026-08-10-0900", "Move"), _s("2026-08-09-0900", "NASA trip")]
    assert build_briefing(slices, None, None, NOW).suggestions[-1].label == "Talk about NASA trip"


def test_d23_a_topic_that_already_talks_is_not_talked_about_twice() -> None:
    for focus, label in [
        ("Talking about deploy scripts", "Talk about deploy scripts"),
        ("talked through the budget", "Talk about the budget"),
        ("A chat about Leo's birthday", "Talk about Leo's birthday"),
        ("Discussing", "Talk about discussing"),
        ("Thinking about the thesis", "Talk about the thesis"),
    ]:
        slices = [_s("2026-08-10-0900", "Move"), _s("2026-08-09-0900", focus)]
        chip = build_briefing(slices, None, None, NOW).suggestions[-1]
        assert chip.label == label, focus
        assert "about talk" not in chip.prompt.lower()
    slices = [_s("2026-08-10-0900", "搬家"), _s("2026-08-09-0900", "聊聊部署脚本")]
    assert build_briefing(slices, None, None, NOW, locale="zh").suggestions[-1].label == "聊聊：部署脚本"
    slices = [_s("2026-08-10-0900", "搬家"), _s("2026-08-09-0900", "聊天记录")]
    assert build_briefing(slices, None, None, NOW, locale="zh").suggestions[-1].label == "聊聊：聊天记录"


def test_arrival_after_chatting_elsewhere_is_not_empty_and_counts_the_turns() -> None:
    turns = "".join(
        f"## Turn u{i} — 2026-08-11T11:0{i}:00.000Z (user)\n\nquestion {i}\n\n"
        f"## Turn a{i} — 2026-08-11T11:0{i}:30.000Z (agent)\n\nanswer {i}\n\n"
        for i in range(4)
    )
    core = (
        '---\nslice_id: "2026-08-11-1100"\nstatus: active\nstart: "2026-08-11T11:00:00.000Z"\n---\n\n' + turns
    )
    storage = InMemoryStorage.from_texts({str(core_md("2026-08-11-1100")): core})
    state = arrival(storage.snapshot(), NOW)
    assert state.briefing.last_topic == "“question 0”" and not state.empty
    assert state.active is not None and state.active.turn_count == 8


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
    assert state.active is not None and state.active.id == "2026-08-11-1100"
    assert [t.content for t in state.active_turns] == ["hello"]
    assert state.active.turn_count == 1
    assert [s.id for s in state.recent] == ["2026-08-10-0900"]
    assert state.briefing.last_topic == "Move" and state.briefing.name == "Alex"
    assert [s.id for s in recent_slices(storage.snapshot(), 1)] == ["2026-08-11-1100"]
    assert not state.empty
