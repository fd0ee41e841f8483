"""The storage contract, run against every backend: in-memory, local folder (plain and git),
GitHub through the fake server, and the demo overlay."""

from __future__ import annotations

import subprocess
import threading
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.errors import InvalidInput, PathDenied, TooLarge
from core.memory.paths import MEMORY, MemoryPath
from core.storage.base import Put, PutBytes, Update, WriteBatch, blob_sha
from core.storage.local import git_blob_sha
from tests.contract.conftest import Backend

pytestmark = pytest.mark.contract

A = MemoryPath("memory/episodic/slices/2026/08/11/1115/timeline/core.md")
B = MemoryPath("memory/episodic/timeline/index.json")
C = MemoryPath("memory/user/config.json")


def append(block: str):  # type: ignore[no-untyped-def]
    """An Update adding one turn-like block to whatever the file holds now."""
    return lambda text: (text or "---\nslice_id: x\n---\n") + block


def test_missing_file_reads_none_and_empty_prefix_lists_nothing(backend: Backend) -> None:
    snap = backend.storage.snapshot()
    assert snap.read(A) is None
    assert snap.version_of(A) is None
    assert snap.list(MemoryPath("memory/episodic/slices")) == []


def test_round_trip_is_exact(backend: Backend) -> None:
    texts = {
        A: "---\nfocus: 旅行计划 ✈️\n---\n\n## Turn t1 — user\r\nno trailing newline",
        B: '{"slices": []}\n',
        C: "",
    }
    result = backend.storage.commit([Put(p, t) for p, t in texts.items()], "Turn t1 — housekeeping")
    assert result.written == tuple(sorted(texts))
    for reader in (backend.storage, backend.other_writer()):
        snap = reader.snapshot()
        for path, text in texts.items():
            assert snap.read(path) == text
            assert snap.version_of(path) == blob_sha(text)
    assert backend.storage.snapshot().list(MEMORY) == sorted(texts)
    assert backend.storage.snapshot().list(MemoryPath("memory/episodic/timeline")) == [B]


def test_list_is_recursive_sorted_and_skips_hidden_files(backend: Backend) -> None:
    backend.seed(
        {"memory/b/z.md": "z", "memory/a.md": "a", "memory/b/.draft.md": "x", "memory/.cache/k": "k"}
    )
    assert backend.storage.snapshot().list(MEMORY) == [MemoryPath("memory/a.md"), MemoryPath("memory/b/z.md")]
    assert backend.storage.snapshot().list(MemoryPath("memory/b")) == [MemoryPath("memory/b/z.md")]
    assert backend.storage.snapshot().list(MemoryPath("memory/a.md")) == []


def test_write_batch_reads_its_own_writes_before_commit(backend: Backend) -> None:
    backend.seed({A.value: "base\n"})
    batch = WriteBatch.open(backend.storage)
    batch.update(A, lambda t: (t or "") + "turn 1\n")
    batch.put(B, "{}\n")
    assert batch.read(A) == "base\nturn 1\n"
    assert batch.list(MEMORY) == [A, B]
    assert backend.storage.snapshot().read(A) == "base\n"  # nothing written yet
    result = batch.commit("Turn t1 — agent response")
    assert result.changed and batch.changes == []
    assert backend.stored() == {A.value: "base\nturn 1\n", B.value: "{}\n"}


def test_updates_compose_in_order_within_one_commit(backend: Backend) -> None:
    before = backend.history()
    changes = [
        Put(A, "start\n"),
        Update(A, lambda t: (t or "") + "one\n"),
        Update(A, lambda t: None),  # leaves the file as the previous change left it
        Update(A, lambda t: (t or "") + "two\n"),
    ]
    result = backend.storage.commit(changes, "Turn t2 — composed")
    assert result.written == (A,)
    assert backend.storage.snapshot().read(A) == "start\none\ntwo\n"
    if before is not None:
        assert backend.history() == ["Turn t2 — composed", *before]


def test_unchanged_batch_makes_no_commit(backend: Backend) -> None:
    backend.seed({A.value: "same\n"})
    before = backend.history()
    result = WriteBatch.open(backend.storage)
    result.put(A, "same\n")
    result.update(A, lambda t: t)
    result.update(B, lambda t: None)
    outcome = result.commit("nothing to say")
    assert not outcome.changed
    assert backend.history() == before
    assert backend.stored() == {A.value: "same\n"}


