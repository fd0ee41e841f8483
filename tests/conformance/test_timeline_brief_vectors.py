"""timeline_render.json → briefs, slice_line_with_time, id_tags: the timeline as the prompt shows it."""

from __future__ import annotations

from typing import Any

import pytest

from core.agent.timeline_brief import brief_line, id_tag, timeline_brief
from core.memory.catalog.entry import CatalogEntry
from tests.conformance.vectors import Case, shape, vectors

V = vectors("timeline_render.json")
pytestmark = pytest.mark.conformance
# The original's pointer labels are Chinese ("14轮") whatever language the date tags use.
ORIGINAL_LABELS = "zh"


@pytest.mark.parametrize(
    "case", V.cases("id_tags", shape("tags", "id nowIso timezone locale rel_tag abs_tag"))
)
def test_id_tags(case: Case) -> None:
    tz, locale = case["timezone"], case["locale"]
    assert id_tag(case["id"], tz, locale, case["nowIso"]) == case["rel_tag"]
    assert id_tag(case["id"], tz, locale) == case["abs_tag"]


def _line_entry(case: Case) -> CatalogEntry:
    """A case's own `entry`, else the one behind the shared lines (the first slice_line entry, 14 turns)."""
    raw = (
        dict(case["entry"]) if "entry" in case else {**V.section("slice_line")[0]["entry"], "turn_count": 14}
    )
    entry = CatalogEntry.from_json(raw)
    assert entry is not None, f"{case.where}: the entry has no valid slice id"
    return entry


def _known_opts(case: Case) -> dict[str, Any]:
    opts = case.get("opts") or {}
    unknown = set(opts) - {"nowIso", "asOfSliceId", "timezone", "locale", "recent"}
    assert not unknown, f"{case.where}: opts this test does not know: {sorted(unknown)}"
    return dict(opts)


@pytest.mark.parametrize("case", V.cases("slice_line_with_time", shape("line", "line", "opts entry")))
def test_slice_line_with_time(case: Case) -> None:
    opts = _known_opts(case)
    now = None if "asOfSliceId" in opts else opts.get("nowIso")
    line = brief_line(
        _line_entry(case),
        timezone=opts.get("timezone"),
        locale=opts.get("locale", "zh"),
        now=now,
        labels=ORIGINAL_LABELS,
    )
    assert line == case["line"]


@pytest.mark.parametrize("case", V.cases("briefs", shape("brief", "index brief", "opts")))
def test_briefs(case: Case) -> None:
    opts = _known_opts(case)
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


EMPTY_BRIEF = "## Timeline (recent)\n- (empty — no slices yet)"


@pytest.mark.parametrize(
    "index",
    [
        {},
        {"_schema": 1, "updated_at": "X", "slice_count": 0, "needs_marking": 0, "slices": []},
        {
            "slices": [
                {"id": "2026-08-17-1400", "date": "2026-08-17", "status": "active", "focus": "", "tags": []}
            ]
        },
    ],
    ids=["no catalog", "empty catalog", "only the current slice"],
)
def test_an_empty_pool_renders_the_empty_line(index: dict[str, Any]) -> None:
    """REFERENCE §11.7: no earlier closed slice → the header and the one empty line, any locale."""
    for locale in ("en", "zh"):
        brief = timeline_brief(
            index, as_of="2026-08-17-1400", now=None, timezone="UTC", locale=locale, labels=ORIGINAL_LABELS
        )
        assert brief == EMPTY_BRIEF
