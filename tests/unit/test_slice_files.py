"""The slice-file damage check (core/memory/owners/slice_files.py): a pass reads only the folders
whose files changed since the last one, names what is damaged, and the page reads it back."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from core.memory import paths
from core.memory.owners import slice_files
from core.memory.owners.slice_files import (
    SWEEP_EVERY,
    damaged_slice_files,
    folder_files,
    parse_checks,
    recorded_damage,
    refresh_slice_checks,
)
from core.storage.base import WriteBatch
from core.storage.local import LocalSnapshot, LocalStorage
from core.storage.memory import InMemoryStorage, MemorySnapshot
from tests.fakes.images import jpeg

pytestmark = pytest.mark.unit

IDS = ["2026-08-10-2130", "2026-08-11-0900", "2026-08-12-1815"]


@dataclass
class CountingSnapshot:
    inner: MemorySnapshot
    reads: list[str] = field(default_factory=list)

    @property
    def version(self) -> str | None:
        return self.inner.version

    def read(self, path: paths.MemoryPath) -> str | None:
        self.reads.append(path.value)
        return self.inner.read(path)

    def read_bytes(self, path: paths.MemoryPath) -> bytes | None:
        self.reads.append(path.value)
        return self.inner.read_bytes(path)

    def list(self, prefix: paths.MemoryPath) -> list[paths.MemoryPath]:
        return self.inner.list(prefix)

    def version_of(self, path: paths.MemoryPath) -> str | None:
        return self.inner.version_of(path)


@dataclass
class CountingStorage(InMemoryStorage):
    last: CountingSnapshot | None = None

    def snapshot(self) -> CountingSnapshot:  # type: ignore[override]
        self.last = CountingSnapshot(super().snapshot())
        return self.last

    def slice_reads(self) -> list[str]:
        assert self.last is not None
        return sorted(p for p in self.last.reads if p.startswith(paths.SLICES.value))


def _memory() -> CountingStorage:
    storage = CountingStorage()
    for sid in IDS:
        storage.files[paths.core_md(sid)] = "---\nfocus: x\n---\n"
        storage.files[paths.agent_md(sid)] = "## Cognition a\n"
        storage.files[paths.card_snapshot(sid)] = "# Previously On\n"
    storage.files[paths.slice_dir(IDS[0]) / "images/t1-1.jpg"] = jpeg()
    return storage


def _pass(storage: CountingStorage) -> list[str]:
    batch = WriteBatch.open(storage)
    found = [str(d) for d in refresh_slice_checks(batch)]
    batch.commit("checks")
    return found


def test_an_unchanged_memory_reads_no_slice_file_and_a_changed_folder_only_its_own() -> None:
    storage = _memory()
    assert _pass(storage) == []
    assert len(storage.slice_reads()) == 7  # the first pass has no record: every file is checked
    assert _pass(storage) == [] and storage.slice_reads() == []  # nothing changed: nothing read
    bad = paths.agent_md(IDS[1])
    storage.files[bad] = b"\xff\xfe not UTF-8"
    [line] = _pass(storage)
    assert line.startswith(bad.value) and "UTF-8" in line
    assert storage.slice_reads() == sorted([bad.value, paths.card_snapshot(IDS[1]).value])
    assert [str(d) for d in refresh_slice_checks(WriteBatch.open(storage))] == [line]  # from the record
    assert storage.slice_reads() == []
    assert [d.path for d in recorded_damage(storage.snapshot())] == [bad.value]
    assert storage.files[bad] == b"\xff\xfe not UTF-8"


def test_a_truncated_picture_is_damaged_and_a_repaired_file_leaves_the_record() -> None:
    storage = _memory()
    picture = paths.slice_dir(IDS[0]) / "images/t1-1.jpg"
    whole = jpeg()
    storage.files[picture] = whole[: len(whole) // 2]
    assert [d.path for d in damaged_slice_files(storage.snapshot())] == [picture.value]
    [line] = _pass(storage)
    assert "cut short" in line
    storage.files[picture] = whole
    assert recorded_damage(storage.snapshot()) == []  # changed since: not named from the record
    assert _pass(storage) == []
    checks = parse_checks(storage.snapshot().read(paths.SLICE_CHECKS_JSON))
    assert checks.damaged == {} and sorted(checks.folders) == IDS


def test_a_damaged_record_is_rebuilt_by_checking_everything() -> None:
    storage = _memory()
    _pass(storage)
    storage.files[paths.SLICE_CHECKS_JSON] = b"\xff not JSON"
    assert _pass(storage) == [] and len(storage.slice_reads()) == 7
    assert sorted(parse_checks(storage.snapshot().read(paths.SLICE_CHECKS_JSON)).folders) == IDS


def test_folder_files_takes_what_classify_calls_a_slice_folder_file_other_than_core_md() -> None:
    sid = "2026-08-11-1115"
    listing = [
        paths.core_md(sid),
        paths.agent_md(sid),
        paths.slice_dir(sid) / "timeline/agent-2.md",
        paths.appendix_md(sid),
        paths.card_snapshot(sid),
        paths.slice_dir(sid) / "images/t1-1.jpg",
        paths.slice_dir(sid) / "attachments/a.txt",
        paths.monthly_index("2026", "08"),
        paths.legacy_flat_md("2026-08-12-0900"),
        paths.MemoryPath("memory/episodic/slices/2026/08/11/stray.md"),
        paths.MemoryPath("memory/episodic/slices/2026/08/1x/1115/previously.md"),
        paths.CARD,
    ]
    by_classify: dict[str, list[paths.MemoryPath]] = {}
    for p in listing:
        found = paths.classify(p)
        if found.folder_id is not None and found.kind is not paths.PathKind.CORE_MD:
            by_classify.setdefault(found.folder_id.dash, []).append(p)
    assert folder_files(listing) == by_classify and len(by_classify[sid]) == 6


# A local folder: the digest is of folder times (free after the listing), so an unchanged memory
# costs no stat per file; each folder's files are also looked at once every six hours of clock
# time, for what an in-place rewrite hid (a part of them at each pass).

LONG_AGO = 1_700_000_000  # every file and folder is made older than the two-second window


def _local(root: Path) -> LocalStorage:
    for sid in IDS:
        for path, text in (
            (paths.core_md(sid), "---\nfocus: x\n---\n"),
            (paths.agent_md(sid), "## Cognition a\n"),
            (paths.card_snapshot(sid), "# Previously On\n"),
        ):
            (root / path.value).parent.mkdir(parents=True, exist_ok=True)
            (root / path.value).write_text(text, encoding="utf-8")
    _age(root)
    return LocalStorage(root)


def _age(root: Path) -> None:
    for folder, _, files in os.walk(root):
        for name in files:
            os.utime(Path(folder) / name, (LONG_AGO, LONG_AGO))
        os.utime(folder, (LONG_AGO, LONG_AGO))


def _local_pass(storage: LocalStorage, now: datetime) -> list[str]:
    batch = WriteBatch.open(storage)
    found = [str(d) for d in refresh_slice_checks(batch, now)]
    batch.commit("checks")  # only timeline/checked.json: no slice folder's time moves
    return found


@pytest.fixture
def file_looks(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every slice file a pass reads or stamps (the per-file costs the folder times avoid)."""
    seen: list[str] = []
    stamp, read = LocalSnapshot.stamp_of, LocalSnapshot._read_bytes

    def stamp_of(self: LocalSnapshot, path: paths.MemoryPath) -> str | None:
        seen.append(path.value)
        return stamp(self, path)

    def read_bytes(self: LocalSnapshot, path: paths.MemoryPath, limit: bool = True) -> bytes | None:
        seen.append(path.value)
        return read(self, path, limit=limit)

    monkeypatch.setattr(LocalSnapshot, "stamp_of", stamp_of)
    monkeypatch.setattr(LocalSnapshot, "_read_bytes", read_bytes)
    return seen