# The 1 MB cap; the archive-wide indexes (index.json, timeline.md, strands.json) have a larger one.
CAPPED = MemoryPath("memory/episodic/slices/2026/08/11/1115/timeline/agent.md")


def test_oversized_write_is_refused_and_nothing_is_written(backend: Backend) -> None:
    before = backend.history()
    with pytest.raises(TooLarge, match="too large"):
        backend.storage.commit([Put(A, "small\n"), Put(CAPPED, "x" * 1_000_001)], "too big")
    assert backend.stored() == {}
    assert backend.history() == before


def test_exactly_one_megabyte_is_accepted(backend: Backend) -> None:
    backend.storage.commit([Put(CAPPED, "é" * 500_000)], "1 MB of text")
    assert backend.storage.snapshot().read(CAPPED) == "é" * 500_000


def test_oversized_file_is_refused_on_read(backend: Backend) -> None:
    backend.seed({CAPPED.value: "x" * 1_000_001})
    snap = backend.storage.snapshot()
    assert snap.list(MEMORY) == [CAPPED]
    with pytest.raises(TooLarge):
        snap.read(CAPPED)


def test_the_catalog_may_outgrow_one_megabyte(backend: Backend) -> None:
    big = "x" * 5_000_000  # a 10,000-slice catalog is about this size
    backend.storage.commit([Put(B, big)], "a large catalog")
    assert backend.storage.snapshot().read(B) == big


def test_disallowed_paths_are_rejected_and_nothing_is_written(backend: Backend) -> None:
    with pytest.raises(PathDenied):
        backend.storage.commit([Put(A, "ok\n"), Put("src/app.py", "evil")], "sneaky")  # type: ignore[arg-type]
    with pytest.raises(PathDenied):
        backend.storage.snapshot().read("memory/../src/app.py")  # type: ignore[arg-type]
    with pytest.raises(PathDenied):
        WriteBatch.open(backend.storage).put(MemoryPath("memory/%2e%2e/x"), "no")
    assert backend.stored() == {}


def test_two_writers_racing_on_one_file_both_survive_in_order(backend: Backend) -> None:
    # Four turns each: a GitHub retry is needed only when the other writer's commit landed in
    # between, so no commit can need more than the five attempts the backend allows.
    writers = {"a": backend.storage, "b": backend.other_writer()}
    start = threading.Barrier(len(writers))
    errors: list[BaseException] = []

    def run(name: str) -> None:
        try:
            start.wait()
            for i in range(4):
                batch = WriteBatch.open(writers[name])
                batch.update(A, append(f"## Turn {name}{i}\n\n{name} says {i}\n\n"))
                batch.commit(f"Turn {name}{i} — housekeeping")
        except BaseException as exc:  # reported below with the test's failure
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(n,)) for n in writers]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert errors == []
    text = backend.stored()[A.value]
    for name in writers:
        positions = [text.index(f"## Turn {name}{i}\n") for i in range(4)]
        assert positions == sorted(positions)
    assert text.count("## Turn ") == 8
    history = backend.history()
    if history is not None:
        assert sum(m.startswith("Turn ") for m in history) == 8


def test_snapshot_is_consistent_with_commits(backend: Backend) -> None:
    first = backend.storage.commit([Put(A, "v1\n")], "first")
    second = backend.storage.commit([Put(A, "v2\n")], "second")
    assert first.changed and second.changed
    assert backend.storage.snapshot().read(A) == "v2\n"
    if backend.name in ("github", "github-lazy", "local-git"):
        assert first.version != second.version and second.version is not None


def test_update_is_evaluated_against_the_latest_text_not_the_batch_snapshot(backend: Backend) -> None:
    backend.seed({A.value: "base\n"})
    batch = WriteBatch.open(backend.storage)
    assert batch.read(A) == "base\n"
    backend.other_writer().commit([Update(A, append("## Turn other\n"))], "Turn other — housekeeping")
    batch.update(A, append("## Turn mine\n"))
    batch.commit("Turn mine — housekeeping")
    assert backend.stored()[A.value] == "base\n## Turn other\n## Turn mine\n"


def test_a_batch_reports_versions_with_its_pending_writes_and_prefetch_changes_nothing(
    backend: Backend,
) -> None:
    backend.storage.commit([Put(A, "one\n"), Put(B, "[]\n")], "seed")
    batch = WriteBatch.open(backend.storage)
    batch.prefetch([A, B, C])
    assert batch.version_of(A) == blob_sha("one\n") and batch.version_of(C) is None
    batch.update(A, lambda t: (t or "") + "two\n")
    batch.put(C, "{}")
    assert batch.version_of(A) == blob_sha("one\ntwo\n") and batch.version_of(C) == blob_sha("{}")
    assert batch.version_of(B) == blob_sha("[]\n")
    assert batch.read(A) == "one\ntwo\n"


