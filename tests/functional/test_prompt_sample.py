"""The prompt and the tools on the bundled sample memory: every layer is there, nothing breaks."""

from __future__ import annotations

import pytest

from core.agent.main_tools import main_tools
from core.agent.prompt import build_system_prompt
from core.agent.tool_context import ToolContext
from core.clock import FixedClock
from core.llm.types import ToolCall
from core.memory import paths
from core.memory.catalog.weave import list_slice_ids
from core.memory.config import load_config
from core.memory.slice.model import parse_core_md
from core.storage.local import LocalStorage
from tests.conftest import SAMPLE_ROOT

pytestmark = pytest.mark.functional


def test_the_sample_memory() -> None:
    view = LocalStorage(SAMPLE_ROOT).snapshot()
    newest = list_slice_ids(view)[-1]
    current = parse_core_md(view.read(paths.core_md(newest)) or "")
    config = load_config(view.read(paths.CONFIG_JSON))
    text = build_system_prompt(view, current, card_text=None, config=config, timezone="UTC", demo=True)
    for heading in ("## Who you're assisting", "## The user card", "## This slice", "## Timeline (recent)",
                    "## Memory topics", "## Demo mode (read-only)"):  # fmt: skip
        assert heading in text, heading
    assert f"**{newest}**" not in text, "the current slice is never in its own brief"
    assert len(text) < 20_000

    ctx = ToolContext(
        view=view, clock=FixedClock.at(current.start), slice_id=newest, timezone=current.timezone
    )
    for tool in main_tools(ctx):
        args = {"query": "family"} if tool.spec.name == "recall" else {}
        if tool.spec.name in ("readSliceSummary", "readSlice", "readAgentTimeline"):
            args = {"sliceId": newest}
        if tool.spec.name in ("readMemoryFile", "writeMemoryFile", "thinkDeep"):
            continue
        result = tool.run(ToolCall("c", tool.spec.name, args))
        assert not result.is_error, (tool.spec.name, result.content)
