"""strands_normalize.json: key normalisation, merge-first weave, merges, pruning, key order."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from core.clock import iso, parse_iso
from core.memory.catalog import strands as st
from core.memory.catalog.strands_file import strands_file
from tests.conformance.vectors import Case, shape, vectors

pytestmark = pytest.mark.conformance

V = vectors("strands_normalize.json")


@pytest.mark.parametrize("case", V.cases("normalize", shape("key", "input output")))
def test_normalize(case: Case) -> None:
    assert st.normalize_key(case["input"]) == case["output"]


@pytest.mark.parametrize("case", V.cases("find_matching", shape("match", "strands tag result")))
def test_find_matching(case: Case) -> None:
    assert st.find_matching(case["strands"], case["tag"]) == case["result"]


WEAVE = shape("weave", "strands_before tags slice_path results strands_after serialized_after")


@pytest.mark.parametrize("case", V.cases("weave", WEAVE))
def test_weave(case: Case) -> None:
    strands = {k: list(v) for k, v in case["strands_before"].items()}
    results = st.weave_tags(strands, case["tags"], case["slice_path"])
    assert [{"key": k, "created": c} for k, c in results] == case["results"]
    assert strands == case["strands_after"]
    assert list(strands) == list(case["strands_after"])
    assert st.render_strands(strands) == case["serialized_after"]


@pytest.mark.parametrize(
    "case", V.cases("merges", shape("merges", "strands_before merges applied strands_after"))
)
def test_merges(case: Case) -> None:
    proposals = [st.MergeProposal(m["from"], m["to"]) for m in case["merges"]]
    after, applied = st.apply_merges(case["strands_before"], proposals)
    assert applied == case["applied"]
    assert after == case["strands_after"]
    assert st.render_strands(after) == st.render_strands(case["strands_after"])


@pytest.mark.parametrize(
    "case", V.cases("prune", shape("prune", "strands_before now_iso pruned strands_after", "opts"))
)
def test_prune(case: Case) -> None:
    """A case's `opts` override the group's `defaults` (minSlices, maxSliceAgeMs/maxSliceAgeDays)."""
    defaults = case.shared("defaults")
    opts = case.get("opts") or {}
    unknown = set(opts) - {"minSlices", "maxSliceAgeMs", "maxSliceAgeDays"}
    assert not unknown, f"{case.where}: opts this test does not know: {sorted(unknown)}"
    days = opts.get("maxSliceAgeDays", defaults["maxSliceAgeDays"])
    after, pruned = st.prune(
        case["strands_before"],
        parse_iso(case["now_iso"]),
        min_slices=opts.get("minSlices", defaults["minSlices"]),
        max_age_ms=opts.get("maxSliceAgeMs", days * st.DAY_MS),
    )
    assert pruned == case["pruned"]
    assert after == case["strands_after"]


@pytest.mark.parametrize("case", V.cases("slice_path_to_ms", shape("path", "path ms", "iso")))
def test_slice_path_to_ms(case: Case) -> None:
    ms = st.slice_path_to_ms(case["path"])
    assert ms == case["ms"]
    if ms is not None and "iso" in case:
        assert iso(datetime.fromtimestamp(ms / 1000, UTC)) == case["iso"]


@pytest.mark.parametrize("example", V.value("serialize_example"))
def test_serialize_example_round_trips(example: Case) -> None:
    text = example.data
    assert st.render_strands(st.parse_strands(text)[0]) == text
    assert strands_file(text).text == text


@pytest.mark.parametrize(
    "case",
    V.cases(
        "integer_like_keys", shape("keys", "strands_before tags_woven_in_order slice_path serialized_after")
    ),
)
def test_integer_like_keys_come_first(case: Case) -> None:
    strands = {k: list(v) for k, v in case["strands_before"].items()}
    st.weave_tags(strands, case["tags_woven_in_order"], case["slice_path"])
    assert st.render_strands(strands) == case["serialized_after"]
