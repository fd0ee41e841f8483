"""timeline_render.json: pointer lines, the Markdown projection, and the weave scenarios (exact bytes).

The time-tagged lines and the prompt briefs are tested with the prompt (test_timeline_brief_vectors.py).
"""

from __future__ import annotations

import json
from datetime import timedelta

import pytest

from core.clock import parse_iso
from core.memory import paths
from core.memory.catalog.entry import CatalogEntry
from core.memory.catalog.index import entry_from_meta, read_index, stored_index_text
from core.memory.catalog.index import slice_meta as read_meta
from core.memory.catalog.layout import split
from core.memory.catalog.timeline_md import entries_of, group_entries, render_timeline_md, slice_line
from core.memory.catalog.weave import index_slice, weave_timeline
from core.memory.formats import jsjson
from core.storage.base import WriteBatch
from core.storage.memory import InMemoryStorage
from tests.conformance.slice_shapes import slice_from_vector
from tests.conformance.vectors import Case, shape, vectors

pytestmark = pytest.mark.conformance

V = vectors("timeline_render.json")
# A scenario starts from `files_before`, or (without it) from the tree the scenario before it
# left, changed as it says: a phantom catalog entry injected, files added or rewritten.
FROM_FILES = shape("from files", "clock files_before result index_json", "force timeline_md")
FOLLOW_UP = shape(
    "follow-up", "clock result index_json", "force injected_phantom added_file refilled_file timeline_md"
)
# A slice the turn just minted (the in-memory slice, under one of these names), upserted into
# the catalog before its folder is on disk (REFERENCE §11.4).
MINTED_KEYS = (
    "minted",
    "minted_slice",
    "new_slice",
    "upsert",
    "upsert_slice",
    "upserted_slice",
    "created_slice",
)
UPSERT = shape("upsert", "clock index_json", "result timeline_md files_before force " + " ".join(MINTED_KEYS))
SCENARIOS = V.cases("weave_scenarios", FROM_FILES, FOLLOW_UP, UPSERT)


@pytest.mark.parametrize("case", V.cases("slice_line", shape("line", "entry line")))
def test_slice_line(case: Case) -> None:
    entry = CatalogEntry.from_json(case["entry"])
    assert entry is not None and entry.to_json() == case["entry"]
    assert slice_line(entry, "zh") == case["line"]


@pytest.mark.parametrize("case", V.cases("render_md", shape("render", "index markdown", "groups")))
def test_render_md(case: Case) -> None:
    assert render_timeline_md(case["index"], "zh") == case["markdown"]
    if "groups" not in case:
        return
    groups = [
        {
            "era": era,
            "days": [{"day": day, "slices": [e.to_json() for e in entries]} for day, entries in days],
        }
        for era, days in group_entries(entries_of(case["index"]))
    ]
    assert groups == case["groups"]


EMPTY_MD = "# Timeline\n\n_Generated: X_\n_Slices: 0_\n_Needs marking: 0_\n_Schema: 1_\n\n"


def test_empty_catalog_is_the_header_and_one_newline() -> None:
    """REFERENCE §11.2: no slices → the header plus one extra `\\n` (the blank line that would
    precede the first era), whatever form the empty list takes."""
    index = {"_schema": 1, "updated_at": "X", "slice_count": 0, "needs_marking": 0, "slices": []}
    assert render_timeline_md(index, "zh") == EMPTY_MD == render_timeline_md(index, "en")
    assert render_timeline_md({**index, "slices": None}, "zh") == EMPTY_MD
    assert render_timeline_md({k: v for k, v in index.items() if k != "slices"}, "zh") == EMPTY_MD


def test_weave_of_an_empty_tree_writes_an_empty_catalog() -> None:
    storage = InMemoryStorage()
    result = _weave(storage, "2026-08-11T12:00:00.000Z", force=True)
    assert {k: result[k] for k in ("added", "removed", "total", "needs_marking")} == {
        "added": 0, "removed": 0, "total": 0, "needs_marking": 0,
    }  # fmt: skip
    text = stored_index_text(storage.snapshot()) or ""
    index = json.loads(text)
    assert index["slices"] == [] and index["slice_count"] == 0
    assert '"slices": []' in text
    assert storage.files[paths.TIMELINE_MD] == EMPTY_MD.replace("X", "2026-08-11T12:00:00.000Z")


@pytest.mark.parametrize("example", V.cases("slice_entry_from_disk_example", shape("entry", "core_md entry")))
def test_slice_entry_from_disk_example(example: Case) -> None:
    entry = entry_from_meta(example["entry"]["id"], read_meta(example["core_md"])).to_json()
    assert json.dumps(entry, ensure_ascii=False) == json.dumps(example["entry"], ensure_ascii=False)


