"""`previously notes`: list staged notes, accept one into the open conversation, decline another."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from core.clock import iso
from core.memory.paths import core_md
from core.memory.slice.model import parse_core_md
from core.memory.slice.staged_notes import StagedNote, note_path, render_note
from tests.functional.cli_env import run

pytestmark = pytest.mark.functional


def write(root: Path, rel: str, text: str) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def note(note_id: str, text: str) -> StagedNote:
    return StagedNote(note_id, "2026-11-30T10:02:11.418Z", "MCP (stdio)", text)


@pytest.fixture
def memory(tmp_path: Path) -> Path:
    (tmp_path / "memory").mkdir()
    write(
        tmp_path,
        str(note_path("20261130-100211-aaaaaa")),
        render_note(note("20261130-100211-aaaaaa", "Keep me.")),
    )
    write(
        tmp_path,
        str(note_path("20261130-100212-bbbbbb")),
        render_note(note("20261130-100212-bbbbbb", "Not me.")),
    )
    return tmp_path


def open_slice(root: Path) -> Path:
    start = iso(datetime.now(UTC) - timedelta(minutes=2))
    sid = f"{start[:10]}-{start[11:13]}{start[14:16]}"
    text = (
        f"---\nslice_id: {sid}\nstatus: active\nstart: '{start}'\ntimezone: UTC\ntags: []\n---\n\n"
        f"## Turn abc123 — {start} (user)\n\nHello again.\n"
    )
    return write(root, str(core_md(sid)), text)


def test_list_accept_and_decline(memory: Path) -> None:
    code, out, _ = run("notes", "--memory", str(memory))
    assert code == 0
    assert "20261130-100211-aaaaaa · MCP (stdio) · 2026-11-30 10:02 UTC\n  Keep me.\n" in out
    assert "Not me." in out

    code, _, err = run("notes", "accept", "20261130-100211-aaaaaa", "--memory", str(memory))
    assert code == 1 and "No conversation is open" in err and "stays staged" in err

    slice_file = open_slice(memory)
    code, out, err = run("notes", "accept", "20261130-100211-aaaaaa", "--memory", str(memory))
    assert code == 0, err
    turns = parse_core_md(slice_file.read_text(encoding="utf-8")).turns
    assert [t.content for t in turns] == ["Hello again.", "[remembered via MCP (stdio)]\n\nKeep me."]

    code, out, _ = run("notes", "decline", "20261130-100212-bbbbbb", "--memory", str(memory))
    assert code == 0 and "stays out of the memory" in out
    code, out, _ = run("notes", "--memory", str(memory))
    assert code == 0 and out.startswith("No notes are waiting")
    code, out, _ = run("notes", "--all", "--json", "--memory", str(memory))
    statuses = {n["note_id"]: (n["status"], n["text"]) for n in json.loads(out)["notes"]}
    assert statuses == {
        "20261130-100211-aaaaaa": ("accepted", "Keep me."),
        "20261130-100212-bbbbbb": ("declined", "Not me."),
    }
    code, _, err = run("notes", "accept", "20261130-100212-bbbbbb", "--memory", str(memory))
    assert code == 1 and "already declined" in err


def test_unknown_and_broken_notes_fail_cleanly(memory: Path) -> None:
    code, _, err = run("notes", "decline", "nope", "--memory", str(memory))
    assert code == 1 and "There is no note nope" in err
    write(memory, str(note_path("20261130-100213-cccccc")), "{broken")
    code, _, err = run("notes", "--memory", str(memory))
    assert code == 1 and "20261130-100213-cccccc.json is not valid JSON" in err
