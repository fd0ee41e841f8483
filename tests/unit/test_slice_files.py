"""The slice-file damage check (core/memory/owners/slice_files.py): a pass reads only the folders
whose files changed since the last one, names what is damaged, and the page reads it back."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from core.memory import paths
from core.memory.owners.slice_files import (
    damaged_slice_files,
    folder_files,
    parse_checks,
    recorded_damage,
    refresh_slice_checks,
)
from core.storage.base import WriteBatch
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
