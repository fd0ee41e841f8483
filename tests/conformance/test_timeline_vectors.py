"""timeline_render.json: pointer lines, the Markdown projection, and the weave scenarios (exact bytes).

The time-tagged lines and the prompt briefs are tested with the prompt (test_timeline_brief_vectors.py).
"""

from __future__ import annotations

import json

import pytest

from core.clock import parse_iso
from core.memory import paths
from core.memory.catalog import entry_from_meta
from core.memory.catalog import slice_meta as read_meta
from core.memory.timeline_md import group_entries, render_timeline_md, slice_line
from core.memory.weave import weave_timeline
from core.storage.base import WriteBatch
from core.storage.memory import InMemoryStorage
from tests.conftest import load_vectors

pytestmark = pytest.mark.conformance

V = load_vectors("timeline_render.json")
SCENARIOS = V["weave_scenarios"]


@pytest.mark.parametrize("case", V["slice_line"], ids=[c["name"] for c in V["slice_line"]])
def test_slice_line(case: dict) -> None:
    assert slice_line(case["entry"], "zh") == case["line"]


@pytest.mark.parametrize("case", V["render_md"], ids=[c["name"] for c in V["render_md"]])
def test_render_md(case: dict) -> None:
    assert render_timeline_md(case["index"], "zh") == case["markdown"]
    groups = [
        {"era": era, "days": [{"day": day, "slices": entries} for day, entries in days]}
        for era, days in group_entries(case["index"]["slices"])
    ]
    assert groups == case["groups"]


def test_empty_catalog_is_the_header_and_one_newline() -> None:
    index = {"_schema": 1, "updated_at": "X", "slice_count": 0, "needs_marking": 0, "slices": []}
    assert (
        render_timeline_md(index, "zh")
        == "# Timeline\n\n_Generated: X_\n_Slices: 0_\n_Needs marking: 0_\n_Schema: 1_\n"
    )


def test_slice_entry_from_disk_example() -> None:
    case = V["slice_entry_from_disk_example"]
    entry = entry_from_meta(case["entry"]["id"], read_meta(case["core_md"]))
    assert json.dumps(entry, ensure_ascii=False) == json.dumps(case["entry"], ensure_ascii=False)


def _weave(storage: InMemoryStorage, clock: str, force: bool) -> dict:
    batch = WriteBatch.open(storage)
    result = weave_timeline(batch, parse_iso(clock), force=force, locale="zh")
    batch.commit("weave")
    return result.as_dict()


def _first_run() -> InMemoryStorage:
    storage = InMemoryStorage.from_texts(SCENARIOS[0]["files_before"])
    _weave(storage, SCENARIOS[0]["clock"], SCENARIOS[0]["force"])
    return storage


def test_weave_first_run() -> None:
    case = SCENARIOS[0]
    storage = InMemoryStorage.from_texts(case["files_before"])
    assert _weave(storage, case["clock"], case.get("force", False)) == case["result"]
    assert storage.files[paths.CATALOG_JSON] == case["index_json"]
    assert storage.files[paths.TIMELINE_MD] == case["timeline_md"]


def test_weave_stale_reconcile() -> None:
    case = SCENARIOS[1]
    storage = _first_run()
    index = json.loads(storage.files[paths.CATALOG_JSON])
    phantom = dict(index["slices"][0], id=case["injected_phantom"], date=case["injected_phantom"][:10])
    index["slices"].insert(0, phantom)
    storage.files[paths.CATALOG_JSON] = json.dumps(index, ensure_ascii=False, indent=2)
    for f in (case["added_file"], case["refilled_file"]):
        storage.files[paths.MemoryPath(f["path"])] = f["content"]
    assert _weave(storage, case["clock"], case.get("force", False)) == case["result"]
    assert storage.files[paths.CATALOG_JSON] == case["index_json"]
    assert storage.files[paths.TIMELINE_MD] == case["timeline_md"]


def test_weave_seeds_from_monthly_indexes() -> None:
    case = SCENARIOS[2]
    storage = InMemoryStorage.from_texts(case["files_before"])
    assert _weave(storage, case["clock"], case.get("force", False)) == case["result"]
    assert storage.files[paths.CATALOG_JSON] == case["index_json"]


def test_weave_is_throttled_within_five_minutes() -> None:
    storage = _first_run()
    before = dict(storage.files)
    result = _weave(storage, "2026-08-11T12:04:59.999Z", force=False)
    assert result == {
        "added": 0,
        "removed": 0,
        "newly_dry": 0,
        "needs_marking": 1,
        "total": 3,
        "skipped": True,
    }
    assert storage.files == before


def test_all_scenarios_are_covered() -> None:
    assert len(SCENARIOS) == 3