# ---------------------------------------------------------------- bytes (pictures)

PIC = MemoryPath("memory/episodic/slices/2026/08/11/1115/images/t1-1.png")
PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256))  # not UTF-8, NULs included


def test_bytes_round_trip_exactly_and_a_text_read_of_them_fails_clearly(backend: Backend) -> None:
    result = backend.storage.commit([PutBytes(PIC, PNG), Put(A, "turn\n")], "Turn t1 — a picture")
    assert result.written == tuple(sorted([A, PIC]))
    for reader in (backend.storage, backend.other_writer()):
        snap = reader.snapshot()
        assert snap.read_bytes(PIC) == PNG
        assert snap.version_of(PIC) == git_blob_sha(PNG) == blob_sha(PNG)
        assert snap.read_bytes(A) == b"turn\n"  # a text file read as bytes is its UTF-8
        with pytest.raises(InvalidInput, match="not UTF-8 text"):
            snap.read(PIC)
    assert PIC in backend.storage.snapshot().list(MEMORY)
    if backend.fake is not None:  # the exact bytes are the blob in the real git repository
        assert backend.fake.read_bytes(PIC.value) == PNG
    if backend.name == "local-git":
        assert backend.root is not None
        assert git_bytes(backend.root, f"HEAD:{PIC.value}") == PNG


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.binary(max_size=2048))
def test_any_bytes_round_trip(backend: Backend, data: bytes) -> None:
    backend.storage.commit([PutBytes(PIC, data)], "bytes")
    assert backend.other_writer().snapshot().read_bytes(PIC) == data
    assert backend.storage.snapshot().version_of(PIC) == git_blob_sha(data)


def test_bytes_over_the_cap_are_refused_on_write_and_on_read(backend: Backend) -> None:
    with pytest.raises(TooLarge, match="too large"):
        backend.storage.commit([Put(A, "small\n"), PutBytes(PIC, b"\xff" * 1_000_001)], "too big")
    assert backend.stored() == {}
    backend.storage.commit([PutBytes(PIC, b"\xff" * 1_000_000)], "1 MB of bytes")
    assert backend.storage.snapshot().read_bytes(PIC) == b"\xff" * 1_000_000
    backend.seed({CAPPED.value: b"\xfe" * 1_000_001})
    with pytest.raises(TooLarge):
        backend.storage.snapshot().read_bytes(CAPPED)


def test_a_batch_reads_its_own_bytes_and_an_update_of_them_fails_clearly(backend: Backend) -> None:
    batch = WriteBatch.open(backend.storage)
    batch.put_bytes(PIC, PNG)
    assert batch.read_bytes(PIC) == PNG and batch.version_of(PIC) == git_blob_sha(PNG)
    assert batch.list(MEMORY) == [PIC]
    with pytest.raises(InvalidInput, match="not UTF-8 text"):
        batch.read(PIC)
    batch.commit("a picture")
    before = backend.history()
    with pytest.raises(InvalidInput, match="not UTF-8 text"):
        backend.storage.commit([Put(A, "x\n"), Update(PIC, lambda t: (t or "") + "more")], "a text edit")
    assert backend.storage.snapshot().read_bytes(PIC) == PNG and backend.history() == before


def test_bytes_written_unchanged_make_no_commit(backend: Backend) -> None:
    backend.storage.commit([PutBytes(PIC, PNG)], "a picture")
    before = backend.history()
    assert not backend.storage.commit([PutBytes(PIC, PNG)], "again").changed
    assert backend.history() == before
    utf8 = MemoryPath("memory/notes/plain.txt")  # bytes that are UTF-8 equal the same text
    backend.storage.commit([Put(utf8, "é\n")], "text")
    assert not backend.storage.commit([PutBytes(utf8, "é\n".encode())], "same bytes").changed


def git_bytes(root: Path, spec: str) -> bytes:
    """`git cat-file blob <spec>` in `root`: the bytes git holds."""
    cmd = ["git", "-C", str(root), "cat-file", "blob", spec]
    return subprocess.run(cmd, capture_output=True, check=True).stdout
