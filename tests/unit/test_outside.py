"""`OutsideAccess`: the agent's own readers and recall for other agents, each call on a fresh snapshot."""

from __future__ import annotations

import json

import pytest

from core.agent.outside import OutsideAccess
from core.agent.slice_tools import SliceRange
from core.clock import FixedClock, SequentialIds, parse_iso
from core.errors import InvalidInput, NotFound, ReadOnly
from core.memory.paths import CONFIG_JSON, core_md
from tests.fakes.slices import SAMPLE, slice_text, storage_with

pytestmark = pytest.mark.unit
NOW = parse_iso("2026-08-11T09:00:00Z")


def access(**kw: object) -> OutsideAccess:
    return OutsideAccess(storage=storage_with(SAMPLE), clock=FixedClock(NOW), ids=SequentialIds(), **kw)  # type: ignore[arg-type]


def test_recall_without_a_model_is_the_floor_cut_to_k() -> None:
    report = access().recall("beagle chewing shoes", k=1)
    assert report.source == "floor"
    assert [h.slice_id for h in report.hits] == ["2026-03-14-0900"]


@pytest.mark.parametrize("k", [0, 51, True])
def test_k_out_of_range_is_refused_before_anything_runs(k: object) -> None:
    with pytest.raises(InvalidInput, match="k must be a whole number from 1 to 50"):
        access().recall("beagle", k=k)  # type: ignore[arg-type]
    with pytest.raises(InvalidInput, match="k must be"):
        access().search("beagle", k=k)  # type: ignore[arg-type]


def test_empty_queries_are_refused() -> None:
    for q in ("", "   "):
        with pytest.raises(InvalidInput, match="The query is empty"):
            access().search(q)


def test_reads_see_a_new_slice_at_once_and_use_its_own_zone() -> None:
    a, sid = access(), "2026-08-10-1230"
    with pytest.raises(NotFound):
        a.read_slice_summary(sid)
    a.storage.files[core_md(sid)] = slice_text(sid, [("user", "Lunch in Kyoto.")], timezone="Asia/Tokyo")  # type: ignore[attr-defined]
    assert "Lunch in Kyoto." in a.read_slice(sid)
    assert "Asia/Tokyo" in a.read_slice(sid, SliceRange(type="last", count=1))
    assert a.read_slice_summary(sid).startswith(f"Slice {sid}\nStarted: 10 Aug 2026, 21:30 (Asia/Tokyo)")
    assert "(UTC)" in access(timezone="UTC").read_slice_summary("2026-03-14-0900")


def test_window_and_card_are_the_agent_tools_text() -> None:
    a = access()
    assert a.read_card().startswith("The user card is still empty")
    with pytest.raises(InvalidInput, match="YYYY-MM-DD"):
        a.timeline_window("March", None, 10)


def test_remember_refusals() -> None:
    a = access()
    with pytest.raises(ReadOnly, match="mcpRemember"):
        a.remember("x")
    a.storage.files[CONFIG_JSON] = json.dumps({"mcpRemember": "stage"})  # type: ignore[attr-defined]
    with pytest.raises(ReadOnly, match="--read-only"):
        access(writes_allowed=False).remember("x")
    done = a.remember("keep this", client="  cursor ")
    assert done.note is not None and done.note.source == "MCP · cursor"
