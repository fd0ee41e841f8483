"""The strands in shards (core/memory/catalog/strand_shards.py): any sequence of weaves, unweaves,
forgets, prunes and merges gives the same tag → paths as the single strands.json, a turn's
readers need the menu only, and the single file is converted once with nothing lost."""

from __future__ import annotations

import itertools
import json
from datetime import UTC, datetime

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.memory import paths
from core.memory.catalog.strand_shards import (
    apply_diff,
    menu_of,
    migrate_strands,
    queue_strands,
    read_all_strands,
    read_menu,
    read_strand,
    shard_of,
)
from core.memory.catalog.strands import (
    MergeProposal,
    Strands,
    apply_merges,
    drop_slice,
    filter_proposals,
    find_matching,
    prune,
    render_strands,
    weave_tags,
)
from core.memory.catalog.weave import weave_slice_strands
from core.memory.owners.strands import queue_drop_slice, queue_unweave
from core.memory.slice.model import Slice
from core.storage.base import WriteBatch
from core.storage.memory import InMemoryStorage
from core.turn.closing import prune_strands
from core.turn.passes import merge_update

pytestmark = pytest.mark.unit

NOW = datetime(2026, 8, 20, 12, 0, tzinfo=UTC)
# Keys that normalise alike (one shard), near misses, array-index keys (JS order), CJK.
TAGS = [
    "Garden",
    "garden",
    " garden ",
    "ＧＡＲＤＥＮ",
    "work",
    "Work  Life",
    "work life",
    "1",
    "01",
    "跑步",
    "moving",
]
SLICES = ["2026-08-19-0900", "2026-08-10-1200", "2026-07-01-0800", "2026-05-02-0700", "2025-12-31-2300"]

tags = st.lists(st.sampled_from(TAGS), max_size=3)
slice_ids = st.sampled_from(SLICES)
steps = st.lists(
    st.one_of(
        st.tuples(st.just("weave"), tags, slice_ids),
        st.tuples(st.just("unweave"), tags, slice_ids),
        st.tuples(st.just("forget"), st.just([]), slice_ids),
        st.tuples(st.just("prune"), st.just([]), slice_ids),
        st.tuples(st.just("merge"), st.lists(st.sampled_from(TAGS), min_size=2, max_size=4), slice_ids),
    ),
    max_size=8,
)
legacy_maps = st.dictionaries(
    st.sampled_from(TAGS),
    st.lists(st.sampled_from([paths.slice_rel(s) for s in SLICES]), unique=True),
    max_size=6,
)


def _proposals(names: list[str]) -> list[MergeProposal]:
    return [MergeProposal(a, b) for a, b in itertools.pairwise(names)]


def _unweave(strands: Strands, names: list[str], rel: str) -> None:
    for tag in names:
        key = find_matching(strands, tag)
        if key is not None and rel in strands[key]:
            strands[key] = [p for p in strands[key] if p != rel]
            if not strands[key]:
                del strands[key]


def _reference(strands: Strands, step: tuple[str, list[str], str]) -> Strands:
    """What the single strands.json became under each operation (its pure functions)."""
    kind, names, sid = step
    rel = paths.slice_rel(sid)
    if kind == "weave":
        weave_tags(strands, names, rel)
    elif kind == "unweave":
        _unweave(strands, names, rel)
    elif kind == "forget":
        strands = drop_slice(strands, rel)[0]
    elif kind == "prune":
        strands = prune(strands, NOW)[0]
    else:
        strands = apply_merges(strands, filter_proposals(strands, _proposals(names)))[0]
    return strands


def _queue(batch: WriteBatch, step: tuple[str, list[str], str]) -> None:
    """The same operation as the product queues it over the shards."""
    kind, names, sid = step
    if kind == "weave":
        weave_slice_strands(batch, Slice(slice_id=sid, start="", tags=list(names)))
    elif kind == "unweave":
        queue_unweave(batch, sid, names)
    elif kind == "forget":
        queue_drop_slice(batch, sid)
    elif kind == "prune":
        prune_strands(batch, NOW)
    else:
        queue_strands(batch, merge_update(_proposals(names)), names)


def _run(start: dict[str, str], ops: list[tuple[str, list[str], str]]) -> tuple[InMemoryStorage, Strands]:
    storage = InMemoryStorage.from_texts(start)
    reference: Strands = json.loads(start.get(paths.STRANDS_JSON.value, "{}"))
    for step in ops:
        reference = _reference(reference, step)
        batch = WriteBatch.open(storage)
        _queue(batch, step)
        batch.commit("step")
    return storage, reference


@settings(max_examples=400, deadline=None)
@given(legacy_maps, steps, st.booleans())
def test_the_shards_hold_what_the_single_file_would_after_any_updates(
    legacy: Strands, ops: list[tuple[str, list[str], str]], from_legacy: bool
) -> None:
    if from_legacy:  # an existing strands.json, converted by the first write
        storage, reference = _run({paths.STRANDS_JSON.value: render_strands(legacy)}, ops)
    else:
        storage, reference = _run({}, [("weave", list(legacy), SLICES[0]), *ops])
    view = storage.snapshot()
    assert read_all_strands(view) == reference
    assert read_menu(view) == menu_of(reference)
    for tag in TAGS:
        exact = tag if tag in reference else find_matching(reference, tag)
        assert read_strand(view, tag) == (None if exact is None else (exact, reference[exact]))


