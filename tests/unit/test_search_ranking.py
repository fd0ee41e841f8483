"""Ranking on small hand-made memories: terms, passages, the head fields, dates, reasons."""

from __future__ import annotations

import pytest

from core.clock import FixedClock
from core.search.recall import open_index, recall
from tests.fakes.slices import SAMPLE, slice_text, storage_with

pytestmark = pytest.mark.unit

NOW = FixedClock.at("2026-08-11T11:15:00Z")


def ids(question: str, k: int = 5, tz: str | None = None, slices: dict[str, str] = SAMPLE) -> list[str]:
    return [h.slice_id for h in recall(storage_with(slices).snapshot(), question, k, NOW, tz).hits]


def test_the_slice_with_the_terms_ranks_first() -> None:
    assert ids("when did I adopt the beagle?")[0] == "2026-03-14-0900"
    assert ids("quarterly report stress")[0] == "2026-07-28-0658"


def test_a_question_matching_nothing_returns_no_hits() -> None:
    assert ids("quantum chromodynamics lecture") == []


def test_head_fields_are_searched() -> None:
    # "travel" appears only in the tags.
    assert ids("travel")[0] == "2026-05-02-1830"


def test_chinese_questions_match_chinese_turns() -> None:
    assert ids("爬山")[0] == "2026-08-10-1200"


def test_dates_lift_the_slices_they_name() -> None:
    both_pixel = ids("Pixel")
    assert set(both_pixel[:2]) == {"2026-03-14-0900", "2026-08-09-2015"}
    assert ids("Pixel in March")[0] == "2026-03-14-0900"
    assert ids("what did Pixel do last weekend?")[0] == "2026-08-09-2015"


def test_a_date_alone_ranks_by_date() -> None:
    assert ids("what did we talk about on 2 May?")[0] == "2026-05-02-1830"
    assert ids("yesterday")[0] == "2026-08-10-1200"


def test_before_after_an_event_uses_the_events_date() -> None:
    # The wedding was on 2 May: "after the wedding" lifts the later Pixel slice over the earlier
    # one, "before" the other way round (the anchor's own slice stays in: it counts as the edge).
    after = ids("Pixel after the wedding in Lisbon")
    before = ids("Pixel before the wedding in Lisbon")
    assert after.index("2026-08-09-2015") < after.index("2026-03-14-0900")
    assert before.index("2026-03-14-0900") < before.index("2026-08-09-2015")


def test_the_users_timezone_moves_day_boundaries() -> None:
    late = {
        "2026-08-10-2330": slice_text("2026-08-10-2330", [("user", "late walk with the dog")]),
        "2026-08-10-0800": slice_text("2026-08-10-0800", [("user", "morning walk with the dog")]),
    }
    clock = FixedClock.at("2026-08-11T11:00:00Z")
    snap = storage_with(late).snapshot()
    # 23:30 UTC on the 10th is already the 11th in Tokyo (today, not yesterday).
    tokyo = recall(snap, "walk with the dog yesterday", 1, clock, "Asia/Tokyo").hits
    utc = recall(snap, "walk with the dog yesterday", 2, clock, "UTC").hits
    assert tokyo[0].slice_id == "2026-08-10-0800"
    assert {h.slice_id for h in utc} == set(late)


def test_passages_prefer_terms_that_meet_in_one_exchange() -> None:
    scattered = slice_text(
        "2026-06-01-1000",
        [
            ("user", "the garden needs water"),
            *[("agent", f"filler number {i}") for i in range(8)],
            ("user", "my bike"),
        ],
    )
    together = slice_text("2026-06-02-1000", [("user", "I watered the garden, then fixed my bike")])
    assert ids("garden bike", slices={"2026-06-01-1000": scattered, "2026-06-02-1000": together})[0] == (
        "2026-06-02-1000"
    )


def test_hits_carry_relevance_and_a_reason() -> None:
    hits = recall(storage_with(SAMPLE).snapshot(), "beagle shoes in March", 3, NOW).hits
    top = hits[0]
    assert top.slice_id == "2026-03-14-0900"
    assert top.relevance == 1.0
    assert all(0.0 <= h.relevance <= 1.0 for h in hits)
    assert '"beagle"' in top.reason and '"shoes"' in top.reason
    assert "2026-03-14 fits “in march”" in top.reason


def test_k_limits_the_hits_and_zero_is_allowed() -> None:
    index = open_index(storage_with(SAMPLE).snapshot())
    assert len(index.search("pixel beach wedding report", 2, NOW.now()).hits) == 2
    assert index.search("pixel", 0, NOW.now()).hits == []


def test_an_empty_memory_answers_with_no_hits() -> None:
    result = recall(storage_with({}).snapshot(), "anything", 5, NOW)
    assert result.hits == []


def test_a_slice_with_broken_yaml_is_still_searched_by_its_turns() -> None:
    broken = slice_text("2026-06-05-0800", [("user", "the marathon training plan")]).replace(
        "status: closed", "status: closed\nfocus: A: B: C"
    )
    assert ids("marathon training", slices={**SAMPLE, "2026-06-05-0800": broken})[0] == "2026-06-05-0800"


def test_asking_what_we_talked_about_ranks_by_the_date_alone() -> None:
    assert ids("what did we talk about in May?")[0] == "2026-05-02-1830"
    assert ids("我们昨天聊了什么")[0] == "2026-08-10-1200"


def test_legacy_flat_slice_files_are_searched() -> None:
    from core.memory.paths import MemoryPath
    from core.storage.memory import InMemoryStorage

    legacy = InMemoryStorage(
        {
            MemoryPath("memory/episodic/slices/2025/01/02/0930.md"): slice_text(
                "2025-01-02-0930", [("user", "sourdough")]
            )
        }
    )
    assert [h.slice_id for h in recall(legacy.snapshot(), "sourdough", 3, NOW).hits] == ["2025-01-02-0930"]


def test_date_words_count_as_words_when_no_slice_is_near_those_dates() -> None:
    # "4 years ago" is before every slice: the words may be a duration told in a turn.
    slices = {
        "2026-06-01-0900": slice_text("2026-06-01-0900", [("user", "friends, old friends, school friends")]),
        "2026-06-02-0900": slice_text("2026-06-02-0900", [("user", "we have been friends for 4 years")]),
    }
    assert ids("friends 4 years ago", slices=slices)[0] == "2026-06-02-0900"


def test_the_deterministic_marks_words_are_not_head_text() -> None:
    from core.memory.slice.model import parse_core_md, render_core_md
    from core.memory.slice.slicer import apply_fallback_mark
    from core.search.reader import read_slice

    sid = "2026-06-01-0900"
    plain = parse_core_md(slice_text(sid, [("user", "Booked the ferry to Naxos"), ("agent", "Nice!")]))
    marked = apply_fallback_mark(plain)
    assert marked.focus.startswith("Opened with") and marked.marked_by == "fallback"
    st = read_slice(sid, render_core_md(marked))
    assert (st.focus, st.summary) == ("", "")
    assert "ferry" in st.turns[0].content
    # A focus someone wrote stays when only the summary came from the mark.
    plain.focus = "Island trip planning"
    st = read_slice(sid, render_core_md(apply_fallback_mark(plain)))
    assert (st.focus, st.summary) == ("Island trip planning", "")