def _slice_looks(seen: list[str]) -> list[str]:
    return sorted({p for p in seen if p.startswith(paths.SLICES.value + "/")})


class _Forgetful(dict[str, datetime]):
    def __setitem__(self, key: str, value: datetime) -> None:
        pass


NOW = datetime(2026, 8, 20, 12, 0, tzinfo=UTC)  # on a minute: 30 s later no part of the look is due
SOON = NOW + timedelta(seconds=30)


def test_a_local_pass_over_an_unchanged_memory_looks_at_no_slice_file(
    tmp_path: Path, file_looks: list[str]
) -> None:
    storage = _local(tmp_path)
    assert _local_pass(storage, NOW) == []
    assert len(_slice_looks(file_looks)) == 6  # the first pass: every checked file
    file_looks.clear()
    record = (storage.root / paths.SLICE_CHECKS_JSON.value).read_bytes()
    assert _local_pass(storage, SOON) == []
    assert _slice_looks(file_looks) == []
    assert (storage.root / paths.SLICE_CHECKS_JSON.value).read_bytes() == record  # not rewritten
    checks = parse_checks(record.decode())
    assert sorted(checks.folders) == IDS and checks.swept == NOW


def test_a_file_written_into_place_is_checked_at_the_next_pass_and_only_its_folder(
    tmp_path: Path, file_looks: list[str]
) -> None:
    storage = _local(tmp_path)
    _local_pass(storage, NOW)
    bad = tmp_path / paths.agent_md(IDS[1]).value
    staged = bad.with_name(".agent.md.tmp")
    staged.write_bytes(b"\xff\xfe not UTF-8")
    os.replace(staged, bad)  # how the product and most editors save: the folder's time moves
    _age(tmp_path)
    os.utime(bad.parent, (LONG_AGO + 60, LONG_AGO + 60))
    file_looks.clear()
    [line] = _local_pass(storage, SOON)
    assert line.startswith(paths.agent_md(IDS[1]).value) and "UTF-8" in line
    assert {p for p in _slice_looks(file_looks) if not p.endswith("core.md")} <= {
        paths.agent_md(IDS[1]).value,
        paths.card_snapshot(IDS[1]).value,
    }
    assert bad.read_bytes() == b"\xff\xfe not UTF-8"  # named, left as it is


