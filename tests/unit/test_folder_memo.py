"""Folder times kept between processes for a local memory (core/storage/folder_memo.py): a walk
that trusts them scans only the folders whose time moved, and still finds every change."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from core.memory import paths
from core.storage import local
from core.storage.local import LocalStorage

pytestmark = pytest.mark.unit

LONG_AGO = 1_700_000_000
IDS = ["2026-08-10-2130", "2026-08-11-0900", "2026-08-12-1815"]


def _write(root: Path, path: paths.MemoryPath, text: str = "x\n") -> Path:
    file = root / path.value
    file.parent.mkdir(parents=True, exist_ok=True)
    file.write_text(text, encoding="utf-8")
    return file


def _age(root: Path, when: int = LONG_AGO) -> None:
    """Every folder's time set in the past (out of the two-second window); a later `when` for
    a later state, as the clock would have moved."""
    for folder, _, _ in os.walk(root):
        os.utime(folder, (when, when))


def _age_moved(root: Path, when: int) -> None:
    """Only the folders whose entries changed get the later time (as the file system does)."""
    for folder in (
        paths.slice_dir(IDS[1]),
        paths.SLICES / "2026/08",
        paths.SLICES / "2026/08/13",
        paths.slice_dir("2026-08-13-0700"),
        paths.slice_dir("2026-08-13-0700") / "timeline",
        paths.SLICES / "2026/08/10",
    ):
        os.utime(root / folder.value, (when, when))


@pytest.fixture
def scans(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    seen: list[str] = []
    real = os.scandir

    def counting(path: str) -> object:
        seen.append(str(path))
        return real(path)

    monkeypatch.setattr(local.os, "scandir", counting)
    return seen


def _times(root: Path, memo: Path) -> dict[str, int]:
    """folder_times of the slices in a new process (a new storage: nothing kept in memory)."""
    return LocalStorage(root, folder_memo=memo).snapshot().folder_times(paths.SLICES)


def test_a_new_process_scans_no_unchanged_folder_and_sees_every_change(
    tmp_path: Path, scans: list[str]
) -> None:
    root, memo = tmp_path / "mem", tmp_path / "cache" / "folders.json"
    for sid in IDS:
        _write(root, paths.agent_md(sid))
    _age(root)
    scans.clear()
    first = _times(root, memo)
    assert memo.exists() and len(scans) == len(first)  # the first walk scans every folder
    assert first == LocalStorage(root).snapshot().folder_times(paths.SLICES)  # same as without
    scans.clear()
    assert _times(root, memo) == first and scans == []  # one stat per folder, no scan

    _write(root, paths.card_snapshot(IDS[1]))  # a new file: its folder's time moves
    _write(root, paths.agent_md("2026-08-13-0700"))  # a new slice in a new day
    removed = root / paths.slice_dir(IDS[0]).value
    for file in sorted(removed.rglob("*"), reverse=True):
        file.unlink() if file.is_file() else file.rmdir()
    removed.rmdir()
    _age_moved(root, LONG_AGO + 600)
    scans.clear()
    now = _times(root, memo)
    scanned = list(scans)
    assert now == LocalStorage(root).snapshot().folder_times(paths.SLICES)
    assert paths.slice_dir("2026-08-13-0700").value + "/timeline" in now
    assert paths.slice_dir(IDS[0]).value not in now
    assert 0 < len(scanned) < len(now)  # only the folders whose time moved


def test_a_damaged_or_foreign_memo_is_no_memo(tmp_path: Path) -> None:
    root, memo = tmp_path / "mem", tmp_path / "folders.json"
    _write(root, paths.agent_md(IDS[0]))
    _age(root)
    truth = LocalStorage(root).snapshot().folder_times(paths.SLICES)
    for text in ("\xff not JSON", '{"_schema": 1, "root": "/elsewhere", "folders": {}}', "[]"):
        memo.write_text(text, encoding="utf-8", errors="surrogateescape")
        assert _times(root, memo) == truth
    # a memo that lies about a folder's children is trusted only while its time matches
    held = memo.read_text(encoding="utf-8").replace('"timeline"', '"elsewhere"')
    memo.write_text(held.replace(str(LONG_AGO * 1_000_000_000), "1"), encoding="utf-8")
    assert _times(root, memo) == truth


def test_a_folder_changed_moments_ago_is_scanned_again(tmp_path: Path, scans: list[str]) -> None:
    root, memo = tmp_path / "mem", tmp_path / "folders.json"
    _write(root, paths.agent_md(IDS[0]))  # just now: inside the two-second window
    _times(root, memo)
    scans.clear()
    times = _times(root, memo)
    assert scans and -1 in times.values()


def test_a_memo_naming_a_folder_outside_the_memory_is_not_followed(tmp_path: Path) -> None:
    root, memo = tmp_path / "mem", tmp_path / "folders.json"
    _write(root, paths.agent_md(IDS[0]))
    (tmp_path / "outside" / "deep").mkdir(parents=True)
    _age(root)
    truth = LocalStorage(root).snapshot().folder_times(paths.SLICES)
    _times(root, memo)
    slices = str(LONG_AGO * 1_000_000_000)
    text = memo.read_text(encoding="utf-8")
    planted = text.replace(
        f'"memory/episodic/slices":[{slices},["2026"]]',
        f'"memory/episodic/slices":[{slices},["2026","../../../outside"]]',
    )
    assert planted != text
    memo.write_text(planted, encoding="utf-8")
    assert _times(root, memo) == truth  # the planted row is dropped: the folder is scanned
