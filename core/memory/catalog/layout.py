"""How the timeline catalog lies in storage: one file per month and a small top file.

The catalog document (docs/FORMAT.md "The timeline catalog") is `{"_schema", "updated_at",
"slice_count", "needs_marking", "slices"}`; at 10,000 slices its entries are megabytes. So its
entries are stored by the month of their slice id, `timeline/index/YYYY-MM.json`, and the
counters in `timeline/catalog.json` with one line per month (its entry count and the blob sha
of its file). A weave that changes one slice rewrites that month's file and the top file, not
the archive; a reader whose storage keeps blobs by sha downloads only the months that moved.
The entries and their key order are exactly those of the document; the month files' entries
concatenated in month order are the document's `slices`.

The top file also records which version of each re-readable slice its entry was made from
(`core_md`, core/memory/catalog/shas.py): both are read and written by every weave, so one file
serves both. The single file `timeline/index.json` and `timeline/shas.json` of earlier versions
are still read when there is no top file; the next weave writes this layout and removes them
(`queue_catalog`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from core.errors import InvalidInput
from core.memory import paths
from core.memory.catalog.shas import parse_shas, shas_in
from core.memory.formats import jsjson
from core.storage.base import Reader, blob_sha, prefetch, version_of

SCHEMA = 1
TOP = paths.CATALOG_TOP_JSON
LEGACY = paths.CATALOG_JSON
LEGACY_SHAS = paths.CATALOG_SHAS_JSON
COUNTERS = ("_schema", "updated_at", "slice_count", "needs_marking")
Entry = dict[str, Any]


class Writer(Reader, Protocol):
    """A batch to queue writes into (a WriteBatch)."""

    def put(self, path: paths.MemoryPath, text: str) -> None: ...

    def delete(self, path: paths.MemoryPath) -> None: ...


def month_of(slice_id: str) -> str:
    """`YYYY-MM` of a slice id (dash form): the month file its entry lives in."""
    return slice_id[:7]


def by_month(entries: Iterable[Mapping[str, Any]]) -> dict[str, list[Entry]]:
    """The entries grouped by the month of their id, months ascending, each list by id."""
    grouped: dict[str, list[Entry]] = {}
    for e in sorted(entries, key=lambda e: str(e["id"])):
        grouped.setdefault(month_of(str(e["id"])), []).append(dict(e))
    return dict(sorted(grouped.items()))


def render_month(month: str, entries: Sequence[Mapping[str, Any]]) -> str:
    """`{"_schema": 1, "month": "YYYY-MM", "slices": [...]}`, 2-space JSON, no trailing newline."""
    return jsjson.dumps({"_schema": SCHEMA, "month": month, "slices": [dict(e) for e in entries]})


def parse_month(month: str, text: str | None) -> list[Entry] | None:
    """A month file's entries; None when it is missing or unreadable, or holds an entry that is
    not of that month (a damaged file: the weave re-reads that month's slices)."""
    if text is None:
        return None
    try:
        raw = json.loads(text)
    except ValueError:
        return None
    slices = raw.get("slices") if isinstance(raw, dict) else None
    if not isinstance(slices, list):
        return None
    good = [e for e in slices if isinstance(e, dict) and paths.is_slice_id(str(e.get("id", "")))]
    if len(good) != len(slices) or any(month_of(str(e["id"])) != month for e in good):
        return None
    return good


@dataclass(frozen=True)
class Top:
    """The top file: the document's counters, each month's entry count and file sha, and the
    versions of the re-readable slices."""

    counters: dict[str, Any]
    months: dict[str, tuple[int, str]]  # YYYY-MM → (entries, blob sha of its file)
    shas: dict[str, str]  # slice id → blob sha prefix of the core.md its entry was made from
    settled: str | None = None  # the weave's mark of its inputs (core/memory/catalog/settled.py)


def parse_top(text: str | None) -> Top | None:
    """The top file; None when missing or unreadable."""
    if text is None:
        return None
    try:
        raw = json.loads(text)
        months = {str(m["month"]): (int(m["slices"]), str(m["sha"])) for m in raw["months"]}
        if not all(_is_month(m) for m in months):
            return None
        settled = raw.get("settled")
        settled = settled if isinstance(settled, str) else None
        return Top({k: raw[k] for k in COUNTERS if k in raw}, months, shas_in(raw), settled)
    except (ValueError, KeyError, TypeError):
        return None


def _is_month(month: str) -> bool:
    return paths.classify(paths.CATALOG_MONTHS / f"{month}.json").kind is paths.PathKind.CATALOG_MONTH


def render_top(
    doc: Mapping[str, Any], months: Mapping[str, str], shas: Mapping[str, str], settled: str | None = None
) -> str:
    """The top file for `doc` whose month files have these texts, recording `shas` (and the
    weave's `settled` mark when it has one)."""
    counts = {m: 0 for m in months}
    for e in doc["slices"]:
        counts[month_of(str(e["id"]))] += 1
    lines = [{"month": m, "slices": counts[m], "sha": blob_sha(months[m])} for m in sorted(months)]
    counters = {k: doc[k] for k in COUNTERS if k in doc}
    top = {**counters, "months": lines, "core_md": dict(sorted(shas.items()))}
    if settled is not None:
        top["settled"] = settled
    return jsjson.dumps(top)


def split(
    doc: Mapping[str, Any], shas: Mapping[str, str] | None = None, settled: str | None = None
) -> dict[paths.MemoryPath, str]:
    """The files of a catalog document: the top file (recording `shas` and `settled`) and one
    file per month with entries."""
    months = {m: render_month(m, entries) for m, entries in by_month(doc["slices"]).items()}
    files = {paths.catalog_month(m): text for m, text in months.items()}
    return {TOP: render_top(doc, months, shas or {}, settled), **files}


def join(top: Top, months: Mapping[str, Sequence[Entry]]) -> dict[str, Any]:
    """The catalog document from the top file's counters and the months' entries."""
    slices = [e for m in sorted(months) for e in months[m]]
    return {**top.counters, "slices": slices}


@dataclass(frozen=True)
class Stored:
    """The catalog as found in storage: its document (None without a readable one), whether it
    came from the single file, the months whose file could not be used, and the recorded
    versions of the re-readable slices."""

    doc: dict[str, Any] | None
    legacy: bool = False
    damaged: tuple[str, ...] = ()
    shas: Mapping[str, str] = field(default_factory=dict)


def read_top(reader: Reader) -> Top | None:
    """The top file alone (None when missing or unreadable)."""
    return parse_top(_read(reader, TOP))


def read_stored(reader: Reader, legacy_parse: Callable[[str | None], dict[str, Any] | None]) -> Stored:
    """The stored catalog: the month layout when its top file reads, else the single file
    (`legacy_parse`: text → document or None). Month files are fetched together; a month whose
    file is missing or damaged is left out and named in `damaged`."""
    top_text = _read(reader, TOP)
    if top_text is None:
        doc = legacy_parse(_read(reader, LEGACY))
        return Stored(doc, legacy=doc is not None, shas=parse_shas(_read(reader, LEGACY_SHAS)))
    return read_months(reader, top_text)


def read_months(reader: Reader, top_text: str | None, editing: bool = False) -> Stored:
    """The catalog of this top file's text, its months read from `reader`. `editing`: the
    months were just changed under this top file (its counts may lag, a month file may be gone)."""
    top = parse_top(top_text)
    if top is None:
        return Stored(None)
    wanted = {m: paths.catalog_month(m) for m in top.months}
    prefetch(reader, wanted.values())
    found: dict[str, list[Entry]] = {}
    damaged = []
    for month, path in wanted.items():
        text = _read(reader, path)
        entries = [] if editing and text is None else parse_month(month, text)
        if entries is None or (not editing and len(entries) != top.months[month][0]):
            damaged.append(month)
        else:
            found[month] = entries
    return Stored(join(top, found), damaged=tuple(damaged), shas=top.shas)


def catalog_version(reader: Reader) -> str | None:
    """A version of the stored catalog, known without reading it: the top file's blob sha (it
    names every month file's sha), or the single file's; None when the reader cannot tell."""
    return version_of(reader, TOP) or version_of(reader, LEGACY)


def has_catalog(listing: Iterable[paths.MemoryPath]) -> bool:
    """Whether a listing of `timeline/` shows a catalog (either layout)."""
    names = set(listing)
    return TOP in names or LEGACY in names


def queue_catalog(
    batch: Writer, doc: Mapping[str, Any], shas: Mapping[str, str], settled: str | None = None
) -> str:
    """Queue the catalog's files for `doc` and `shas` (an unchanged month file is not written:
    the commit skips it), remove month files left without entries and the files of the earlier
    layout; returns the top file's text."""
    files = split(doc, shas, settled)
    for path, text in files.items():
        batch.put(path, text)
    for path in batch.list(paths.CATALOG_MONTHS):
        if paths.classify(path).kind is paths.PathKind.CATALOG_MONTH and path not in files:
            batch.delete(path)
    listed = set(batch.list(paths.MemoryPath(LEGACY.parent)))
    for old in (LEGACY, LEGACY_SHAS):
        if old in listed:
            batch.delete(old)
    return files[TOP]


def _read(reader: Reader, path: paths.MemoryPath) -> str | None:
    try:
        return reader.read(path)
    except InvalidInput:
        return None
