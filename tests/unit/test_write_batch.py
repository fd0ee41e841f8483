"""The write batch's read-your-writes: any sequence of puts, updates, deletes, reads, listings
and commits sees exactly what a plain dict of texts would hold; a read costs the same however
many changes are pending, and evaluates each Update once, not once per read."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.storage.base import Delete, Put, Update, UpdateFn, WriteBatch, blob_sha
from core.storage.memory import InMemoryStorage, MemorySnapshot
from core.storage.paths import MemoryPath

pytestmark = pytest.mark.unit
PATHS = [MemoryPath(p) for p in ("memory/a.md", "memory/b/c.md", "memory/b/d.md", "memory/e.md")]
PREFIXES = [MemoryPath("memory"), MemoryPath("memory/b")]
FUNCTIONS: dict[str, UpdateFn] = {
    "append": lambda t: (t or "") + "+",
    "nothing": lambda t: None,
    "same": lambda t: t,
    "create": lambda t: "created" if t is None else None,
    "upper": lambda t: t.upper() if t else None,
}
text = st.text(alphabet="ab\n—😀", max_size=6)
op = st.one_of(
    st.tuples(st.just("put"), st.sampled_from(PATHS), text),
    st.tuples(st.just("update"), st.sampled_from(PATHS), st.sampled_from(sorted(FUNCTIONS))),
    st.tuples(st.just("append_change"), st.sampled_from(PATHS), st.sampled_from(sorted(FUNCTIONS))),
    st.tuples(st.just("delete"), st.sampled_from(PATHS)),
    st.tuples(st.just("read"), st.sampled_from(PATHS)),
    st.tuples(st.just("version"), st.sampled_from(PATHS)),
    st.tuples(st.just("list"), st.sampled_from(PREFIXES)),
    st.tuples(st.just("commit")),
)


def apply(model: dict[MemoryPath, str], path: MemoryPath, fn: UpdateFn) -> None:
    new = fn(model.get(path))
    if new is not None:
        model[path] = new


@settings(max_examples=300, deadline=None)
@given(initial=st.dictionaries(st.sampled_from(PATHS), text, max_size=4), ops=st.lists(op, max_size=40))
def test_a_batch_reads_what_a_model_dict_holds(initial: dict[MemoryPath, str], ops: list[tuple]) -> None:
    storage = InMemoryStorage(dict(initial))
    batch = WriteBatch.open(storage)
    model = dict(initial)
    for kind, *args in ops:
        if kind == "put":
            batch.put(args[0], args[1])
            model[args[0]] = args[1]
        elif kind in ("update", "append_change"):
            fn = FUNCTIONS[args[1]]
            if kind == "update":
                batch.update(args[0], fn)
            else:  # some callers queue prepared changes on the list directly
                batch.changes.append(Update(args[0], fn))
            apply(model, args[0], fn)
        elif kind == "delete":
            batch.delete(args[0])
            model.pop(args[0], None)
        elif kind == "read":
            assert batch.read(args[0]) == model.get(args[0])
        elif kind == "version":
            expected = model.get(args[0])
            assert batch.version_of(args[0]) == (None if expected is None else blob_sha(expected))
        elif kind == "list":
            assert batch.list(args[0]) == sorted(p for p in model if p.is_under(args[0]))
        else:
            batch.commit("Turn t1 — test")
            assert storage.files == model
    batch.commit("Turn t1 — test")
    assert storage.files == model
    assert all(batch.read(p) == model.get(p) for p in PATHS)


@dataclass
class CountingSnapshot:
    """A snapshot counting its reads."""

    inner: MemorySnapshot
    reads: list[MemoryPath] = field(default_factory=list)

    @property
    def version(self) -> str | None:
        return self.inner.version

    def read(self, path: MemoryPath) -> str | None:
        self.reads.append(path)
        return self.inner.read(path)

    def list(self, prefix: MemoryPath) -> list[MemoryPath]:
        return self.inner.list(prefix)

    def version_of(self, path: MemoryPath) -> str | None:
        return self.inner.version_of(path)


def counted(calls: list[str | None]) -> Callable[[str | None], str | None]:
    def fn(text: str | None) -> str | None:
        calls.append(text)
        return (text or "") + "+"

    return fn


def test_each_update_is_evaluated_once_however_often_the_file_is_read() -> None:
    storage = InMemoryStorage.from_texts({"memory/a.md": "one"})
    snap = CountingSnapshot(storage.snapshot())
    batch = WriteBatch(storage, snap)
    a, other = PATHS[0], PATHS[3]
    calls: list[str | None] = []
    batch.update(a, counted(calls))
    for n in range(200):
        batch.put(other, f"version {n}")  # many pending changes elsewhere
    for _ in range(1000):
        assert batch.read(a) == "one+"
        assert batch.version_of(a) == blob_sha("one+")
    assert calls == ["one"] and snap.reads == [a]
    batch.update(a, counted(calls))
    assert batch.read(a) == "one++" and calls == ["one", "one+"] and snap.reads == [a]
    assert batch.read(other) == "version 199" and snap.reads == [a]


def test_a_pending_delete_is_never_read_and_a_raising_update_raises_on_every_read() -> None:
    storage = InMemoryStorage.from_texts({"memory/a.md": "one"})
    snap = CountingSnapshot(storage.snapshot())
    batch = WriteBatch(storage, snap)
    a = PATHS[0]
    batch.delete(a)
    assert batch.read(a) is None and batch.list(PREFIXES[0]) == [] and snap.reads == []

    def refuse(_: str | None) -> str | None:
        raise ValueError("not now")

    batch.update(a, refuse)
    for _ in range(2):
        with pytest.raises(ValueError, match="not now"):
            batch.read(a)
    batch.changes[:] = [Put(a, "two"), Delete(PATHS[3])]  # a list replaced outright is followed
    assert batch.read(a) == "two" and batch.read(PATHS[3]) is None
