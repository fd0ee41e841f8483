"""agent.md entries: parameters, statuses, reports, reading entries back, idempotent appends."""

from __future__ import annotations

import pytest

from core.memory.slice.agent_md import (
    Cognition,
    DeepReport,
    Invocation,
    Step,
    ToolCall,
    agent_turn_content,
    cognition_for,
    format_params,
    render_cognition,
    render_reports,
    tool_line,
)

pytestmark = pytest.mark.unit


def test_params() -> None:
    assert format_params(None) == ""
    assert format_params("plain") == "plain"
    assert format_params([1, "a"]) == "1,a"
    many = {f"k{i}": i for i in range(7)}
    assert format_params(many) == "k0: 0, k1: 1, k2: 2, k3: 3, k4: 4"
    assert format_params({"x": 2.0, "y": None, "z": {"a": [1, "é"]}}) == 'x: 2, y: null, z: {"a":[1,"é"]}'
    assert format_params({"q": "😀" * 41}) == 'q: "' + "😀" * 40 + '…"'


def test_statuses() -> None:
    assert tool_line(ToolCall("recall", {"query": "x"}, "ok")) == '- `recall`(query: "x") → ok'
    assert tool_line(ToolCall("t", None, "error", {"code": 1})) == "- `t`() → error: unknown error"
    assert tool_line(ToolCall("t", None, "error", "e" * 300)) == "- `t`() → error: " + "e" * 200
    assert tool_line(ToolCall("t")) == "- `t`() → ?"


def test_reasoning_paragraphs_and_blank_steps() -> None:
    body = render_cognition(
        Cognition([Invocation([Step(["  a\n\n\n", "b  "]), Step(["   "])]), Invocation()])
    )
    assert body == "\n### Thinking\na\nb\n\n"


def test_reports_keep_only_substance_and_cut_long_text() -> None:
    assert render_reports([DeepReport("q", "  ", "")]) == ""
    text = render_reports([DeepReport("q", "A" * 2500, "R" * 1500)])
    assert text == "\n### Reasoning fragments\n\n**Q**: q\n\n" + "A" * 2000 + (
        "\n\n<reasoning>\n" + "R" * 1000 + "\n</reasoning>\n"
    )


def test_cognition_for_matches_whole_ids() -> None:
    md = "## Cognition abc — t1\n\n### Thinking\none\n\n## Cognition abcd — t2\n\n### Thinking\ntwo\n"
    assert cognition_for(md, "abc") == "### Thinking\none"
    assert cognition_for(md, "abcd") == "### Thinking\ntwo"
    assert cognition_for(md, "ab") is None


def test_agent_turn_content() -> None:
    assert agent_turn_content("stop", "") == ""
    assert agent_turn_content("length", "half") == "[partial] half"
    assert agent_turn_content("error", "") is None
