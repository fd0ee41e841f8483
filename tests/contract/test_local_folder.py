"""Local-folder specifics: atomic writes, the inter-process lock, git commits, refusals."""

from __future__ import annotations

import logging
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from core.errors import InvalidInput, PathDenied, StorageError
from core.memory.paths import MEMORY, MemoryPath
from core.storage.base import Put, Update
from core.storage.local import LocalStorage
from tests.contract.conftest import git, write_raw

pytestmark = pytest.mark.contract

A = MemoryPath("memory/episodic/slices/2026/08/11/1115/timeline/core.md")
B = MemoryPath("memory/episodic/timeline/index.json")
REPO_ROOT = Path(__file__).resolve().parents[2]


def files_under(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file())


def test_the_root_is_created_on_first_write_and_no_temp_files_remain(tmp_path: Path) -> None:
    root = tmp_path / "not" / "yet"
    storage = LocalStorage(root)
    assert storage.snapshot().list(MEMORY) == [] and not root.exists()
    storage.commit([Put(A, "turn\n"), Put(B, "[]\n")], "first")
    assert files_under(root) == [".previously.lock", A.value, B.value]
    assert not (root / ".git").exists()  # a plain folder stays a plain folder


def test_existing_file_permissions_are_kept(tmp_path: Path) -> None:
    write_raw(tmp_path, {A.value: "old\n"})
    (tmp_path / A.value).chmod(0o600)
    LocalStorage(tmp_path).commit([Put(A, "new\n")], "m")
    assert stat.S_IMODE((tmp_path / A.value).stat().st_mode) == 0o600


def test_a_failed_batch_writes_nothing(tmp_path: Path) -> None:
    write_raw(tmp_path, {"memory/blocker": "a file where a folder is needed\n"})
    with pytest.raises(StorageError, match="Could not write"):
        LocalStorage(tmp_path).commit([Put(A, "ok\n"), Put(MemoryPath("memory/blocker/x.md"), "x")], "m")
    assert files_under(tmp_path) == [".previously.lock", "memory/blocker"]


