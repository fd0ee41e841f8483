"""timeline_render.json → briefs, slice_line_with_time, id_tags: the timeline as the prompt shows it."""

from __future__ import annotations

from typing import Any

import pytest

from core.agent.timeline_brief import brief_line, id_tag, timeline_brief
from tests.conftest import load_vectors

V = load_vectors("timeline_render.json")
pytestmark = pytest.mark.conformance
# The original's pointer labels are Chinese ("14轮") whatever language the date tags use.
ORIGINAL_LABELS = "zh"


@pytest.mark.parametrize("case", V["id_tags"], ids=[c["id"] + "-" + c["locale"] for c in V["id_tags"]])
def test_id_tags(case: dict[str, Any]) -> None:
    tz, locale = case["timezone"], case["locale"]
    assert id_tag(case["id"], tz, locale, case["nowIso"]) == case["rel_tag"]
    assert id_tag(case["id"], tz, locale) == case["abs_tag"]


def _line_entry() -> dict[str, Any]:
    """The entry behind the slice_line_with_time lines (the first slice_line entry, 14 turns)."""
    return {**V["slice_line"][0]["entry"], "turn_count": 14}


@pytest.mark.parametrize("case", V["slice_line_with_time"], ids=lambda c: str(sorted(c["opts"].items())))
def test_slice_line_with_time(case: dict[str, Any]) -> None:
    opts = case["opts"]
    now = None if "asOfSliceId" in opts else opts.get("nowIso")
    line = brief_line(
        _line_entry(),
        timezone=opts.get("timezone"),
        locale=opts.get("locale", "zh"),
        now=now,
        labels=ORIGINAL_LABELS,
    )
    assert line == case["line"]


@pytest.mark.parametrize("case", V["briefs"], ids=[c["name"] for c in V["briefs"]])
def test_briefs(case: dict[str, Any]) -> None:
    opts = case["opts"]
    brief = timeline_brief(
        case["index"],
        as_of=opts.get("asOfSliceId"),
        now=opts.get("nowIso"),
        timezone=opts.get("timezone"),
        locale=opts.get("locale", "zh"),
        labels=ORIGINAL_LABELS,
        recent=opts.get("recent", 10),
    )
    assert brief == case["brief"]
