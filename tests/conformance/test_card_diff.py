"""card_diff.json: the evolution diff payload and its change counters."""

from __future__ import annotations

from dataclasses import asdict

import pytest

from core.memory.card.diff import diff_card_lines, summarize_card_changes
from tests.conformance.vectors import Case, shape, vectors

pytestmark = pytest.mark.conformance

CASES = vectors("card_diff.json").cases("cases", shape("diff", "before after mutations summary"))


@pytest.mark.parametrize("case", CASES)
def test_mutations(case: Case) -> None:
    got = [asdict(m) for m in diff_card_lines(case["before"], case["after"])]
    assert got == case["mutations"]


@pytest.mark.parametrize("case", CASES)
def test_summary(case: Case) -> None:
    assert asdict(summarize_card_changes(case["before"], case["after"])) == case["summary"]
