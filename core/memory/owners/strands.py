"""The owner of strands.json (a derived file: tag → the slices woven under it) for the operations
that take slices out of it (forget, a hand edit that drops a tag) and the one that inspects it
(check). Each change is queued over the current text and re-rendered whole (`render_strands`);
an unreadable file is rebuilt rather than stopping the commit (`update_derived`).
"""

from __future__ import annotations

from collections.abc import Iterable

from core.memory import paths
from core.memory.catalog.index import read_or_none
from core.memory.catalog.strands import Strands, drop_slice, find_matching, parse_strands, render_strands
from core.memory.catalog.strands_file import load_strands
from core.memory.owners.registry import Writer, update_derived
from core.storage.base import Reader

PATH = paths.STRANDS_JSON


def read_strands(view: Reader) -> tuple[Strands, list[str]]:
    """The strands as they read, and what could not be read of them (a damaged file: none)."""
    return parse_strands(read_or_none(view, PATH))


def queue_drop_slice(batch: Writer, slice_id: str) -> None:
    """Queue strands.json without the slice (a forgotten slice leaves every strand)."""
    update_derived(batch, PATH, lambda text: _drop(text, slice_id))


def queue_unweave(batch: Writer, slice_id: str, tags: Iterable[str]) -> None:
    """Queue strands.json without the slice under the strands of `tags` (tags it no longer has)."""
    dropped = list(tags)
    if dropped:
        update_derived(batch, PATH, lambda text: _unweave(text, dropped, paths.slice_rel(slice_id)))


def _drop(text: str | None, slice_id: str) -> str | None:
    if text is None:
        return None
    strands, _ = drop_slice(load_strands(text), paths.slice_rel(slice_id))
    new = render_strands(strands)
    return None if new == text else new


def _unweave(text: str | None, tags: list[str], rel: str) -> str | None:
    if text is None:
        return None
    strands = load_strands(text)
    for tag in tags:
        key = find_matching(strands, tag)
        if key is not None and rel in strands[key]:
            strands[key] = [p for p in strands[key] if p != rel]
            if not strands[key]:
                del strands[key]
    new = render_strands(strands)
    return None if new == text else new
