"""identity_parse.json: the card's Identity → the "Who you're assisting" profile."""

from __future__ import annotations

import pytest

from core.memory.card.identity import parse_identity
from tests.conformance.vectors import Case, shape, vectors

pytestmark = pytest.mark.conformance

CASES = vectors("identity_parse.json").cases("cases", shape("identity", "input output"))


@pytest.mark.parametrize("case", CASES)
def test_identity_parse(case: Case) -> None:
    got = parse_identity(case["input"])
    assert (got.to_dict() if got else None) == case["output"]