@pytest.mark.parametrize("fresh_process", [False, True], ids=["serve", "cron"])
@pytest.mark.parametrize("every", [timedelta(minutes=1), timedelta(minutes=15), timedelta(hours=7)])
def test_an_in_place_rewrite_is_found_within_six_hours_however_often_passes_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, every: timedelta, fresh_process: bool
) -> None:
    if fresh_process:  # each pass its own process: only the record says when the last look was
        monkeypatch.setattr(slice_files, "_LOOKED", _Forgetful())
    storage = _local(tmp_path)
    _local_pass(storage, NOW)
    bad = tmp_path / paths.card_snapshot(IDS[2]).value
    with bad.open("r+b") as handle:  # rewritten in place: no folder time moves
        handle.write(b"\xff")
    _age(tmp_path)
    os.utime(bad, (LONG_AGO + 120, LONG_AGO + 120))  # the file's own time did
    assert _local_pass(storage, SOON) == []  # not seen yet: folder times alone
    when, found = SOON, []
    while not found and when - SOON <= timedelta(hours=12):
        when += every
        found = _local_pass(storage, when)
    assert when - SOON <= max(every, SWEEP_EVERY)
    assert [line.split(":")[0] for line in found] == [paths.card_snapshot(IDS[2]).value]


def test_passes_a_minute_apart_look_at_a_part_each_and_at_every_folder_within_six_hours(
    tmp_path: Path, file_looks: list[str]
) -> None:
    storage = _local(tmp_path)
    _local_pass(storage, NOW)
    looked: list[set[str]] = []
    for minute in range(1, 361):
        file_looks.clear()
        assert _local_pass(storage, NOW + timedelta(minutes=minute)) == []
        looked.append({"/".join(p.split("/")[:7]) for p in _slice_looks(file_looks)})  # slice folders
    assert sum(len(folders) for folders in looked) == len(IDS)  # each folder once in six hours
    assert set().union(*looked) == {paths.slice_dir(sid).value for sid in IDS}


def test_a_folder_changed_moments_ago_or_queued_in_the_batch_is_checked_every_time(tmp_path: Path) -> None:
    storage = _local(tmp_path)
    _local_pass(storage, NOW)
    batch = WriteBatch.open(storage)
    target = paths.agent_md(IDS[0])
    batch.put(target, "## Cognition b\n")
    assert refresh_slice_checks(batch, NOW + timedelta(hours=1)) == []
    times = batch.folder_times(paths.SLICES)
    assert times is not None and times[paths.slice_dir(IDS[0]).value + "/timeline"] == -1
    batch.commit("an edit")  # just now: inside the two-second window
    snap = storage.snapshot().folder_times(paths.SLICES)
    assert snap[paths.slice_dir(IDS[0]).value + "/timeline"] == -1
    (tmp_path / target.value).write_bytes(b"\xff")  # and damaged in place right after
    assert [d.path for d in refresh_slice_checks(WriteBatch.open(storage), NOW + timedelta(hours=2))] == [
        target.value
    ]
