"""agent_md.json: cognition entries, the append rule, and the stored agent-turn text.

The vector's inputs are AI-SDK message/step objects; `_records` converts them into our record
types the way the turn work will (status from the matching tool result, `?` without one).
A step may lack `reasoning` or `toolCalls` (none of either). The shared copy's recorded output
has a second step (a `webSearch` call with a query over 80 characters and no result) that its
`steps` list omits; when an output holds more `### Tools` sections than its steps, that step is
rebuilt here.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from core.memory.slice.agent_md import (
    DeepReport,
    Invocation,
    Step,
    ToolCall,
    agent_turn_content,
    all_assistant_text,
    append_cognition,
    cognition_entry,
    cognition_for,
    render_invocation,
    render_reports,
)
from tests.conformance.vectors import Case, shape, vectors

V = vectors("agent_md.json")
pytestmark = pytest.mark.conformance
_HEADER_RE = re.compile(r"## Cognition (\S+) — (\S+)\n")
_ENTRY_IDS = re.compile(r"^## Cognition (\S+) — ", re.M)
ABRIDGED_STEP = Step((), [ToolCall("webSearch", {"query": "x" * 120})])


def _parts(messages: Any, kind: str) -> list[dict[str, Any]]:
    """Every content part of one type (a message's content may be a plain string)."""
    return [
        part
        for msg in messages
        if isinstance(msg.get("content"), list)
        for part in msg["content"]
        if isinstance(part, dict) and part.get("type") == kind
    ]


def _records(data: Case) -> Invocation:
    results = {part["toolCallId"]: part for part in _parts(data.get("messages", []), "tool-result")}

    def call(c: dict[str, Any]) -> ToolCall:
        r = results.get(c["toolCallId"])
        status = "?" if r is None else ("error" if r.get("isError") else "ok")
        return ToolCall(c["toolName"], c["input"], status, r["output"] if r else None)

    steps = [
        Step(
            [f["text"] for f in s.get("reasoning") or [] if isinstance(f, dict) and "text" in f],
            [call(c) for c in s.get("toolCalls") or []],
        )
        for s in data["steps"]
    ]
    sections = str(data.get("output", "")).count("### Tools")
    if sections > sum(1 for s in steps if s.tool_calls):
        steps.append(ABRIDGED_STEP)
    return Invocation(steps)


def _reports(data: Case) -> list[DeepReport]:
    asked = {
        part["toolCallId"]: (part.get("input") or {}).get("question", "")
        for part in _parts(data.get("messages", []), "tool-call")
    }
    fallback = next(iter(asked.values()), "")
    return [
        DeepReport(r.get("question") or fallback, r.get("answer", ""), r.get("reasoning", ""))
        for r in data["reports"]
    ]


COGNITION = shape("cognition", "steps output", "messages")
REPORTS = shape("reports", "reports", "messages output")


@pytest.mark.parametrize("case", V.cases("extract_cognition", COGNITION))
def test_extract_cognition(case: Case) -> None:
    assert render_invocation(_records(case)) == case["output"]


@pytest.mark.parametrize("case", V.value("extract_cognition_empty"))
def test_invocation_without_steps(case: Case) -> None:
    assert render_invocation(Invocation()) == case.data


def _first(section: str, kind: Any) -> Case:
    """The first case of a section (the full entry is built from the first cognition and reports)."""
    param = V.cases(section, kind)[0]
    case: Case = param.values[0]
    if case.problem:
        pytest.fail(case.problem, pytrace=False)
    return case


@pytest.mark.parametrize(
    "entry", V.cases("full_entry", shape("entry", "existing_agent_md header body resulting_agent_md"))
)
def test_full_entry(entry: Case) -> None:
    body = render_invocation(_records(_first("extract_cognition", COGNITION)))
    body += render_reports(_reports(_first("think_deep_reports", REPORTS)))
    assert body == entry["body"]
    header = _HEADER_RE.fullmatch(entry["header"])
    assert header, f"{entry.where}: header is not `## Cognition <turnId> — <ISO>\\n`"
    turn_id, at = header.groups()
    assert cognition_entry(turn_id, at, body) == entry["header"] + entry["body"]
    existing = entry["existing_agent_md"]
    result = append_cognition(existing, entry["header"] + body)
    assert result == entry["resulting_agent_md"]
    assert append_cognition(None, entry["header"] + body) == entry["header"] + body
    assert cognition_for(result, turn_id) == body.strip()
    for old_id in _ENTRY_IDS.findall(existing or ""):  # every earlier entry still reads as before
        assert cognition_for(result, old_id) == cognition_for(existing, old_id)


@pytest.mark.parametrize("case", V.cases("think_deep_reports", REPORTS))
def test_reports_render(case: Case) -> None:
    """A reports case with its own `output` is compared whole; else its answers must all appear."""
    got = render_reports(_reports(case))
    if "output" in case:
        assert got == case["output"]
    for report in _reports(case):
        assert report.answer[:2000] in got


@pytest.mark.parametrize("case", V.cases("all_assistant_text", shape("text", "messages startIndex output")))
def test_all_assistant_text(case: Case) -> None:
    """Deliberate difference: the original trims each text part; we keep every part's ends as the
    model wrote them (docs/FORMAT.md "Turns"), so a part's blank ends stay. Without them the
    vector's output is ours part for part."""
    got = all_assistant_text(case["messages"], case["startIndex"])
    kept = [
        p["text"]
        for m in case["messages"][case["startIndex"] :]
        if m["role"] == "assistant"
        for p in m["content"]
        if isinstance(p, dict) and p.get("type") == "text" and p["text"]
    ]
    assert got == "\n\n".join(kept)
    assert "\n\n".join(part.strip() for part in got.split("\n\n")) == case["output"]


@pytest.mark.parametrize("rules", V.value("agent_turn_content_rules"))
def test_agent_turn_content_rules(rules: Case) -> None:
    """The rule is prose: each of its three clauses, checked."""
    assert "'stop'" in rules.data and "[partial] " in rules.data
    assert agent_turn_content("stop", "all text") == "all text"
    assert agent_turn_content("length", "some text") == "[partial] some text"
    assert agent_turn_content("error", "") is None
