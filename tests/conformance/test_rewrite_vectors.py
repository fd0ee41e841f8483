"""backfill_rewrite.json and flush.json (`core_md_after`, plus the body validation)."""

from __future__ import annotations

import pytest

from core.errors import InvalidInput
from core.memory import matter
from core.memory.core_edits import backfill_rewrite, flush_core_md, parse_flush_request
from tests.conftest import load_vectors

BACKFILL = load_vectors("backfill_rewrite.json")
FLUSH = load_vectors("flush.json")
FLUSH_NOW = "2026-07-10T14:31:05.123Z"  # the clock the description gives

pytestmark = pytest.mark.conformance


@pytest.mark.parametrize("case", BACKFILL["cases"], ids=[str(i) for i in range(len(BACKFILL["cases"]))])
def test_backfill_rewrite(case: dict) -> None:
    after = matter.load_text(case["after"])
    text, moved = backfill_rewrite(
        case["before"], after["focus"], after["summary"], "2026-08-12T00:00:00.000Z"
    )
    assert text == case["after"]
    assert moved is None


@pytest.mark.parametrize("case", FLUSH["cases"], ids=[c["name"] for c in FLUSH["cases"]])
def test_flush(case: dict) -> None:
    if case["status"] != 200:
        with pytest.raises(InvalidInput, match="Invalid request body"):
            parse_flush_request(case["request_body"])
        assert case["core_md_after"] is None
        return
    req = parse_flush_request(case["request_body"])
    assert (
        flush_core_md(case["existing_core_md"], req.slice_id, req.turns, FLUSH_NOW) == case["core_md_after"]
    )


def test_flush_limits() -> None:
    limits = FLUSH["limits"]
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
