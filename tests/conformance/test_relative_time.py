"""relative_time.json: every section of the relative-time layer, byte for byte."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

import pytest

from core import reltime
from core import reltime_blocks as blocks
from tests.conftest import load_vectors

pytestmark = pytest.mark.conformance

V = load_vectors("relative_time.json")


def _cases(section: str) -> Any:
    cases = V[section]
    assert cases, f"section {section} is empty"
    return pytest.mark.parametrize("case", cases, ids=[str(i) for i in range(len(cases))])


@_cases("normalize_locale")
def test_normalize_locale(case: dict) -> None:
    assert reltime.normalize_locale(case["input"]) == case["output"]


@_cases("local_date_key")
def test_local_date_key(case: dict) -> None:
    assert reltime.local_date_key(case["iso"], case["timezone"]) == case["output"]


@_cases("day_diff")
def test_day_diff(case: dict) -> None:
    assert reltime.day_diff(case["date"], case["now"]) == case["output"]


@_cases("weekday_label")
def test_weekday_label(case: dict) -> None:
    assert reltime.weekday_label(case["date"], case["locale"]) == case["output"]


@_cases("rel_phrase_and_tag")
def test_rel_phrase_and_tag(case: dict) -> None:
    opts = {"weekday": bool(case["opts"].get("weekday")), "due": bool(case["opts"].get("due"))}
    args = (case["iso"], case["nowIso"], case["timezone"], case["locale"])
    assert reltime.rel_phrase(*args, **opts) == case["phrase"]
    assert reltime.rel_tag(*args, **opts) == case["tag"]


@_cases("annotate_date")
def test_annotate_date(case: dict) -> None:
    got = reltime.annotate_date(case["iso"], case["nowIso"], case["timezone"], case["locale"])
    assert got == case["output"]


@_cases("annotate_card_times")
def test_annotate_card_times(case: dict) -> None:
    got = blocks.annotate_card_times(case["card"], case["anchorIso"], case["timezone"], case["locale"])
    assert got == case["output"]


@_cases("date_anchors")
def test_date_anchors(case: dict) -> None:
    assert reltime.date_anchors(case["nowIso"], case["timezone"], case["locale"]) == case["output"]


@_cases("format_local_time")
def test_format_local_time(case: dict) -> None:
    assert asdict(reltime.format_local_time(case["iso"], case["timezone"])) == case["output"]


@_cases("slice_local")
def test_slice_local(case: dict) -> None:
    got = blocks.slice_local(case["sliceId"], case["timezone"], case["nowIso"], case["locale"])
    assert (got.clock, got.rel, got.banner) == (case["clock"], case["rel"], case["banner"])


@_cases("annotate_slice")
def test_annotate_slice(case: dict) -> None:
    args = (case["raw"], case["sliceId"], case["timezone"], case["nowIso"], case["locale"])
    got = blocks.annotate_slice(*args)
    assert got == case["output"]


@_cases("format_gap")
def test_format_gap(case: dict) -> None:
    assert blocks.format_gap(case["gapMs"]) == case["output"]


def _prev(raw: dict | None) -> blocks.PrevSlice | None:
    return blocks.PrevSlice(**raw) if raw else None


def _continuity(raw: dict) -> blocks.Continuity:
    return blocks.Continuity(tier=raw["tier"], gap_ms=raw.get("gapMs"), prev=_prev(raw.get("prevSlice")))


@_cases("continuity")
def test_continuity(case: dict) -> None:
    got = blocks.continuity(case["nowIso"], _prev(case["prevSlice"]), same_slice=case["isSameSlice"])
    assert got == _continuity(case["result"])
    assert blocks.continuity_line(got) == case["line"]


@_cases("slice_head_blocks")
def test_slice_head_block(case: dict) -> None:
    inp = case["input"]
    got = blocks.slice_head_block(
        inp["sliceStartIso"],
        inp["clientTimezone"],
        _continuity(inp["continuity"]),
        locale=inp.get("locale", "en"),
    )
    assert got == case["block"]


def test_every_section_is_covered() -> None:
    tested = {name[len("test_") :] for name in globals() if name.startswith("test_")}
    aliases = {"slice_head_blocks": "slice_head_block"}
    missing = [k for k in V if k != "description" and aliases.get(k, k) not in tested]
    assert missing == []
