"""Damaged memory files: read one without letting it stop the rest, and say what is wrong with it.

A file that is not UTF-8, is over its size cap, or (for a slice) has frontmatter that does not
parse is skipped by whatever reads the memory in bulk — maintenance, the search index, the
timeline — and named where a person looks: `maintain`'s output, `check`, the slice view. It is
never rewritten: it stays byte for byte as it is until the person repairs it.
"""

from __future__ import annotations

from typing import Protocol

from core.errors import Damage, DamagedFile, InvalidInput, SliceFormatError
from core.memory import paths
from core.memory.slice.model import parse_frontmatter

LEFT_AS_IS = "Previously skips it and leaves it exactly as it is until you repair it."


class Listing(Protocol):
    """A read view that can also list (a Snapshot or a WriteBatch)."""

    def read(self, path: paths.MemoryPath) -> str | None: ...

    def list(self, prefix: paths.MemoryPath) -> list[paths.MemoryPath]: ...


def read_text(reader: Listing, path: paths.MemoryPath) -> str | None:
    """A memory file's text (None when absent); DamagedFile when it is not UTF-8 or too large."""
    try:
        text = reader.read(path)
    except SliceFormatError:
        raise
    except InvalidInput as exc:  # the storage's own words: not UTF-8, over the cap
        raise DamagedFile(f"{exc} {LEFT_AS_IS}", path.value) from exc
    if text is not None and (size := len(text.encode("utf-8"))) > paths.size_limit(path):
        limit = paths.size_limit(path)
        problem = f"{size} bytes, over the {limit}-byte limit; split or shorten it. {LEFT_AS_IS}"
        raise DamagedFile(problem, path.value)
    return text


def slice_damage(reader: Listing, path: paths.MemoryPath) -> Damage | None:
    """What keeps a slice file from being read whole: unreadable, or frontmatter that does not parse."""
    try:
        text = read_text(reader, path)
        if text is not None:
            parse_frontmatter(text)
    except DamagedFile as exc:
        return exc.damage
    except SliceFormatError as exc:
        return Damage(path.value, str(exc))
    return None


def frontmatter_problem(text: str) -> str | None:
    """What is wrong with a slice file's frontmatter, or None when it parses."""
    try:
        parse_frontmatter(text)
    except SliceFormatError as exc:
        return str(exc)
    return None


def slice_files(view: Listing) -> dict[str, paths.MemoryPath]:
    """Slice id → its core.md (or a legacy flat file when there is no folder), from one listing."""
    found: dict[str, paths.MemoryPath] = {}
    flats: dict[str, paths.MemoryPath] = {}
    for path in view.list(paths.SLICES):
        kind = paths.classify(path)
        if kind.slice_id is None:
            continue
        if kind.kind is paths.PathKind.CORE_MD:
            found[kind.slice_id.dash] = path
        elif kind.kind is paths.PathKind.LEGACY_FLAT:
            flats[kind.slice_id.dash] = path
    return {**flats, **found}


def damaged_slices(view: Listing) -> list[Damage]:
    """Every slice file that bulk readers skip, oldest first."""
    listed = slice_files(view)
    return [d for sid in sorted(listed) if (d := slice_damage(view, listed[sid]))]


def read_or_skip(reader: Listing, path: paths.MemoryPath) -> str | None:
    """A file's text for bulk readers: None when absent or damaged (`check` and `maintain` name it)."""
    try:
        return read_text(reader, path)
    except DamagedFile:
        return None
