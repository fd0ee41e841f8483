"""`previously card show|edit|rm|undo` on a memory folder."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from functions.cli import _load_commands, app
from tests.unit.card_samples import CARD_TEXT

pytestmark = pytest.mark.functional
_load_commands()


@pytest.fixture
def memory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.delenv("STORAGE", raising=False)
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    card = tmp_path / "memory/episodic/current-previously.md"
    card.parent.mkdir(parents=True)
    card.write_text(CARD_TEXT, encoding="utf-8")
    return tmp_path


def _run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.output


def test_show_numbers_entries_by_section(memory: Path) -> None:
    code, out = _run("card", "show", "--memory", str(memory))
    assert code == 0
    assert re.search(r"^now 2 +Moving flat in September", out, re.M)
    assert re.search(r"^horizon 2 +Renew the passport — by: 2026-08-01 +\[overdue\]$", out, re.M)
    code, out = _run("card", "show", "--memory", str(memory), "--json")
    entries = json.loads(out)["entries"]
    assert [(e["n"], e["text"]) for e in entries if e["section"] == "now"] == [
        (1, "Training for a 5K"),
        (2, "Moving flat in September"),
    ]


def test_edit_rm_undo(memory: Path) -> None:
    card = memory / "memory/episodic/current-previously.md"
    code, out = _run("card", "edit", "now", "2", "Moving flat in October", "--memory", str(memory))
    assert code == 0 and "now 2  Moving flat in October" in out and "undo" in out
    assert "Moving flat in October" in card.read_text(encoding="utf-8")
    code, out = _run("card", "rm", "horizon", "1", "--memory", str(memory))
    assert code == 0 and "removed horizon 1: Draft the wedding speech" in out
    assert "Draft the wedding speech" not in card.read_text(encoding="utf-8")
    assert _run("card", "undo", "--memory", str(memory))[0] == 0
    assert "Draft the wedding speech" in card.read_text(encoding="utf-8")
    assert "Moving flat in October" in card.read_text(encoding="utf-8")


def test_bad_address_is_a_clear_error_and_changes_nothing(memory: Path) -> None:
    code, out = _run("card", "edit", "now", "7", "x", "--memory", str(memory))
    assert code == 1 and "There is no now 7" in out
    code, out = _run("card", "rm", "feelings", "1", "--memory", str(memory))
    assert code == 1 and "Unknown card section" in out
    assert (memory / "memory/episodic/current-previously.md").read_text(encoding="utf-8") == CARD_TEXT
    assert not (memory / "memory/episodic/card-history").exists()


def test_undo_with_nothing_to_undo(memory: Path) -> None:
    code, out = _run("card", "undo", "--memory", str(memory))
    assert code == 1 and "no earlier version" in out


def test_show_without_a_card(tmp_path: Path) -> None:
    (tmp_path / "memory").mkdir()
    code, out = _run("card", "show", "--memory", str(tmp_path))
    assert code == 0 and "no user card yet" in out
