"""recall_filters.json: the recall report's post-processing, the paginated global timeline,
the forced report step, tolerant numbers, failure triage, and the ref-conflict test.

Not here: `effort_injection` (test_effort_injection.py), `should_run_card_evolution`
(test_card_evolution_vectors.py), and the web helpers `private_host` / `extract_text` / `token_budget`
(the product has no web tools and no token budget).
"""

from __future__ import annotations

import pytest
from github import GithubException

from core.agent.recall import filters as f
from core.agent.timeline_brief import paginate_entries, paginate_markdown
from core.memory.catalog.entry import CatalogEntry
from core.storage.github_errors import is_conflict
from tests.conformance.vectors import Case, shape, vectors

V = vectors("recall_filters.json")
IN_OUT = shape("input/output", "input output")
pytestmark = pytest.mark.conformance
REPORT = "recallReport"


@pytest.mark.parametrize("case", V.cases("normalize_recommended_reads", IN_OUT))
def test_normalize_recommended_reads(case: Case) -> None:
    assert f.normalize_recommended_reads(case["input"]) == case["output"]


@pytest.mark.parametrize("case", V.cases("exclude_current", shape("exclude", "items current output")))
def test_exclude_current(case: Case) -> None:
    """Every item about the current slice goes, the rest stay in order. A case may list only the
    dropped items in `items` (the kept ones only in `output`): those are added once, at the end."""
    items = list(case["items"])
    items += [item for item in case["output"] if item not in items]
    assert f.exclude_current(items, case["current"]) == case["output"]


def test_exclude_current_keeps_the_rest_in_order() -> None:
    """The current slice anywhere in the list (several times) is dropped; no current id keeps all."""
    cur, a, b = "2026-08-17-0515", "2026-08-10-0900", "2026-08-12-2000"
    items = [{"slice_id": a}, {"slice_id": cur, "reason": "this talk"}, {"slice_id": b}, {"slice_id": cur}]
    assert f.exclude_current(items, cur) == [{"slice_id": a}, {"slice_id": b}]
    assert f.exclude_current(items, None) == items == f.exclude_current(items, "")


@pytest.mark.parametrize(
    "case", V.cases("filter_known", shape("filter", "items valid output", "output_when_catalog_unreadable"))
)
def test_filter_known(case: Case) -> None:
    strays = [{"slice_id": "2026-01-01-0000"}]
    assert f.filter_known([*case["items"], *strays], set(case["valid"])) == case["output"]
    unreadable = case.get("output_when_catalog_unreadable", case["items"])
    assert f.filter_known(unreadable, None) == unreadable


def _entry(n: int) -> CatalogEntry | None:
    day = f"2026-08-0{n + 1}"
    raw = {
        "id": f"{day}-0900",
        "date": day,
        "status": "closed",
        "focus": f"f{n}",
        "summary": "",
        "tags": [],
        "turn_count": 2,
    }
    return CatalogEntry.from_json(raw)


@pytest.mark.parametrize("want", V.value("paginate_entries"))
def test_paginate_entries(want: Case) -> None:
    entries = [e for n in range(3) if (e := _entry(n))]
    # The original's labels are Chinese ("2轮").
    assert paginate_entries(entries, 2, labels="zh") == want.data


@pytest.mark.parametrize("want", V.value("paginate_entries_empty"))
def test_paginate_entries_empty(want: Case) -> None:
    assert paginate_entries([], 2) == want.data


@pytest.mark.parametrize("want", V.value("paginate_markdown"))
def test_paginate_markdown(want: Case) -> None:
    md = "# Timeline\n\n## 2026-08\n### 08-02\n- **2026-08-02-0900** b\n\n"
    md += "### 08-01\n- **2026-08-01-0900** a\n"
    assert paginate_markdown(md, 1) == want.data


@pytest.mark.parametrize(
    "case", V.cases("prepare_recall_step", shape("step", "steps maxSteps output", "reported"))
)
def test_prepare_recall_step(case: Case) -> None:
    got = f.recall_step_choice(case["steps"], case["maxSteps"], bool(case.get("reported")), REPORT)
    want = case["output"]
    if want is not None:  # the report tool is named by each implementation; the structure is pinned
        choice = want["toolChoice"]
        assert set(choice) == {"type", "toolName"} and choice["type"] == "tool", want
        want = {**want, "toolChoice": {**choice, "toolName": REPORT}}
    assert got == want


def test_the_forced_step_is_a_structured_tool_choice() -> None:
    assert f.recall_step_choice(7, 8, False, REPORT) == {"toolChoice": {"type": "tool", "toolName": REPORT}}
    assert (
        f.recall_step_choice(7, 8, True, REPORT) is None and f.recall_step_choice(5, 8, False, REPORT) is None
    )


def test_the_last_step_is_forced_when_no_report_came() -> None:
    assert f.recall_step_override(7, 8, False, REPORT) == REPORT
    assert f.first_forced_step(8, REPORT) == 8


@pytest.mark.parametrize("case", V.cases("tolerant_bounded01", IN_OUT))
def test_tolerant_bounded01(case: Case) -> None:
    assert f.tolerant_bounded01(case["input"]) == pytest.approx(case["output"])


@pytest.mark.parametrize("case", V.cases("tolerant_number_array", IN_OUT))
def test_tolerant_number_array(case: Case) -> None:
    assert f.tolerant_number_array(case["input"]) == case["output"]


@pytest.mark.parametrize("case", V.cases("transient", shape("message", "message transient triage")))
def test_transient_triage(case: Case) -> None:
    assert f.is_transient(case["message"]) is case["transient"]
    assert f.triage(case["message"]) == case["triage"]


@pytest.mark.parametrize("case", V.cases("ref_conflict", shape("error", "error conflict")))
def test_ref_conflict(case: Case) -> None:
    """`error` is the thrown object: a status, a message, both or neither (or a bare message string)."""
    err = case["error"]
    if not isinstance(err, dict):
        err = {"message": err}
    status = err.get("status")
    data = {"message": err["message"]} if err.get("message") is not None else {}
    exc = GithubException(status if isinstance(status, int) else 0, data, None)
    assert is_conflict(exc) is case["conflict"]


# The product has no web tools and no token budget: these helpers have no counterpart to test.
NOT_PORTED = ("private_host", "extract_text", "token_budget")


@pytest.mark.parametrize("section", [p for name in NOT_PORTED for p in V.value(name)])
def test_not_ported_sections_are_declared(section: Case) -> None:
    assert section.data, f"{section.where} is empty"