def test_a_key_and_every_key_it_matches_share_a_shard() -> None:
    assert len({shard_of(t) for t in ["Garden", "garden", " garden ", "ＧＡＲＤＥＮ"]}) == 1
    assert len({shard_of(t) for t in ["Work  Life", "work life"]}) == 1


def test_a_diff_over_a_newer_shard_keeps_what_another_writer_added() -> None:
    old = {"garden": ["a"], "work": ["b"]}
    new = {"garden": ["a", "c"]}  # c woven under garden; work pruned
    assert apply_diff(old, old, new) == new
    current = {"garden": ["a", "x"], "work": ["b", "y"], "new": ["z"]}  # another writer meanwhile
    assert apply_diff(current, old, new) == {"garden": ["a", "x", "c"], "work": ["y"], "new": ["z"]}


def test_a_weave_rewrites_only_the_shards_of_its_tags_and_the_menu() -> None:
    storage = InMemoryStorage()
    batch = WriteBatch.open(storage)
    for n, tag in enumerate(f"topic {i}" for i in range(60)):
        weave_slice_strands(batch, Slice(slice_id=SLICES[n % len(SLICES)], start="", tags=[tag]))
    batch.commit("seed")
    batch = WriteBatch.open(storage)
    weave_slice_strands(batch, Slice(slice_id="2026-08-20-1100", start="", tags=["topic 7", "Topic 9"]))
    written = set(batch.commit("weave").written)
    assert written == {
        paths.strand_shard(shard_of("topic 7")),
        paths.strand_shard(shard_of("topic 9")),
        paths.STRANDS_MENU,
    }
    assert read_menu(storage.snapshot())["topic 9"].latest[0] == "2026/08/20/1100"


def test_the_single_file_is_converted_by_maintain_nothing_lost() -> None:
    legacy = {"Garden": ["2026/08/10/1200", "2026/07/01/0800"], "work": ["2026/08/19/0900"], "1": []}
    storage = InMemoryStorage.from_texts({paths.STRANDS_JSON.value: render_strands(legacy)})
    assert read_all_strands(storage.snapshot()) == legacy  # read as it is before the conversion
    assert list(read_menu(storage.snapshot())) == ["1", "Garden", "work"]  # the file's (JS) order
    batch = WriteBatch.open(storage)
    assert migrate_strands(batch)
    result = batch.commit("convert")
    assert paths.STRANDS_JSON in result.deleted and paths.STRANDS_JSON not in storage.files
    view = storage.snapshot()
    assert read_all_strands(view) == legacy and read_menu(view) == menu_of(legacy)
    assert not migrate_strands(WriteBatch.open(storage))  # nothing left to convert


def test_a_damaged_menu_is_derived_from_the_shards_and_written_again() -> None:
    storage = InMemoryStorage()
    batch = WriteBatch.open(storage)
    weave_slice_strands(batch, Slice(slice_id=SLICES[0], start="", tags=["garden", "work"]))
    batch.commit("seed")
    storage.files[paths.STRANDS_MENU] = '{"garden": ['
    assert read_menu(storage.snapshot()) == menu_of(
        {"garden": ["2026/08/19/0900"], "work": ["2026/08/19/0900"]}
    )
    batch = WriteBatch.open(storage)
    weave_slice_strands(batch, Slice(slice_id=SLICES[1], start="", tags=["garden"]))
    batch.commit("weave")
    assert json.loads(storage.files[paths.STRANDS_MENU]) == {
        "garden": {"count": 2, "latest": ["2026/08/19/0900", "2026/08/10/1200"]},
        "work": {"count": 1, "latest": ["2026/08/19/0900"]},
    }


def test_two_writers_over_one_snapshot_both_keep_their_paths_and_the_menu_counts_both() -> None:
    storage = InMemoryStorage()
    seed = WriteBatch.open(storage)
    weave_slice_strands(seed, Slice(slice_id=SLICES[4], start="", tags=["garden", "Moving", "work"]))
    seed.commit("seed")
    first, second = WriteBatch.open(storage), WriteBatch.open(storage)
    weave_slice_strands(first, Slice(slice_id=SLICES[2], start="", tags=["Garden"]))
    weave_slice_strands(second, Slice(slice_id=SLICES[1], start="", tags=["garden", "moving"]))
    queue_drop_slice(second, SLICES[4])  # forgets the seed slice: its strands keep only what others add
    first.commit("first")
    second.commit("second, over the first's commit")
    view = storage.snapshot()
    woven = {"garden": ["2026/07/01/0800", "2026/08/10/1200"], "moving": ["2026/08/10/1200"]}
    assert read_all_strands(view) == woven
    assert read_menu(view) == menu_of(woven)
