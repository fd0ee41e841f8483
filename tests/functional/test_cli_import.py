"""`previously import` for the outside formats: dry run, import, again, errors, GitHub commits."""

from __future__ import annotations

import json
import zipfile
from datetime import timedelta
from pathlib import Path

import pytest
from typer.testing import CliRunner

from core.imports import run
from functions.cli import cmd_import  # noqa: F401 - registers the command
from functions.cli.app import app
from tests.fakes.exports import (
    CAT_FILE,
    T0,
    ChatGPTConversation,
    cat_png,
    chatgpt_corpus,
    claude_corpus,
    write_zip,
)
from tests.fakes.fake_github import FakeGitHub

pytestmark = pytest.mark.functional


def _run(*args: str, env: dict[str, str] | None = None) -> tuple[int, str]:
    result = CliRunner().invoke(app, list(args), env=env)
    return result.exit_code, result.output


def _tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_dry_run_shows_the_plan_and_writes_nothing(tmp_path: Path) -> None:
    export = write_zip(tmp_path / "export.zip", chatgpt_corpus()[0])
    memory = tmp_path / "memory-root"
    code, out = _run("import", "--format", "chatgpt", str(export), "--memory", str(memory), "--dry-run")
    assert code == 0, out
    assert "would import" in out and "conversations: 3, messages: 12" in out
    assert "4 new, 0 extended, 0 unchanged" in out and "from 2024-03-04T09:01:00.000Z" in out
    assert "Nothing was written" in out
    assert not (memory / "memory").exists()


def test_a_chatgpt_image_is_counted_stored_and_not_written_again(tmp_path: Path) -> None:
    export = write_zip(tmp_path / "export.zip", chatgpt_corpus()[0], {CAT_FILE: cat_png()})
    memory = tmp_path / "memory-root"
    code, out = _run("import", "--format", "chatgpt", str(export), "--memory", str(memory), "--dry-run")
    assert code == 0, out
    assert "images stored: 1" in out and "image file-" not in out
    code, out = _run("import", "--format", "chatgpt", str(export), "--memory", str(memory))
    assert code == 0, out
    stored = [p for p in _tree(memory) if "/images/" in p]
    assert len(stored) == 1 and stored[0].endswith("-1.png")
    before = _tree(memory)
    code, out = _run("import", "--format", "chatgpt", str(export), "--memory", str(memory), "--json")
    assert code == 0, out
    assert json.loads(out)["writes"] == 0 and _tree(memory) == before


def test_import_then_again_changes_nothing_byte_for_byte(tmp_path: Path) -> None:
    export = write_zip(tmp_path / "claude.zip", claude_corpus()[0])
    memory = tmp_path / "memory-root"
    code, out = _run("import", "--format", "claude", str(export), "--memory", str(memory))
    assert code == 0, out
    assert "3 slices imported" in out and "photo.jpg" in out
    before = _tree(memory)
    code, out = _run("import", "--format", "claude", str(export), "--memory", str(memory), "--json")
    assert code == 0, out
    data = json.loads(out)
    assert data["writes"] == 0 and data["slices"]["unchanged"] == 3
    assert _tree(memory) == before


def test_markdown_and_jsonl_files_import(tmp_path: Path) -> None:
    md = tmp_path / "notes.md"
    md.write_text(
        "## user — 2024-05-01T10:00:00Z\nHello\n## assistant — 2024-05-01T10:00:30Z\nHi!\n", "utf-8"
    )
    jl = tmp_path / "talk.jsonl"
    jl.write_text(
        json.dumps(
            {"conversation": "t", "role": "user", "time": "2024-05-01T10:00:10Z", "text": "Same minute"}
        )
        + "\n",
        "utf-8",
    )
    memory = tmp_path / "m"
    assert _run("import", "--format", "markdown", str(md), "--memory", str(memory))[0] == 0
    code, out = _run("import", "--format", "jsonl", str(jl), "--memory", str(memory), "--json")
    assert code == 0, out
    assert json.loads(out)["imported"] == ["2024-05-01-1001"]  # 10:00 holds the Markdown one


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('[{"title": "T", "id": "c-9", "mapping": 7}]', "'T' (c-9): field `mapping`"),
        ("[{", "entry 0 is not valid JSON"),
        ("\udcff", "not UTF-8"),
    ],
)
def test_bad_files_fail_clearly_and_write_nothing(tmp_path: Path, content: str, message: str) -> None:
    bad = tmp_path / "conversations.json"
    bad.write_bytes(content.encode("utf-8", "surrogateescape"))
    memory = tmp_path / "m"
    code, out = _run("import", "--format", "chatgpt", str(bad), "--memory", str(memory))
    assert code == 1 and message in out
    assert not (memory / "memory").exists()


def test_missing_file_and_a_zip_without_conversations(tmp_path: Path) -> None:
    code, out = _run("import", "--format", "claude", str(tmp_path / "nope.zip"), "--memory", str(tmp_path))
    assert code == 1 and "No file at" in out
    with zipfile.ZipFile(tmp_path / "other.zip", "w") as zf:
        zf.writestr("users.json", "[]")
    code, out = _run("import", "--format", "claude", str(tmp_path / "other.zip"), "--memory", str(tmp_path))
    assert code == 1 and "holds no conversations.json" in out


def test_on_github_an_import_lands_in_a_few_commits(
    fake_github: FakeGitHub, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    convs = []
    for i in range(12):
        c = ChatGPTConversation(f"g-{i}", f"Talk {i}")
        c.say("user", f"hello {i}", T0 + timedelta(hours=i))
        c.say("assistant", f"hi {i}", T0 + timedelta(hours=i, seconds=5))
        convs.append(c.export())
    export = write_zip(tmp_path / "export.zip", convs)
    monkeypatch.setattr(run, "CHUNK_SLICES", 5)
    env = {
        "STORAGE": "",
        "GITHUB_TOKEN": fake_github.token,
        "GITHUB_REPO": "octo/memory",
        "GITHUB_API_URL": fake_github.url,
        "PREVIOUSLY_MEMORY": str(Path("/nonexistent-folder")),
    }
    before = len(fake_github.log())
    code, out = _run("import", "--format", "chatgpt", str(export), env=env)
    assert code == 0, out
    assert "12 slices imported" in out and "3 commits" in out
    assert len(fake_github.log()) - before == 3
    cores = [p for p in fake_github.files() if p.endswith("/timeline/core.md")]
    assert len(cores) == 12
    code, out = _run("import", "--format", "chatgpt", str(export), env=env)
    assert code == 0 and "nothing new to import" in out and len(fake_github.log()) - before == 3
