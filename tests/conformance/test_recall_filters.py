"""recall_filters.json: the recall report's post-processing, the paginated global timeline,
the forced report step, tolerant numbers, failure triage, and the ref-conflict test.

Not here: `effort_injection` (test_effort_injection.py), `should_run_card_evolution`
(test_card_evolution_vectors.py), and the web helpers `private_host` / `extract_text` / `token_budget`
(the product has no web tools and no token budget).
"""

from __future__ import annotations

from typing import Any

import pytest
from github import GithubException

from core.agent import recall_filters as f
from core.agent.timeline_brief import paginate_entries, paginate_markdown
from core.storage.github_errors import is_conflict
from tests.conftest import load_vectors

V = load_vectors("recall_filters.json")
pytestmark = pytest.mark.conformance
REPORT = "recallReport"


@pytest.mark.parametrize("case", V["normalize_recommended_reads"])
def test_normalize_recommended_reads(case: dict[str, Any]) -> None:
    assert f.normalize_recommended_reads(case["input"]) == case["output"]


def test_exclude_current() -> None:
    case = V["exclude_current"]
    items = [*case["items"], *case["output"]]
    assert f.exclude_current(items, case["current"]) == case["output"]


def test_filter_known() -> None:
    case = V["filter_known"]
    strays = [{"slice_id": "2026-01-01-0000"}]
    assert f.filter_known([*case["items"], *strays], set(case["valid"])) == case["output"]
    unreadable = case["output_when_catalog_unreadable"]
    assert f.filter_known(unreadable, None) == unreadable


def _entry(n: int) -> dict[str, Any]:
    return {"id": f"2026-08-0{n + 1}-0900", "date": f"2026-08-0{n + 1}", "status": "closed",
            "focus": f"f{n}", "summary": "", "tags": [], "turn_count": 2}  # fmt: skip


def test_paginate_entries() -> None:
    entries = [_entry(n) for n in range(3)]
    # The original's labels are Chinese ("2轮").
    assert paginate_entries(entries, 2, labels="zh") == V["paginate_entries"]
    assert paginate_entries([], 2) == V["paginate_entries_empty"]


def test_paginate_markdown() -> None:
    md = "# Timeline\n\n## 2026-08\n### 08-02\n- **2026-08-02-0900** b\n\n"
    md += "### 08-01\n- **2026-08-01-0900** a\n"
    assert paginate_markdown(md, 1) == V["paginate_markdown"]


@pytest.mark.parametrize("case", V["prepare_recall_step"])
def test_prepare_recall_step(case: dict[str, Any]) -> None:
    got = f.recall_step_override(case["steps"], case["maxSteps"], bool(case.get("reported")), REPORT)
    assert got == case["output"]


def test_the_last_step_is_forced_when_no_report_came() -> None:
    assert f.recall_step_override(7, 8, False, REPORT) == REPORT
    assert f.first_forced_step(8, REPORT) == 8


@pytest.mark.parametrize("case", V["tolerant_bounded01"], ids=lambda c: repr(c["input"]))
def test_tolerant_bounded01(case: dict[str, Any]) -> None:
    assert f.tolerant_bounded01(case["input"]) == pytest.approx(case["output"])


@pytest.mark.parametrize("case", V["tolerant_number_array"])
def test_tolerant_number_array(case: dict[str, Any]) -> None:
    assert f.tolerant_number_array(case["input"]) == case["output"]


@pytest.mark.parametrize("case", V["transient"], ids=lambda c: c["message"])
def test_transient_triage(case: dict[str, Any]) -> None:
    assert f.is_transient(case["message"]) is case["transient"]
    assert f.triage(case["message"]) == case["triage"]


@pytest.mark.parametrize("case", V["ref_conflict"], ids=lambda c: c["error"]["message"])
def test_ref_conflict(case: dict[str, Any]) -> None:
    err = case["error"]
    exc = GithubException(err.get("status", 0), {"message": err["message"]}, None)
    assert is_conflict(exc) is case["conflict"]
