"""`CatalogEntry`: tolerant reading, byte-exact writing back, and the spread refresh's key order."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from core.memory.catalog.entry import KEY_ORDER, CatalogEntry, spread

pytestmark = pytest.mark.unit

SID = "2026-08-11-1115"
_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda kids: st.lists(kids, max_size=3) | st.dictionaries(st.text(max_size=5), kids, max_size=3),
    max_leaves=8,
)
_objects = st.dictionaries(
    st.sampled_from([*KEY_ORDER, "extra", "x"]) | st.text(max_size=6), _json, max_size=10
)


@given(_objects)
def test_any_stored_object_with_an_id_is_written_back_unchanged(obj: dict[str, Any]) -> None:
    stored = {"id": SID, **{k: v for k, v in obj.items() if k != "id"}}
    entry = CatalogEntry.from_json(stored)
    assert entry is not None
    out = entry.to_json()
    assert json.dumps(out) == json.dumps(stored)  # same keys, same order, same odd values
    # the typed view never raises on odd values: text reads as text, lists as lists of text
    assert isinstance(entry.focus, str) and all(isinstance(t, str) for t in entry.tags)
    assert entry.turn_count is None or type(entry.turn_count) is int


@pytest.mark.parametrize(
    "bad", [{}, {"id": "2026-08-11"}, {"id": 20260811}, {"id": "２０２６-08-11-1115"}, [], "x", None]
)
def test_an_object_without_a_slice_id_is_no_entry(bad: object) -> None:
    assert CatalogEntry.from_json(bad) is None


def test_assigned_fields_replace_in_place_and_new_ones_append() -> None:
    stored = {"id": SID, "strands": "odd", "focus": 5, "mine": [1]}
    entry = CatalogEntry.from_json(stored)
    assert entry is not None
    entry.strands = []  # assigned, even to what it read as: written
    entry.tags.append("a")  # changed in place: written
    entry.turn_count = 3
    assert list(entry.to_json().items()) == [
        ("id", SID),
        ("strands", []),
        ("focus", 5),
        ("mine", [1]),
        ("turn_count", 3),
        ("tags", ["a"]),
    ]
    assert stored == {"id": SID, "strands": "odd", "focus": 5, "mine": [1]}  # the source is not touched


def test_a_fresh_entry_is_in_key_order_with_optional_keys_only_when_set() -> None:
    bare = CatalogEntry(id=SID, date=SID[:10], start="s")
    assert list(bare.to_json()) == [
        "id", "date", "start", "status", "focus", "summary", "tags", "open_loops", "decisions", "strands",
        "needs_marking",
    ]  # fmt: skip
    full = CatalogEntry(id=SID, date="d", start="s", end="e", turn_count=0, tone="calm", problem="p")
    assert list(full.to_json())[:5] == ["id", "date", "start", "end", "turn_count"]
    assert list(full.to_json())[-1] == "problem" and full.to_json()["tone"] == "calm"


def test_spread_is_the_original_refresh() -> None:
    """`{...prior, ...fresh, strands: prior.strands, needs_marking: fresh is dry}`."""
    prior_json = {"id": SID, "focus": "old", "x": 1, "strands": ["s"], "needs_marking": False, "end": "e"}
    prior = CatalogEntry.from_json(prior_json)
    fresh = CatalogEntry(id=SID, date=SID[:10], start="st", turn_count=2, summary="", focus="")
    assert prior is not None
    fresh.needs_marking = fresh.dry
    want = {**prior_json, **fresh.to_json(), "strands": ["s"], "needs_marking": True}
    got = spread(prior, fresh).to_json()
    assert list(got.items()) == list(want.items())
