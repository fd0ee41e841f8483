"""backfill_rewrite.json and flush.json (`core_md_after`, plus the body validation)."""

from __future__ import annotations

import json

import pytest

from core.errors import InvalidInput
from core.memory.formats import matter
from core.memory.slice.core_edits import backfill_rewrite, flush_core_md, parse_flush_request
from tests.conformance.slice_shapes import assert_original_bytes
from tests.conformance.test_flush_vectors import FLUSH as FLUSH_CASE
from tests.conformance.test_flush_vectors import expected_status
from tests.conformance.vectors import Case, shape, vectors

BACKFILL = vectors("backfill_rewrite.json")
FLUSH = vectors("flush.json")
FLUSH_NOW = "2026-07-10T14:31:05.123Z"  # the clock the description gives

pytestmark = pytest.mark.conformance


@pytest.mark.parametrize("case", BACKFILL.cases("cases", shape("rewrite", "before after")))
def test_backfill_rewrite(case: Case) -> None:
    after = matter.load_text(case["after"])
    text, moved = backfill_rewrite(
        case["before"], after["focus"], after["summary"], "2026-08-12T00:00:00.000Z"
    )
    assert_original_bytes(text, case["after"])
    assert moved is None


@pytest.mark.parametrize("case", FLUSH.cases("cases", FLUSH_CASE))
def test_flush(case: Case) -> None:
    body = case["request_body"]
    if isinstance(body, str):  # raw request text: malformed JSON never reaches the validator
        try:
            body = json.loads(body)
        except ValueError:
            return
    if expected_status(case) != 200:
        with pytest.raises(InvalidInput, match="Invalid request body"):
            parse_flush_request(body)
        if case["status"] != 200:  # else the original wrote a header it could not read back
            assert case.get("core_md_after") is None
        return
    req = parse_flush_request(body)
    got = flush_core_md(case.get("existing_core_md"), req.slice_id, req.turns, FLUSH_NOW)
    assert_original_bytes(got, case["core_md_after"])


@pytest.mark.parametrize(
    "limits",
    FLUSH.cases(
        "limits", shape("limits", "turns_max content_max_chars roles", "turns_min timestamp_max_chars")
    ),
)
def test_flush_limits(limits: Case) -> None:
    turn = {"role": "user", "content": "x", "timestamp": "t"}
    body = {"sliceId": "2026-07-10-1430", "turns": [turn] * limits["turns_max"]}
    assert len(parse_flush_request(body).turns) == limits["turns_max"]
    for bad in (
        {**body, "turns": [turn] * (limits["turns_max"] + 1)},
        {**body, "turns": [{**turn, "content": "x" * (limits["content_max_chars"] + 1)}]},
        {**body, "turns": [{**turn, "role": "system"}]},
    ):
        with pytest.raises(InvalidInput):
            parse_flush_request(bad)
    assert set(limits["roles"]) == {"user", "agent"}
