"""strands_normalize.json: key normalisation, merge-first weave, merges, pruning, key order."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from core.clock import iso, parse_iso
from core.memory import strands as st
from tests.conftest import load_vectors

pytestmark = pytest.mark.conformance

V = load_vectors("strands_normalize.json")


@pytest.mark.parametrize("case", V["normalize"], ids=[c["input"] for c in V["normalize"]])
def test_normalize(case: dict) -> None:
    assert st.normalize_key(case["input"]) == case["output"]


@pytest.mark.parametrize("case", V["find_matching"], ids=[c["tag"] for c in V["find_matching"]])
def test_find_matching(case: dict) -> None:
    assert st.find_matching(case["strands"], case["tag"]) == case["result"]


@pytest.mark.parametrize("case", V["weave"], ids=[c["name"] for c in V["weave"]])
def test_weave(case: dict) -> None:
    strands = {k: list(v) for k, v in case["strands_before"].items()}
    results = st.weave_tags(strands, case["tags"], case["slice_path"])
    assert [{"key": k, "created": c} for k, c in results] == case["results"]
    assert strands == case["strands_after"]
    assert list(strands) == list(case["strands_after"])
    assert st.render_strands(strands) == case["serialized_after"]


@pytest.mark.parametrize("case", V["merges"], ids=[c["name"] for c in V["merges"]])
def test_merges(case: dict) -> None:
    proposals = [st.MergeProposal(m["from"], m["to"]) for m in case["merges"]]
    after, applied = st.apply_merges(case["strands_before"], proposals)
    assert applied == case["applied"]
    assert after == case["strands_after"]
    assert st.render_strands(after) == st.render_strands(case["strands_after"])


@pytest.mark.parametrize("case", V["prune"]["cases"], ids=[c["name"] for c in V["prune"]["cases"]])
def test_prune(case: dict) -> None:
    defaults = V["prune"]["defaults"]
    after, pruned = st.prune(
        case["strands_before"],
        parse_iso(case["now_iso"]),
        min_slices=defaults["minSlices"],
        max_age_ms=case["opts"].get("maxSliceAgeMs", defaults["maxSliceAgeDays"] * st.DAY_MS),
    )
    assert pruned == case["pruned"]
    assert after == case["strands_after"]


@pytest.mark.parametrize("case", V["slice_path_to_ms"], ids=[c["path"] for c in V["slice_path_to_ms"]])
def test_slice_path_to_ms(case: dict) -> None:
    ms = st.slice_path_to_ms(case["path"])
    assert ms == case["ms"]
    if ms is not None:
        assert iso(datetime.fromtimestamp(ms / 1000, UTC)) == case["iso"]


def test_serialize_example_round_trips() -> None:
    text = V["serialize_example"]
    assert st.render_strands(st.load_strands(text)) == text


def test_integer_like_keys_come_first() -> None:
    case = V["integer_like_keys"]
    strands = {k: list(v) for k, v in case["strands_before"].items()}
    st.weave_tags(strands, case["tags_woven_in_order"], case["slice_path"])
    assert st.render_strands(strands) == case["serialized_after"]