def test_a_symlink_out_of_the_folder_is_refused(tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("secret\n")
    root = tmp_path / "root"
    (root / "memory").mkdir(parents=True)
    (root / "memory" / "evil.md").symlink_to(outside)
    storage = LocalStorage(root)
    with pytest.raises(PathDenied, match="outside the memory folder"):
        storage.snapshot().read(MemoryPath("memory/evil.md"))
    with pytest.raises(PathDenied):
        storage.commit([Put(MemoryPath("memory/evil.md"), "overwritten\n")], "m")
    assert outside.read_text() == "secret\n"


def test_a_linked_folder_out_of_the_root_is_refused_and_one_inside_allowed(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "x.md").write_text("secret\n")
    root = tmp_path / "root"
    (root / "memory" / "real").mkdir(parents=True)
    (root / "memory" / "real" / "y.md").write_text("inside\n")
    (root / "memory" / "away").symlink_to(outside)
    (root / "memory" / "alias").symlink_to(root / "memory" / "real")
    (root / "memory" / "evil.md").symlink_to(outside / "x.md")
    snap = LocalStorage(root).snapshot()
    assert MemoryPath("memory/evil.md") in snap.list(MemoryPath("memory"))  # listing remembers plain files
    with pytest.raises(PathDenied, match="outside the memory folder"):
        snap.read(MemoryPath("memory/evil.md"))
    assert snap.read(MemoryPath("memory/real/y.md")) == "inside\n"
    with pytest.raises(PathDenied, match="outside the memory folder"):
        snap.read(MemoryPath("memory/away/x.md"))
    assert snap.read(MemoryPath("memory/alias/y.md")) == "inside\n"


def test_one_folder_s_entries_keep_the_listing_s_rules(tmp_path: Path) -> None:
    """`entries` (a search's walk of the newest days) leaves out dot-names and linked folders as
    `list` does, refuses a link out of the root, and sees a file added below at once."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "x.md").write_text("secret\n")
    root = tmp_path / "root"
    (root / "memory" / "real" / "deep").mkdir(parents=True)
    (root / "memory" / "real" / "y.md").write_text("inside\n")
    (root / "memory" / "real" / ".y.md.tmp").write_text("staged\n")
    (root / "memory" / "real" / "away").symlink_to(outside)
    (root / "memory" / "away").symlink_to(outside)
    storage = LocalStorage(root)
    folders, files = storage.snapshot().entries(MemoryPath("memory/real"))
    assert list(folders) == [MemoryPath("memory/real/deep")]
    assert list(files) == [MemoryPath("memory/real/y.md")]
    assert storage.snapshot().entries(MemoryPath("memory/none")) == ((), ())
    with pytest.raises(PathDenied, match="outside the memory folder"):
        storage.snapshot().entries(MemoryPath("memory/away"))
    storage.commit([Put(MemoryPath("memory/real/z.md"), "new\n")], "new")
    assert MemoryPath("memory/real/z.md") in storage.snapshot().entries(MemoryPath("memory/real"))[1]


def test_non_utf8_files_are_refused_not_mangled(tmp_path: Path) -> None:
    write_raw(tmp_path, {A.value: b"caf\xe9\n"})
    storage = LocalStorage(tmp_path)
    with pytest.raises(InvalidInput, match="UTF-8"):
        storage.snapshot().read(A)
    with pytest.raises(InvalidInput):
        storage.commit([Update(A, lambda t: (t or "") + "more\n")], "m")
    assert (tmp_path / A.value).read_bytes() == b"caf\xe9\n"


_APPENDER = """
import sys
from core.memory.paths import MemoryPath
from core.storage.base import Update
from core.storage.local import LocalStorage
storage, name = LocalStorage(sys.argv[1]), sys.argv[2]
for i in range(15):
    storage.commit([Update(MemoryPath(sys.argv[3]), lambda t: (t or "") + f"{name}{i}\\n")], "m")
"""


def test_two_processes_appending_to_one_file_lose_nothing(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    procs = [
        subprocess.Popen([sys.executable, "-c", _APPENDER, str(tmp_path), name, A.value], env=env)
        for name in ("p", "q")
    ]
    assert [p.wait(60) for p in procs] == [0, 0]
    lines = (tmp_path / A.value).read_text().splitlines()
    for name in ("p", "q"):
        assert [line for line in lines if line.startswith(name)] == [f"{name}{i}" for i in range(15)]


# ---------------------------------------------------------------- a folder that is a git repository


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "memory-repo"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    return root


def test_each_batch_is_one_git_commit_of_exactly_its_files(repo: Path) -> None:
    write_raw(repo, {"notes.txt": "the user's own work\n"})
    git(repo, "add", "notes.txt")  # staged by the user: must stay out of our commits
    storage = LocalStorage(repo)
    first = storage.commit([Put(A, "turn 1\n"), Put(B, "[]\n")], "Turn t1 — housekeeping")
    storage.commit([Update(A, lambda t: (t or "") + "turn 2\n")], "Turn t2 — agent response")
    assert git(repo, "log", "--format=%s").splitlines() == [
        "Turn t2 — agent response",
        "Turn t1 — housekeeping",
    ]
    assert git(repo, "show", "--name-only", "--format=", "HEAD~1").split() == [A.value, B.value]
    assert first.version == git(repo, "rev-parse", "HEAD~1").strip()
    assert git(repo, "status", "--porcelain").splitlines() == ["A  notes.txt"]  # lock file excluded


def test_a_missing_git_identity_does_not_fail_the_write(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = repo.parent / "home"
    home.mkdir()
    for var in ("GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL", "EMAIL"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(home / "none"))
    subprocess.run(["git", "-C", str(repo), "config", "user.useConfigOnly", "true"], check=True)
    result = LocalStorage(repo).commit([Put(A, "turn\n")], "Turn t1")
    assert result.version is not None
    assert git(repo, "log", "--format=%an <%ae>").strip() == "Previously <previously@localhost>"


def test_a_git_failure_keeps_the_written_files(repo: Path, caplog: pytest.LogCaptureFixture) -> None:
    (repo / ".git" / "index.lock").write_text("")  # another git process is (apparently) running
    with caplog.at_level(logging.WARNING):
        result = LocalStorage(repo).commit([Put(A, "turn\n")], "Turn t1")
    assert result.changed and result.version is None
    assert (repo / A.value).read_text() == "turn\n"
    assert "git could not commit" in caplog.text
