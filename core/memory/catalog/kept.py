"""The catalog and strands kept in the process, by the blob sha of the file they came from.

Every arrival reads the timeline, the briefing and the strands; at 10,000 slices the catalog is
megabytes of JSON. A snapshot knows each file's git blob sha (from the tree listing on GitHub,
from a stat-checked hash locally), so the parse of a version is made once and kept: a file whose
sha has not moved is neither parsed again nor, where the sha comes without reading, read.
Keyed by content, an entry can never be stale; the memo is small and bounded. A reader that
cannot tell a sha (a write batch with the file queued) is parsed fresh each time.

Kept values are shared between requests: callers copy before they change anything.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from core.memory import paths
from core.memory.catalog.damaged import parse_damaged
from core.memory.catalog.index import read_or_none, stored_index
from core.memory.catalog.layout import catalog_version
from core.memory.catalog.pending import overlay, parse_pending
from core.memory.catalog.strand_shards import shard_of
from core.memory.catalog.strands_file import load_strands
from core.memory.formats.memo import TextMemo
from core.storage.base import Reader, version_of

T = TypeVar("T")
_SIZE = 4  # a few versions per file: a long-running server's memory stays flat


@dataclass(frozen=True)
class _Box(Generic[T]):
    value: T  # boxed so that a kept None (no file) is a hit, not a miss


class Kept(Generic[T]):
    """One derived file's parse, kept by `path@sha`."""

    def __init__(
        self,
        path: paths.MemoryPath,
        parse: Callable[[str | None], T],
        load: Callable[[Reader], T] | None = None,
        version: Callable[[Reader], str | None] | None = None,
    ) -> None:
        self.path = path
        self._parse = parse
        self._load = load  # reads the value itself (a file in parts), keyed by `version`
        self._version = version
        self._memo: TextMemo[_Box[T]] = TextMemo(_SIZE)
        self.parses = 0  # how many times the file was parsed (tests and benches read it)

    def get(self, reader: Reader) -> T:
        sha = self._version(reader) if self._version else version_of(reader, self.path)
        if sha is None:
            return self._fresh(reader)
        key = f"{self.path.value}@{sha}"
        found = self._memo.get(key)
        if found is None:
            found = self._memo.put(key, _Box(self._fresh(reader)))
        return found.value

    def _fresh(self, reader: Reader) -> T:
        self.parses += 1
        if self._load is not None:
            return self._load(reader)
        return self._parse(read_or_none(reader, self.path))


def _strand_ids(text: str | None) -> dict[str, tuple[str, ...]]:
    out: dict[str, tuple[str, ...]] = {}
    for key, rels in load_strands(text).items():
        out[key] = tuple(sid.dash for rel in rels if (sid := paths.SliceId.from_either(rel)))
    return out


# Keyed by the top file's sha, which names every month file's sha (core/memory/catalog/layout.py).
INDEX: Kept[dict[str, Any] | None] = Kept(
    paths.CATALOG_TOP_JSON, lambda text: None, load=stored_index, version=catalog_version
)
STRANDS: Kept[dict[str, tuple[str, ...]]] = Kept(paths.STRANDS_JSON, _strand_ids)
SHARDS: tuple[Kept[dict[str, tuple[str, ...]]], ...] = tuple(
    Kept(paths.strand_shard(n), _strand_ids) for n in range(paths.STRAND_SHARDS)
)
DAMAGED: Kept[list[dict[str, Any]]] = Kept(paths.CATALOG_DAMAGED_JSON, parse_damaged)


def kept_index(reader: Reader) -> dict[str, Any] | None:
    """The current catalog as `read_index` gives it (the stored catalog kept, the small pending file
    overlaid on each read); shared: do not change it in place."""
    return overlay(INDEX.get(reader), parse_pending(read_or_none(reader, paths.PENDING_JSON)))


def kept_strands(reader: Reader) -> dict[str, tuple[str, ...]]:
    """The strands as strand → slice ids (dash form, file order), each file kept; shared."""
    found = {p.value for p in reader.list(paths.STRANDS_DIR)}
    parts = [STRANDS.get(reader), *(k.get(reader) for k in SHARDS if k.path.value in found)]
    return parts[0] if len(parts) == 1 else _joined(parts)


def kept_strand(reader: Reader, name: str) -> tuple[str, ...] | None:
    """The strand named exactly `name` (slice ids, dash form), reading its shard only; None
    when there is none."""
    parts = [STRANDS.get(reader), SHARDS[shard_of(name)].get(reader)]
    found = [part[name] for part in parts if name in part]
    return _joined([{name: ids} for ids in found])[name] if found else None


def _joined(parts: list[dict[str, tuple[str, ...]]]) -> dict[str, tuple[str, ...]]:
    out: dict[str, list[str]] = {}
    for part in parts:
        for key, ids in part.items():
            if key not in out:
                out[key] = list(ids)
                continue
            seen = set(out[key])
            out[key].extend(i for i in ids if i not in seen)
    return {key: tuple(ids) for key, ids in out.items()}


def kept_damaged(reader: Reader) -> list[dict[str, Any]]:
    """damaged.json's entries (the slices the last weave could not read), kept; shared."""
    return DAMAGED.get(reader)
