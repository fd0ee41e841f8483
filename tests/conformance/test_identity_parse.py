"""identity_parse.json: the card's Identity → the "Who you're assisting" profile."""

from __future__ import annotations

import pytest

from core.memory.identity import parse_identity
from tests.conftest import load_vectors

pytestmark = pytest.mark.conformance

CASES = load_vectors("identity_parse.json")["cases"]


@pytest.mark.parametrize("case", CASES, ids=[str(i) for i in range(len(CASES))])
def test_identity_parse(case: dict) -> None:
    got = parse_identity(case["input"])
    assert (got.to_dict() if got else None) == case["output"]
