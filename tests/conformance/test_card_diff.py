"""card_diff.json: the evolution diff payload and its change counters."""

from __future__ import annotations

from dataclasses import asdict

import pytest

from core.memory.card_diff import diff_card_lines, summarize_card_changes
from tests.conftest import load_vectors

pytestmark = pytest.mark.conformance

CASES = load_vectors("card_diff.json")["cases"]


@pytest.mark.parametrize("case", CASES, ids=[str(i) for i in range(len(CASES))])
def test_mutations(case: dict) -> None:
    got = [asdict(m) for m in diff_card_lines(case["before"], case["after"])]
    assert got == case["mutations"]


@pytest.mark.parametrize("case", CASES, ids=[str(i) for i in range(len(CASES))])
def test_summary(case: dict) -> None:
    assert asdict(summarize_card_changes(case["before"], case["after"])) == case["summary"]
