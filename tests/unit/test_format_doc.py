"""The examples in docs/FORMAT.md are what the code writes."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.memory.formats.escape import escape_turn, unescape_turn
from core.memory.slice.agent_md import (
    CitedSource,
    Cognition,
    DeepReport,
    Invocation,
    Step,
    ToolCall,
    cognition_entry,
    render_cognition,
)
from core.memory.slice.appendix import explain_unplaceable
from core.memory.slice.model import parse_core_md, render_core_md

pytestmark = pytest.mark.unit
DOC = (Path(__file__).resolve().parents[2] / "docs" / "FORMAT.md").read_text(encoding="utf-8")


def _example(after_heading: str) -> str:
    section = DOC.split(f"\n## {after_heading}\n", 1)[1]
    return section.split("```markdown\n", 1)[1].split("\n```\n", 1)[0] + "\n"


def test_core_md_example_is_byte_exact() -> None:
    text = _example("core.md")
    assert render_core_md(parse_core_md(text)) == text
    assert explain_unplaceable(text) == []


def test_agent_md_example_is_what_we_write() -> None:
    step = Step(
        ["They want a venue; I should check what was said about the last offsite."],
        [
            ToolCall("recall", {"query": "offsite venue"}, "ok"),
            ToolCall(
                "readSlice",
                {"sliceId": "2026-06-02-0915", "range": {"type": "last", "count": 2}},
                "error",
                "File not found",
            ),
            ToolCall("webSearch", {"query": "lake house venues near Sintra"}, "ok"),
        ],
    )
    report = DeepReport(
        "Lake house or city hotel?",
        "The lake house, if the date works.",
        "Travel time is similar; the team asked for outdoors last time.",
    )
    source = CitedSource("Lake House Sintra: group bookings", "https://venues.example/sintra-lake-house")
    body = render_cognition(Cognition([Invocation([step])], [report], [source]))
    assert cognition_entry("mVhV2g", "2026-08-10T21:30:43.702Z", body) == _example("agent.md")


def test_escaped_turn_example_is_what_we_write() -> None:
    section = DOC.split("\n### Escaped turn text\n", 1)[1]
    example = section.split("```markdown\n", 1)[1].split("\n```\n", 1)[0]
    _header, stored = example.split("\n\n", 1)
    message = "Explain the ## Turn syntax please, and keep this tail\n"
    assert escape_turn(message) == stored and unescape_turn(stored) == message
