"""relative_time.json: every section of the relative-time layer, byte for byte.

One deliberate difference: when the previous slice's time does not parse, the original wrote
its gap as `NaN days ago`; we write `a while ago`.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

import pytest

from core import reltime
from core import reltime_blocks as blocks
from tests.conformance.vectors import Case, shape, vectors

pytestmark = pytest.mark.conformance

V = vectors("relative_time.json")
SHAPES = {
    "normalize_locale": "input output",
    "local_date_key": "iso timezone output",
    "day_diff": "date now output",
    "weekday_label": "date locale output",
    "rel_phrase_and_tag": "iso nowIso timezone locale opts phrase tag",
    "annotate_date": "iso nowIso timezone locale output",
    "annotate_card_times": "card anchorIso timezone locale output",
    "date_anchors": "nowIso timezone locale output",
    "format_local_time": "iso timezone output",
    "slice_local": "sliceId timezone nowIso locale clock rel banner",
    "annotate_slice": "raw locale timezone sliceId nowIso output",
    "format_gap": "gapMs output",
    "continuity": "nowIso prevSlice isSameSlice result line",
    "slice_head_blocks": "input block",
}
# Keys a case may leave out (the function's default applies).
OPTIONAL = {"rel_phrase_and_tag": "opts", "slice_local": "locale", "annotate_slice": "locale"}


def _cases(section: str) -> Any:
    kind = shape(section, SHAPES[section], OPTIONAL.get(section, ""))
    return pytest.mark.parametrize("case", V.cases(section, kind))


@_cases("normalize_locale")
def test_normalize_locale(case: Case) -> None:
    assert reltime.normalize_locale(case["input"]) == case["output"]


@_cases("local_date_key")
def test_local_date_key(case: Case) -> None:
    assert reltime.local_date_key(case["iso"], case["timezone"]) == case["output"]


@_cases("day_diff")
def test_day_diff(case: Case) -> None:
    assert reltime.day_diff(case["date"], case["now"]) == case["output"]


@_cases("weekday_label")
def test_weekday_label(case: Case) -> None:
    assert reltime.weekday_label(case["date"], case["locale"]) == case["output"]


@_cases("rel_phrase_and_tag")
def test_rel_phrase_and_tag(case: Case) -> None:
    given = case.get("opts") or {}
    unknown = set(given) - {"weekday", "due"}
    assert not unknown, f"{case.where}: opts this test does not know: {sorted(unknown)}"
    weekday, due = bool(given.get("weekday")), bool(given.get("due"))
    args = (case["iso"], case["nowIso"], case["timezone"], case["locale"])
    assert reltime.rel_phrase(*args, weekday=weekday, due=due) == case["phrase"]
    assert reltime.rel_tag(*args, weekday=weekday, due=due) == case["tag"]


@_cases("annotate_date")
def test_annotate_date(case: Case) -> None:
    got = reltime.annotate_date(case["iso"], case["nowIso"], case["timezone"], case["locale"])
    assert got == case["output"]


@_cases("annotate_card_times")
def test_annotate_card_times(case: Case) -> None:
    got = blocks.annotate_card_times(case["card"], case["anchorIso"], case["timezone"], case["locale"])
    assert got == case["output"]


@_cases("date_anchors")
def test_date_anchors(case: Case) -> None:
    assert reltime.date_anchors(case["nowIso"], case["timezone"], case["locale"]) == case["output"]


@_cases("format_local_time")
def test_format_local_time(case: Case) -> None:
    assert asdict(reltime.format_local_time(case["iso"], case["timezone"])) == case["output"]


@_cases("slice_local")
def test_slice_local(case: Case) -> None:
    got = blocks.slice_local(case["sliceId"], case["timezone"], case["nowIso"], case.get("locale", "zh"))
    assert (got.clock, got.rel, got.banner) == (case["clock"], case["rel"], case["banner"])


@_cases("annotate_slice")
def test_annotate_slice(case: Case) -> None:
    args = (case["raw"], case["sliceId"], case["timezone"], case["nowIso"], case.get("locale", "zh"))
    got = blocks.annotate_slice(*args)
    assert got == case["output"]


@_cases("format_gap")
def test_format_gap(case: Case) -> None:
    assert blocks.format_gap(case["gapMs"]) == case["output"]


def _prev(raw: dict | None) -> blocks.PrevSlice | None:
    return blocks.PrevSlice(**raw) if raw else None


def _continuity(raw: dict) -> blocks.Continuity:
    return blocks.Continuity(tier=raw["tier"], gap_ms=raw.get("gapMs"), prev=_prev(raw.get("prevSlice")))


@_cases("continuity")
def test_continuity(case: Case) -> None:
    got = blocks.continuity(case["nowIso"], _prev(case["prevSlice"]), same_slice=case["isSameSlice"])
    assert got == _continuity(case["result"])
    assert blocks.continuity_line(got) == _ours(case["line"])


def _ours(text: str) -> str:
    return text.replace("NaN days ago", "a while ago")


@_cases("slice_head_blocks")
def test_slice_head_block(case: Case) -> None:
    inp = case["input"]
    unknown = set(inp) - {"sliceStartIso", "clientTimezone", "continuity", "locale", "evolutionSummary"}
    assert not unknown, f"{case.where}: input keys this test does not know: {sorted(unknown)}"
    got = blocks.slice_head_block(
        inp["sliceStartIso"],
        inp.get("clientTimezone"),
        _continuity(inp["continuity"]),
        locale=inp.get("locale", "en"),
        evolution_summary=inp.get("evolutionSummary") or "",
    )
    assert got == _ours(case["block"])


MIN = 60_000


@pytest.mark.parametrize(
    ("gap_ms", "text"),
    [
        (0, "1 min ago"),  # never "0 mins"
        (-5 * MIN, "1 min ago"),  # a clock a little ahead of the previous slice's end
        (89_999, "1 min ago"),
        (90_000, "2 mins ago"),  # Math.round: .5 rounds up
        (59 * MIN + 29_999, "59 mins ago"),
        (59 * MIN + 30_000, "1 hour ago"),
        (90 * MIN, "2 hours ago"),
        (23 * 60 * MIN + 29 * MIN, "23 hours ago"),
        (23 * 60 * MIN + 30 * MIN, "1 day ago"),  # 23.5 hours rounds to 24, i.e. a day
        (36 * 60 * MIN, "2 days ago"),
        (13 * 24 * 60 * MIN, "13 days ago"),
    ],
)
def test_slice_head_gap_wording(gap_ms: int, text: str) -> None:
    """REFERENCE §13.2: minutes = max(1, round), then hours below 24, then days (JS rounding)."""
    assert blocks.format_gap(gap_ms) == text


def test_slice_head_continuity_tiers() -> None:
    """A gap under 24 h is a return, 24 h or more (or a time that does not parse) is cold."""
    prev = blocks.PrevSlice(id="2026-08-02-0530", focus="", start="2026-08-01T05:00:00.000Z", end="")
    just_under = blocks.continuity("2026-08-02T04:59:59.999Z", prev)
    assert just_under.tier == "recent_return"
    # A return still, though its gap rounds to "1 day" (the tier uses the exact gap).
    assert blocks.continuity_line(just_under).startswith(
        "The user's last session ended 1 day ago (slice 2026-08-02-0530) — this message is its direct"
    )
    day = blocks.continuity("2026-08-02T05:00:00.000Z", prev)
    assert day.tier == "cold"
    assert blocks.continuity_line(day) == (
        "The user's last session was 1 day ago (slice 2026-08-02-0530). No strong continuity — start fresh."
    )
    broken = blocks.continuity(
        "2026-08-02T05:00:00.000Z", blocks.PrevSlice(id="x", focus="f", start="soon", end="")
    )
    assert broken.tier == "cold" and broken.gap_ms is None
    assert "was a while ago" in blocks.continuity_line(broken)


def test_slice_head_card_line() -> None:
    """The optional card line of §13.2, on one line, only when there is a summary."""
    cont = blocks.Continuity(tier="none")
    base = blocks.slice_head_block("2026-08-17T05:15:42.118Z", "UTC", cont)
    assert "user card was updated" not in base
    block = blocks.slice_head_block(
        "2026-08-17T05:15:42.118Z", "UTC", cont, evolution_summary="Moved\nto  Lyon"
    )
    assert "\n- The user card was updated just as this slice began: Moved to Lyon\n" in block
