"""A message larger than one slice holds is cut across slices on import, as live chat cuts an
oversized reply: nothing is refused, and reading the pieces in order gives the words byte for byte."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from core.clock import FixedClock
from core.imports.run import apply_plan, preview
from core.imports.source import ExportFile
from core.imports.timeslice import SLICE_BYTE_BUDGET
from core.memory import paths
from core.memory.slice.model import parse_core_md
from core.storage.memory import InMemoryStorage
from tests.fakes.exports import T0, ChatGPTConversation, write_zip

pytestmark = pytest.mark.functional
CLOCK = FixedClock.at("2026-08-11T11:15:00.000Z")
_RNG = random.Random(29)  # varied words: an export zip of one repeated line would look like a bomb
_ENDS = ("", "\n", " 京都", " 😀")
BIG = "  " + " ".join(f"{_RNG.getrandbits(40):x}{_RNG.choice(_ENDS)}" for _ in range(SLICE_BYTE_BUDGET // 9))
BIG += " the end\n"


def _import(export: ExportFile) -> InMemoryStorage:
    storage = InMemoryStorage()
    apply_plan(export, preview(export, storage), storage, CLOCK)
    return storage


def _turns(storage: InMemoryStorage) -> list[tuple[str, str, str]]:
    cores = sorted((p, t) for p, t in storage.files.items() if p.name == "core.md")
    for _, text in cores:
        assert len(text.encode()) <= paths.MAX_FILE_BYTES
    return [(t.turn_id or "", t.role, t.content) for _, text in cores for t in parse_core_md(text).turns]


def _joined(turns: list[tuple[str, str, str]], role: str) -> str:
    return "".join(text for _, r, text in turns if r == role)


def test_a_chatgpt_message_over_a_slice_is_cut_across_slices(tmp_path: Path) -> None:
    conv = ChatGPTConversation("c1", "Big paste")
    conv.say("user", BIG, T0)
    conv.say("assistant", "short answer", T0)
    export = ExportFile(write_zip(tmp_path / "chatgpt.zip", [conv.export()]), "chatgpt")
    turns = _turns(_import(export))
    assert len(turns) >= 3
    assert _joined(turns, "user") == BIG and _joined(turns, "agent") == "short answer"
    assert len({turn_id for turn_id, _, _ in turns}) == 1
    again = _import(export)  # a second import of the same export writes the same slices
    assert _turns(again) == turns


def test_a_claude_message_over_a_slice_is_cut_and_a_reimport_adds_nothing(tmp_path: Path) -> None:
    def msg(uuid: str, sender: str, text: str) -> dict[str, object]:
        return {
            "uuid": uuid,
            "sender": sender,
            "created_at": "2024-01-01T00:00:00Z",
            "content": [{"type": "text", "text": text}],
        }

    rows = [msg("m1", "human", "hi"), msg("m2", "assistant", BIG)]
    claude = [{"uuid": "c1", "name": "T", "chat_messages": rows}]
    path = tmp_path / "conversations.json"
    path.write_text(json.dumps(claude), encoding="utf-8")
    export = ExportFile(path, "claude")
    storage = _import(export)
    turns = _turns(storage)
    assert _joined(turns, "user") == "hi" and _joined(turns, "agent") == BIG
    before = dict(storage.files)
    plan = preview(export, storage)
    assert {s.action for s in plan.slices} == {"unchanged"}
    apply_plan(export, plan, storage, CLOCK)
    assert storage.files == before