def _weave(storage: InMemoryStorage, clock: str, force: bool) -> dict:
    batch = WriteBatch.open(storage)
    result = weave_timeline(batch, parse_iso(clock), force=force, locale="zh")
    batch.commit("weave")
    return result.as_dict()


def _scenario_cases() -> list[Case]:
    return [p.values[0] for p in SCENARIOS]


def _prepare(index: int) -> InMemoryStorage:
    """The tree scenario `index` starts from (earlier scenarios replayed when it follows one)."""
    case = _scenario_cases()[index]
    if case.kind == "from files" or (case.kind == "upsert" and "files_before" in case):
        return InMemoryStorage.from_texts(case["files_before"])
    if index == 0:
        pytest.fail(f"{case.where}: the first scenario has no files_before to start from", pytrace=False)
    storage = _prepare(index - 1)
    before = _scenario_cases()[index - 1]
    if before.kind == "upsert":
        _upsert(storage, before)
    else:
        _weave(storage, before["clock"], bool(before.get("force", False)))
    _apply_changes(storage, case)
    return storage


def _upsert(storage: InMemoryStorage, case: Case) -> None:
    key = next((k for k in MINTED_KEYS if k in case), None)
    if key is None:
        pytest.fail(f"{case.where}: an upsert scenario names no minted slice ({MINTED_KEYS})", pytrace=False)
    minted = slice_from_vector(case[key])
    batch = WriteBatch.open(storage)
    index_slice(batch, minted, parse_iso(case["clock"]), locale="zh", created=True)
    batch.commit("turn")


def _apply_changes(storage: InMemoryStorage, case: Case) -> None:
    if "injected_phantom" in case:
        index = json.loads(stored_index_text(storage.snapshot()) or "")
        sid = case["injected_phantom"]
        index["slices"].insert(0, dict(index["slices"][0], id=sid, date=sid[:10]))
        storage.files.update(split(index))  # the catalog's files (core/memory/catalog/layout.py)
    for key in ("added_file", "refilled_file"):
        if key in case:
            storage.files[paths.MemoryPath(case[key]["path"])] = case[key]["content"]


@pytest.mark.parametrize("case", SCENARIOS)
def test_weave_scenario(case: Case) -> None:
    """The result and the exact files after the weave; `null` for a file means none is there
    (a skipped weave over a tree without one writes none).

    Deliberate difference for an upsert: the minted slice's entry is queued in
    `timeline/pending.json` (index.json is not rewritten each turn: docs/FORMAT.md), so the
    catalog every reader sees — index.json with the pending entries — is compared, its
    `updated_at` aside (the original restamped it on every upsert)."""
    if case.kind == "upsert":
        storage = _prepare(_scenario_cases().index(case))
        _upsert(storage, case)
        seen = read_index(storage.snapshot())
        want = json.loads(case["index_json"])
        assert seen is not None and {**seen, "updated_at": want["updated_at"]} == want
        if case.get("timeline_md"):
            lines = render_timeline_md({**seen, "updated_at": want["updated_at"]}, "zh")
            assert lines == case["timeline_md"]
        return
    storage = _prepare(_scenario_cases().index(case))
    before = dict(storage.files)
    result = _weave(storage, case["clock"], bool(case.get("force", False)))
    assert result == case["result"]
    if result["skipped"]:
        assert storage.files == before, "a skipped weave wrote something"
    # The month files together hold exactly what the single index.json held.
    assert stored_index_text(storage.snapshot()) == case["index_json"]
    if "timeline_md" in case:
        assert storage.files.get(paths.TIMELINE_MD) == case["timeline_md"]


def test_weave_is_throttled_within_five_minutes() -> None:
    first = _scenario_cases()[0]
    storage = _prepare(0)
    _weave(storage, first["clock"], bool(first.get("force", False)))
    before = dict(storage.files)
    later = (parse_iso(first["clock"]) + timedelta(minutes=5) - timedelta(milliseconds=1)).isoformat()
    result = _weave(storage, later, force=False)
    assert result["skipped"] is True and result["added"] == result["removed"] == 0
    assert storage.files == before


@pytest.mark.parametrize("case", SCENARIOS)
def test_catalog_entries_round_trip_byte_for_byte(case: Case) -> None:
    """Every entry of every measured index.json reads into a `CatalogEntry` and writes back the
    same bytes (key order included), and a re-read after `to_json` is the same entry."""
    index = json.loads(case["index_json"])
    entries = [CatalogEntry.from_json(e) for e in index["slices"]]
    assert None not in entries
    again = {**index, "slices": [e.to_json() for e in entries if e]}
    assert jsjson.dumps(again) == case["index_json"]
    assert [CatalogEntry.from_json(e.to_json()) for e in entries if e] == entries
