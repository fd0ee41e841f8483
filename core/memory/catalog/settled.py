"""Whether a maintenance weave can tell, from the catalog's top file and the listing alone, that
it would change nothing — so an unchanged pass reads no month file.

The weave's result depends on the listed slice ids, the strand keys, the pending entries and the
entries it re-reads (dry, damaged or dated today). Each weave records in the top file a mark of
the first two (`settled`: a hash of the listed ids and the blob sha of strands.json), written only
when every dry or damaged entry has its core.md version recorded (`core_md`). A later pass whose
listing gives the same mark, with no pending entries, every month file the version the top file
names, and every recorded and every dated-today slice still the recorded version, would write the
same files: it stops there. Anything it cannot tell (a reader without blob shas) means a full weave.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from core.memory import paths
from core.memory.catalog.layout import LEGACY, LEGACY_SHAS, Top
from core.memory.catalog.shas import SHA_LEN
from core.storage.base import Reader, version_of


def fingerprint(slice_ids: Sequence[str], strands_version: str) -> str:
    """The mark of a listing and a strands.json version."""
    return hashlib.sha1("\n".join([*slice_ids, strands_version]).encode()).hexdigest()


def settled_mark(
    entries: Iterable[Mapping[str, Any]], shas: Mapping[str, str], slice_ids: Sequence[str], reader: Reader
) -> str | None:
    """The mark a weave records; None unless every dry or damaged entry has a recorded version
    (and the reader knows strands.json's version)."""
    strands = version_of(reader, paths.STRANDS_JSON) or ("-" if _absent(reader, paths.STRANDS_JSON) else None)
    if strands is None:
        return None
    for e in entries:
        if (e.get("needs_marking") is True or e.get("problem")) and str(e["id"]) not in shas:
            return None
    return fingerprint(slice_ids, strands)


def unchanged(reader: Reader, top: Top, slice_ids: Sequence[str], today: str, pending: Sequence[Any]) -> bool:
    """Whether a weave over `reader` would write exactly the catalog `top` describes."""
    if top.settled is None or pending or top.settled != settled_mark((), {}, slice_ids, reader):
        return False
    listed = set(reader.list(paths.CATALOG_MONTHS))
    if listed != {paths.catalog_month(m) for m in top.months} or not _absent(reader, LEGACY, LEGACY_SHAS):
        return False
    if any(version_of(reader, paths.catalog_month(m)) != sha for m, (_, sha) in top.months.items()):
        return False
    if any(sid.startswith(today) and sid not in top.shas for sid in slice_ids):
        return False
    for sid, sha in top.shas.items():
        current = version_of(reader, paths.core_md(sid))
        if current is None or current[:SHA_LEN] != sha:
            return False
    return True


def _absent(reader: Reader, *files: paths.MemoryPath) -> bool:
    listed = set(reader.list(paths.MemoryPath(files[0].parent)))
    return not any(f in listed for f in files)
