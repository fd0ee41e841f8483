"""The evolution agent's prompt pieces and read tools (no model involved)."""

from __future__ import annotations

import pytest

from core.agent.evolution.card_prompt import CardView, build_prompt, compress_turns
from core.agent.evolution.read_tools import READ_CAP, progress_label, read_tools
from core.llm.tools import Tool
from core.llm.types import ToolCall
from core.memory.card.timing import CardTimeFlags
from core.memory.paths import CARD, agent_md, core_md
from core.memory.slice.model import Turn
from core.storage.base import WriteBatch
from tests.fakes.evolution import CLOSED, card_text, memory
from tests.fakes.slices import slice_text

pytestmark = pytest.mark.unit


def turns(n: int, size: int = 10) -> list[Turn]:
    return [
        Turn(f"t{i}", "2026-08-11T10:15:00.000Z", "user" if i % 2 == 0 else "agent", f"{i}:" + "x" * size)
        for i in range(n)
    ]


def test_compress_keeps_short_conversations_whole() -> None:
    text = compress_turns(turns(3))
    assert text.split("\n\n") == [
        "**user** (turn t0): 0:xxxxxxxxxx",
        "**agent** (turn t1): 1:xxxxxxxxxx",
        "**user** (turn t2): 2:xxxxxxxxxx",
    ]


def test_compress_long_conversations() -> None:
    text = compress_turns(turns(30, size=2000))
    assert text.startswith("**user** (turn t0): 0:xxx")
    assert "\n\n… (13 turns left out; read_slice shows them) …\n\n**user** (turn t14):" in text
    assert "(turn t13)" not in text and text.endswith("x …"), "each turn is cut at 600 chars"
    assert len(text) <= 12_000
    assert len(compress_turns(turns(17, size=2000))) <= 12_000


def test_prompt_sections_in_order() -> None:
    prompt = build_prompt(
        signal="self_reflection",
        slice_id=CLOSED,
        turns=[],
        tags=[],
        focus_hint="",
        card=CardView("# Previously On\n"),
        flags=CardTimeFlags("2026-08-11", (), ()),
        timezone="UTC",
    )
    order = ["## Time", "## Why this pass runs", "## The card", "## The conversation"]
    assert [prompt.index(h) for h in order] == sorted(prompt.index(h) for h in order)
    assert "Signal: self_reflection. A periodic review" in prompt
    assert "(no turns were passed; use read_slice if you need them)" in prompt
    assert "Now items 7 or more days old" not in prompt


def run(tools: list[Tool], name: str, **args: object) -> str:
    tool = next(t for t in tools if t.spec.name == name)
    return tool.run(ToolCall("c1", name, dict(args))).content


def test_read_tools() -> None:
    long = slice_text("2026-08-01-0900", [("user", "y" * 9000), ("agent", "z" * 9000)])
    storage = memory(card_text(identity=["Name: Mara"]), {str(core_md("2026-08-01-0900")): long})
    storage.files[agent_md(CLOSED)] = "# Agent timeline\n\nthinking…\n"
    tools = read_tools(WriteBatch.open(storage))
    assert run(tools, "read_slice", slice_id=CLOSED, last=1).endswith("Noted. Want a reminder schedule?")
    assert "I signed up for the Berlin half marathon" in run(tools, "read_slice", slice_id=CLOSED)
    assert run(tools, "read_slice", slice_id="2026-01-01-0000") == "(slice not found: 2026-01-01-0000)"
    assert run(tools, "read_slice", slice_id="yesterday").startswith("ERROR: Invalid slice id")
    capped = run(tools, "read_slice", slice_id="2026-08-01-0900", last=0)
    assert capped.startswith("(the first ") and len(capped) < READ_CAP + 200
    assert run(tools, "read_previously") == storage.files[CARD]
    assert run(tools, "read_previously", slice_id=CLOSED) == f"(no card snapshot for {CLOSED})"
    assert run(tools, "read_agent_timeline", slice_id=CLOSED) == "# Agent timeline\n\nthinking…\n"


def test_progress_labels() -> None:
    assert progress_label("read_slice", {"slice_id": CLOSED}) == f"Reading slice {CLOSED}"
    assert progress_label("promote_now_to_past", {}) == "Moving a Now item to Past"
    assert progress_label("mystery", {}) == "Running mystery"
