"""`previously forget` and `previously export` on a memory folder (a copy of the sample)."""

from __future__ import annotations

import json
import shutil
import subprocess
import zipfile
from pathlib import Path

import pytest
from typer.testing import CliRunner

from functions.cli import _load_commands, app
from tests.functional.forget_support import SAMPLE

pytestmark = pytest.mark.functional
_load_commands()
SLICE = "2025-02-08-1617"
FOLDER = "memory/episodic/slices/2025/02/08/1617"


@pytest.fixture
def memory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.delenv("STORAGE", raising=False)
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    root = tmp_path / "mem"
    shutil.copytree(SAMPLE / "memory", root / "memory")
    return root


def _run(*args: str, stdin: str | None = None) -> tuple[int, str]:
    result = CliRunner().invoke(app, list(args), input=stdin)
    return result.exit_code, result.output


def _files(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted((root / "memory").rglob("*"))
        if p.is_file()
    }


def test_forget_asks_first_and_no_keeps_everything(memory: Path) -> None:
    before = _files(memory)
    code, out = _run("forget", SLICE, "--memory", str(memory), stdin="n\n")
    assert code == 1
    assert "Completion day: the keys" in out and "Git history still holds" in out
    assert _files(memory) == before


def test_forget_yes_removes_the_slice_in_one_git_commit(memory: Path) -> None:
    env = {
        "GIT_AUTHOR_NAME": "T",
        "GIT_AUTHOR_EMAIL": "t@t",
        "GIT_COMMITTER_NAME": "T",
        "GIT_COMMITTER_EMAIL": "t@t",
    }

    def git(*args: str) -> str:
        return subprocess.run(
            ["git", "-C", str(memory), *args],
            capture_output=True,
            text=True,
            check=True,
            env={**env, "PATH": "/usr/bin:/bin"},
        ).stdout

    git("init", "-q", "-b", "main")
    git("add", "-A")
    git("commit", "-qm", "seed")
    code, out = _run("forget", SLICE, "--memory", str(memory), "--yes")
    assert code == 0, out
    assert f"Forgot slice {SLICE}" in out and "docs/FORGET.md" in out
    assert not (memory / FOLDER).exists()
    assert git("log", "--format=%s").splitlines() == [f"Forget slice {SLICE}", "seed"]
    assert git("status", "--porcelain") == ""
    assert "Keys!!!" in git("show", f"HEAD~1:{FOLDER}/timeline/core.md")  # history still holds it


def test_forget_one_turn_json(memory: Path) -> None:
    core = (memory / FOLDER / "timeline/core.md").read_text()
    turn = [line.split()[2] for line in core.splitlines() if line.startswith("## Turn ")][2]
    code, out = _run("forget", SLICE, "--turn", turn, "--memory", str(memory), "--yes", "--json")
    assert code == 0, out
    data = json.loads(out)
    assert data["turn_id"] == turn and data["whole_slice"] is False
    assert f"## Turn {turn} " not in (memory / FOLDER / "timeline/core.md").read_text()


def test_forget_unknown_slice_or_turn_fails_clearly(memory: Path) -> None:
    code, out = _run("forget", "2030-01-01-0000", "--memory", str(memory), "--yes")
    assert code == 1 and "There is no slice 2030-01-01-0000" in out
    code, out = _run("forget", SLICE, "--turn", "zzzzzz", "--memory", str(memory), "--yes")
    assert code == 1 and "has no turn zzzzzz" in out
    code, out = _run("forget", "last-tuesday", "--memory", str(memory), "--yes")
    assert code == 1 and "Invalid slice id" in out


def test_forget_on_the_demo_is_refused(memory: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("STORAGE", "demo")
    code, out = _run("forget", SLICE, "--memory", str(memory), "--yes")
    assert code == 1 and "read-only" in out
    assert (memory / FOLDER / "timeline/core.md").exists()


def test_export_round_trips_byte_for_byte(memory: Path, tmp_path: Path) -> None:
    (memory / "memory/episodic/search").mkdir()
    (memory / "memory/episodic/search/manifest.json").write_text("{}")
    out_zip = tmp_path / "out.zip"
    code, out = _run("export", "--memory", str(memory), "--out", str(out_zip))
    assert code == 0, out
    assert "search index was left out" in out
    target = tmp_path / "restored"
    with zipfile.ZipFile(out_zip) as zf:
        zf.extractall(target)
    want = {k: v for k, v in _files(memory).items() if not k.startswith("memory/episodic/search/")}
    assert _files(target) == want
    # the same memory makes the same bytes
    again = tmp_path / "again.zip"
    _run("export", "--memory", str(memory), "--out", str(again))
    assert again.read_bytes() == out_zip.read_bytes()


def test_export_names_files_it_cannot_read(memory: Path, tmp_path: Path) -> None:
    (memory / "memory/notes.md").write_bytes(b"x" * 1_000_001)  # over the cap
    (memory / "memory/raw.bin").write_bytes(b"\xff\xfe not utf-8")  # bytes: exported as they are
    out_zip = tmp_path / "out.zip"
    code, out = _run("export", "--memory", str(memory), "--out", str(out_zip))
    assert code == 0
    assert "not exported" in out and "memory/notes.md" in out
    with zipfile.ZipFile(out_zip) as zf:
        assert "memory/notes.md" in zf.read("EXPORT.txt").decode()
        assert zf.read("memory/raw.bin") == b"\xff\xfe not utf-8"


def test_forgetting_the_active_slice_lets_the_next_message_open_a_new_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in (
        "ANTHROPIC_API_KEY",
        "OPENAI_API_KEY",
        "OPENAI_BASE_URL",
        "DEEPSEEK_API_KEY",
        "GITHUB_TOKEN",
    ):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.delenv("STORAGE", raising=False)
    monkeypatch.setenv("PREVIOUSLY_RUNS", str(tmp_path / "runs"))
    memory = tmp_path / "m"
    _run("chat", "My bank PIN hint is marmalade", "--memory", str(memory))  # no model: saved, exit 3
    [core] = list(memory.glob("memory/episodic/slices/*/*/*/*/timeline/core.md"))
    sid = "-".join(core.parent.parent.relative_to(memory / "memory/episodic/slices").parts)
    assert "status: active" in core.read_text()
    code, out = _run("forget", sid, "--memory", str(memory), "--yes")
    assert code == 0, out
    leftovers = {p: p.read_text() for p in (memory / "memory").rglob("*") if p.is_file()}
    assert not [p for p, text in leftovers.items() if "marmalade" in text]
    _run("chat", "Something else entirely", "--memory", str(memory))
    [again] = list(memory.glob("memory/episodic/slices/*/*/*/*/timeline/core.md"))
    text = again.read_text()
    assert "Something else entirely" in text and "marmalade" not in text
    assert "status: active" in text
