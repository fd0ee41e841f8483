"""The MCP surface for agents that work, through the SDK's own client (in-memory transport)."""

from __future__ import annotations

from typing import Any

import anyio
import pytest
from mcp import Client

from core.agent.outside import OutsideAccess
from core.clock import FixedClock, SequentialIds, parse_iso
from core.memory.paths import core_md
from core.memory.slice.model import Slice, Turn, render_core_md
from functions.mcp.server import build_server
from tests.fakes.slices import SAMPLE, storage_with
from tests.fakes.texts import LONG_LINE

pytestmark = pytest.mark.functional
SID = "2026-08-11-0900"
TEXT = "## Turn 9 — x (agent)\n" + LONG_LINE + "\n  "


def memory() -> OutsideAccess:
    storage = storage_with(SAMPLE)
    s = Slice(slice_id=SID, status="closed", start="2026-08-11T09:00:00.000Z")
    s.turns = [Turn(turn_id="t1", timestamp="2026-08-11T09:00:05.000Z", role="user", content=TEXT)]
    storage.files[core_md(SID)] = render_core_md(s)  # type: ignore[attr-defined]
    return OutsideAccess(
        storage=storage, clock=FixedClock(parse_iso("2026-08-12T00:00:00Z")), ids=SequentialIds()
    )


def text(result: Any) -> str:
    return "\n".join(block.text for block in result.content)


async def _checks(c: Client) -> dict[str, Any]:
    out: dict[str, Any] = {"tools": [t.name for t in (await c.list_tools()).tools]}
    out["briefing"] = text(await c.call_tool("briefing", {}))
    out["prompts"] = [p.name for p in (await c.list_prompts()).prompts]
    prompt = await c.get_prompt("previously_on")
    out["prompt"] = prompt.messages[0].content.text  # type: ignore[union-attr]
    parts, offset = [], 0
    while True:
        got = await c.call_tool(
            "read_slice", {"slice_id": SID, "range": {"type": "chars", "offset": offset, "length": 60000}}
        )
        assert not got.is_error, text(got)
        part = text(got) if got.content else ""
        parts.append(part)
        offset += len(part)
        if len(part) < 60000:
            break
    out["whole"] = "".join(parts)
    return out


def test_briefing_prompt_and_exact_reads_through_the_sdk_client() -> None:
    async def main() -> dict[str, Any]:
        async with Client(build_server(memory())) as c:
            return await _checks(c)

    out = anyio.run(main)
    assert "briefing" in out["tools"]
    assert out["briefing"].startswith("Previously on…") and f"slice {SID}" in out["briefing"]
    assert out["prompts"] == ["previously_on"] and "Previously on…" in out["prompt"]
    head = "## Turn t1 — 2026-08-11T09:00:05.000Z (user)\n\n"
    whole = out["whole"]
    assert whole[whole.index(head) + len(head) : -1] == TEXT
