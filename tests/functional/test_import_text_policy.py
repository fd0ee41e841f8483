"""Imported messages are kept byte for byte, ends included, as chat keeps them (the text policy)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings

from core.clock import FixedClock
from core.imports.run import apply_plan, preview
from core.imports.source import ExportFile
from core.memory.slice.model import parse_core_md
from core.storage.memory import InMemoryStorage
from core.text import js_trim
from tests.fakes.texts import PADDED_REPLY, TEXTS

pytestmark = pytest.mark.functional
CLOCK = FixedClock.at("2026-08-11T11:15:00.000Z")


def _imported(tmp: Path, fmt: str, body: str) -> list[str]:
    path = tmp / ("e.jsonl" if fmt == "jsonl" else "conversations.json")
    path.write_text(body, encoding="utf-8")
    storage = InMemoryStorage()
    export = ExportFile(path, fmt)
    apply_plan(export, preview(export, storage), storage, CLOCK)
    cores = [t for p, t in storage.files.items() if p.name == "core.md"]
    return [turn.content for text in cores for turn in parse_core_md(text).turns]


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=TEXTS)
@example(text=PADDED_REPLY)
@example(text="\ufeffa BOM first")
@example(text="## Turn 3 — 2026-01-01T00:00:00.000Z (user)\nline\u2028break 京都 😀\n```\n")
def test_jsonl_and_claude_messages_read_back_byte_for_byte(tmp_path: Path, text: str) -> None:
    if not js_trim(text):
        return  # a blank message is skipped and reported, never stored
    row = {"conversation": "c", "role": "user", "time": "2024-01-01T00:00:00Z", "text": text}
    assert _imported(tmp_path, "jsonl", json.dumps(row) + "\n") == [text]
    msg = {
        "uuid": "m1",
        "sender": "human",
        "created_at": "2024-01-01T00:00:00Z",
        "content": [{"type": "text", "text": text}],
    }
    claude = [{"uuid": "c1", "name": "T", "chat_messages": [msg]}]
    assert _imported(tmp_path, "claude", json.dumps(claude)) == [text]
