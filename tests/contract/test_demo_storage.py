"""The demo persona: reads see the overlay first, commits never reach the disk."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from core.errors import StorageError
from core.memory.paths import MEMORY, MemoryPath
from core.storage.base import Put, Update, WriteBatch
from core.storage.demo import DemoStorage
from tests.contract.conftest import write_raw

pytestmark = pytest.mark.contract

CARD = MemoryPath("memory/episodic/current-previously.md")
CORE = MemoryPath("memory/episodic/slices/2026/08/11/1115/timeline/core.md")


def fingerprint(root: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*")):
        digest.update(str(path.relative_to(root)).encode())
        if path.is_file():
            digest.update(path.read_bytes())
    return digest.hexdigest()


@pytest.fixture
def persona(tmp_path: Path) -> Path:
    base = tmp_path / "sample"
    write_raw(base, {CARD.value: "# Previously On\n", "memory/episodic/timeline.md": "# Timeline\n"})
    return base


def test_chat_works_on_the_overlay_and_nothing_reaches_disk(persona: Path) -> None:
    before = fingerprint(persona)
    storage = DemoStorage(persona)
    assert storage.demo is True and not storage.read_only
    batch = WriteBatch.open(storage)
    batch.update(CARD, lambda t: (t or "") + "- likes tea\n")
    batch.put(CORE, "## Turn t1\n")
    assert batch.commit("Turn t1 — housekeeping").changed
    snap = storage.snapshot()
    assert snap.read(CARD) == "# Previously On\n- likes tea\n"
    assert snap.read(CORE) == "## Turn t1\n"
    assert CORE in snap.list(MEMORY)
    assert storage.overlay_paths == [CARD, CORE]
    assert fingerprint(persona) == before
    assert DemoStorage(persona).snapshot().read(CARD) == "# Previously On\n"  # a new process starts clean


def test_the_persona_is_read_as_shipped(persona: Path) -> None:
    snap = DemoStorage(persona).snapshot()
    assert snap.read(CARD) == "# Previously On\n"
    assert snap.list(MEMORY) == [CARD, MemoryPath("memory/episodic/timeline.md")]


def test_snapshots_are_isolated_from_later_overlay_writes(persona: Path) -> None:
    storage = DemoStorage(persona)
    old = storage.snapshot()
    storage.commit([Update(CARD, lambda t: "changed\n")], "m")
    assert old.read(CARD) == "# Previously On\n"
    assert old.version != storage.snapshot().version


def test_a_missing_persona_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(StorageError, match="demo memory is missing"):
        DemoStorage(tmp_path / "nowhere")


def test_an_unchanged_batch_does_not_bump_the_version(persona: Path) -> None:
    storage = DemoStorage(persona)
    version = storage.snapshot().version
    assert not storage.commit([Put(CARD, "# Previously On\n")], "m").changed
    assert storage.snapshot().version == version
