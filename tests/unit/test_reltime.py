"""The relative-time layer beyond the vectors: never raises, zones, Chinese slice head, extras."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from core import reltime
from core import reltime_blocks as blocks

pytestmark = pytest.mark.unit

NOW = "2026-08-17T06:00:00.000Z"
JUNK: list[object] = [None, "", "garbage", "2026-13-40T99:99:99Z", "   ", "2026-08-17T25:00:00Z"]


@pytest.mark.parametrize("value", JUNK)
@pytest.mark.parametrize("tz", ["", "Not/AZone", "Asia", "../etc", "\x00"])
def test_nothing_raises_on_junk(value: object, tz: str) -> None:
    v = value if isinstance(value, str) or value is None else None
    assert reltime.rel_phrase(v, NOW, tz, "zh") == ""
    assert reltime.rel_tag(NOW, v, tz, "en", due=True) == ""
    assert reltime.local_date_key(v, tz) is None
    assert reltime.date_anchors(v, tz, "en") == []
    lt = reltime.format_local_time(v, tz)
    assert lt.offset == ""
    assert (
        blocks.annotate_slice("## Turn x — garbage (user)\nhi", "bad", tz, v)
        == "## Turn x — garbage (user)\nhi"
    )
    assert blocks.slice_head_block(v or "", tz, blocks.Continuity("none")).startswith("## This slice")


def test_bare_dates_roll_over_like_js_date_utc() -> None:
    assert reltime.local_date_key("2026-02-30", "UTC") == "2026-02-30"
    assert reltime.day_diff("2026-02-30", "2026-03-02") == 0
    assert reltime.weekday_label("2026-02-30", "en") == "Mon"  # 2026-03-02


def test_zone_names_are_case_insensitive_like_intl() -> None:
    assert reltime.format_local_time(NOW, "asia/shanghai").zone == "Asia/Shanghai"
    assert reltime.local_date_key("2026-08-16T20:00:00Z", "ASIA/SHANGHAI") == "2026-08-17"


def test_month_names_negative_offsets_and_dst() -> None:
    sept = reltime.format_local_time("2026-09-02T12:00:00Z", "America/New_York")
    assert (sept.local, sept.offset) == ("02 Sept 2026, 08:00", "UTC-04:00")
    assert reltime.format_local_time("2026-01-02T00:30:00Z", "America/St_Johns").offset == "UTC-03:30"


def test_datetime_instants_are_accepted() -> None:
    now = datetime(2026, 8, 17, 6, tzinfo=UTC)
    assert reltime.rel_phrase("2026-08-16", now, "UTC", "en") == "yesterday"
    assert reltime.format_local_time(now, "").utc == NOW


def test_one_unit_is_singular_in_english() -> None:
    assert reltime.rel_phrase("2026-08-17", "2026-08-20T12:00:00Z", "UTC", "en") == "3 days ago"
    assert blocks.format_gap(3_600_000) == "1 hour ago"
    assert blocks.format_gap(86_400_000 * 3) == "3 days ago"


def test_continuity_without_end_uses_the_start() -> None:
    prev = blocks.PrevSlice("2026-08-17-0500", "Taxes", start="2026-08-17T05:00:00.000Z")
    c = blocks.continuity(NOW, prev)
    assert (c.tier, c.gap_ms) == ("recent_return", 3_600_000)
    assert blocks.continuity_line(c).startswith(
        'The user\'s last session ended 1 hour ago (slice 2026-08-17-0500, "Taxes")'
    )


def test_continuity_line_without_focus_names_the_slice() -> None:
    c = blocks.Continuity("cold", 90 * 86_400_000, blocks.PrevSlice("2026-05-01-0900"))
    assert blocks.continuity_line(c) == (
        "The user's last session was 90 days ago (slice 2026-05-01-0900). No strong continuity — start fresh."
    )


def test_chinese_slice_head_uses_chinese_anchors_and_the_summary_line() -> None:
    block = blocks.slice_head_block(
        "2026-08-17T05:15:42.118Z",
        "Asia/Shanghai",
        blocks.Continuity("none"),
        locale="zh",
        evolution_summary="  Learned   that Alex moved.\n",
    )
    lines = block.split("\n")
    assert lines[3].startswith("- 日期锚点")
    assert lines[4] == "    - 今天：2026-08-17（周一）"
    assert "- The user card was updated just as this slice began: Learned that Alex moved." in lines
    assert (
        lines[-1]
        == "Use the user's local time (Asia/Shanghai) for any time references in your reply — not UTC."
    )


def test_recall_reason_annotation() -> None:
    got = blocks.annotate_reason("talked about taxes", "2026-08-10T02:00:00Z", "Asia/Shanghai", NOW, "en")
    assert got == "talked about taxes (local 10:00 · 7 days ago)"
    zh = blocks.annotate_reason("报税", "2026-08-10T02:00:00Z", "Asia/Shanghai", NOW, "zh")
    assert zh == "报税（本地 10:00 · 7 天前）"


def test_english_card_annotations_use_a_space() -> None:
    card = "- a | since: 2026-08-14\n- b — by: 2026-08-18 — refs: [x]"
    got = blocks.annotate_card_times(card, NOW, "Asia/Shanghai", "en")
    assert got == "- a | since: 2026-08-14 (3 days ago)\n- b — by: 2026-08-18 (due tomorrow) — refs: [x]"


@pytest.mark.parametrize(
    ("tz", "key"),
    [
        ("Asia/Shanghai", "Asia/Shanghai"),
        ("  asia/SHANGHAI ", "Asia/Shanghai"),
        ("", "UTC"),
        (None, "UTC"),
        ("Asia", None),  # a folder of the zone database, not a zone (ZoneInfo raises IsADirectoryError)
        ("Not/AZone", None),
        ("../etc/passwd", None),
        ("/etc/localtime", None),
        ("\x00", None),
        (["Asia/Shanghai"], None),  # not a string (stored frontmatter can hold anything)
        (8, None),
    ],
)
def test_one_zone_lookup_never_raises(tz: object, key: str | None) -> None:
    found = reltime.zone(tz)
    assert (found.key if found else None) == key
    assert reltime.zone_or_utc(tz).key == (key or "UTC")
    assert reltime.zone_name(tz) == (key or "UTC")


@pytest.mark.parametrize("stored", ["Asia", "asia/shanghai", "Not/AZone"])
def test_search_reads_a_stored_zone_through_the_same_lookup(stored: str) -> None:
    """The recall index had a lookup of its own that raised on `Asia`; a slice's zone is data."""
    from core.search.recall import open_index
    from tests.fakes.slices import slice_text, storage_with

    sid = "2026-08-11-1000"
    storage = storage_with({sid: slice_text(sid, [("user", "booked flights to Reykjavik")], timezone=stored)})
    index = open_index(storage.snapshot())
    now = datetime(2026, 8, 11, 11, 0, tzinfo=UTC)
    assert [h.slice_id for h in index.search("Reykjavik", 1, now).hits] == ["2026-08-11-1000"]
    assert [h.slice_id for h in index.search("Reykjavik", 1, now, tz=stored).hits] == ["2026-08-11-1000"]
