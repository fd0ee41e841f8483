"""A long slice's agent.md at the size cap: the next turn's cognition goes to `agent-2.md`,
the slice view reads it from there, and the full first part is kept byte for byte."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.clock import FixedClock
from core.memory.slice.agent_parts import part_path
from core.memory.slice.view import read_slice_detail
from core.storage.local import LocalStorage
from core.storage.paths import MAX_FILE_BYTES
from tests.fakes.fake_model_server import FakeModelServer, Reply, ToolCall
from tests.functional.turn_support import make_harness

pytestmark = pytest.mark.functional
FIRST = "2026-08-11-1115"


def test_a_turn_on_a_full_log_writes_its_cognition_to_the_next_part(
    tmp_path: Path, fake_models: FakeModelServer
) -> None:
    clock = FixedClock.at("2026-08-11T11:15:00.000Z")
    h = make_harness(LocalStorage(tmp_path), clock, fake_models)
    assert h.brain is not None
    h.brain.main("Hello.", Reply(tool_calls=[ToolCall("readSlice", {"sliceId": FIRST})]), "Found it.")
    assert h.turn("Hi.").status == "done"
    first = tmp_path / str(part_path(FIRST, 1))
    full = "## Cognition old1 — 2026-08-11T11:15:00.000Z\n\n### Thinking\n" + "x" * (MAX_FILE_BYTES - 100)
    first.write_text(full, encoding="utf-8")
    clock.advance(minutes=1)
    state = h.turn("What did I say?")
    assert state.status == "done", state.events
    assert first.read_text(encoding="utf-8") == full
    second = (tmp_path / str(part_path(FIRST, 2))).read_text(encoding="utf-8")
    assert second.startswith("## Cognition t00002 — ") and "`readSlice`" in second
    detail = read_slice_detail(h.storage.snapshot(), FIRST)
    assert "`readSlice`" in detail.cognition["t00002"]
