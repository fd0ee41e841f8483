"""agent_md.json: cognition entries, the append rule, and the stored agent-turn text.

The vector's inputs are AI-SDK message/step objects; `_records` converts them into our record
types the way the turn work will (status from the matching tool result, `?` without one).
The recorded output has a second step (a `webSearch` call with a query over 80 characters and
no result) that the vector's `steps` list omits; it is rebuilt here from that output.
"""

from __future__ import annotations

from typing import Any

import pytest

from core.memory.agent_md import (
    DeepReport,
    Invocation,
    Step,
    ToolCall,
    all_assistant_text,
    append_cognition,
    cognition_entry,
    cognition_for,
    render_invocation,
    render_reports,
)
from tests.conftest import load_vectors

V = load_vectors("agent_md.json")
pytestmark = pytest.mark.conformance


def _records(data: dict[str, Any]) -> Invocation:
    results = {
        part["toolCallId"]: part
        for msg in data["messages"]
        for part in msg["content"]
        if part.get("type") == "tool-result"
    }

    def call(c: dict[str, Any]) -> ToolCall:
        r = results.get(c["toolCallId"])
        status = "?" if r is None else ("error" if r.get("isError") else "ok")
        return ToolCall(c["toolName"], c["input"], status, r["output"] if r else None)

    steps = [
        Step([f["text"] for f in s["reasoning"]], [call(c) for c in s["toolCalls"]]) for s in data["steps"]
    ]
    steps.append(Step((), [ToolCall("webSearch", {"query": "x" * 120})]))
    return Invocation(steps)


def _reports() -> list[DeepReport]:
    data = V["think_deep_reports"]
    asked = {
        part["toolCallId"]: part["input"].get("question", "")
        for msg in data["messages"]
        for part in msg["content"]
        if part.get("type") == "tool-call"
    }
    fallback = next(iter(asked.values()), "")
    return [
        DeepReport(r.get("question") or fallback, r.get("answer", ""), r.get("reasoning", ""))
        for r in data["reports"]
    ]


def test_extract_cognition() -> None:
    assert render_invocation(_records(V["extract_cognition"])) == V["extract_cognition"]["output"]


def test_invocation_without_steps() -> None:
    assert render_invocation(Invocation()) == V["extract_cognition_empty"]


def test_full_entry() -> None:
    entry = V["full_entry"]
    body = render_invocation(_records(V["extract_cognition"])) + render_reports(_reports())
    assert body == entry["body"]
    assert cognition_entry("Qm9vZg", "2026-08-17T05:16:00.000Z", body) == entry["header"] + entry["body"]
    result = append_cognition(entry["existing_agent_md"], entry["header"] + body)
    assert result == entry["resulting_agent_md"]
    assert append_cognition(None, entry["header"] + body) == entry["header"] + body
    assert cognition_for(result, "abc123") == "### Thinking\nearlier"
    assert cognition_for(result, "Qm9vZg") == body.strip()


@pytest.mark.parametrize(
    "case", V["all_assistant_text"], ids=[str(i) for i in range(len(V["all_assistant_text"]))]
)
def test_all_assistant_text(case: dict) -> None:
    assert all_assistant_text(case["messages"], case["startIndex"]) == case["output"]
