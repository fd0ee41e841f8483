"""Every earlier version of the live card, append-only, and undo / redo over them.

Each write of the live card first records the text it replaces as one new file
`memory/episodic/card-history/<seq>-<YYYYMMDDTHHMMSSZ>-<by>-<hash>.md` (docs/FORMAT.md "Card
history"): `seq` counts up from 1, the time and `by` say when and by what the text was replaced,
`hash` is the first 8 hex digits of the text's SHA-256, and the file holds the text byte for
byte. A version file is only ever created (the write fails with ConflictError if its name is
taken), never changed or removed — except by `forget`, which the user asks for.

Undo and redo are read back from the `by` of each version, replayed in order, so there is no
pointer to keep in step: an ordinary change pushes the replaced version on the undo stack and
clears the redo stack; an undo moves the top of the undo stack to the live card and pushes the
replaced version on the redo stack; a redo does the reverse. A memory from before the history
(only `current-previously.prev.md`) reads that file as its one earlier version; the next write
copies it into the history first, and leaves it where it is.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import StrEnum
from typing import Protocol

from core.errors import ConflictError, DamagedFile
from core.memory.card.diff import LineChange, diff_card_lines, entry_words
from core.memory.owners.registry import by_name
from core.memory.paths import CARD_HISTORY_DIR, EPISODIC, MemoryPath
from core.storage.base import UpdateFn, WriteBatch, prefetch

CARD_PREV = EPISODIC / "current-previously.prev.md"  # the one-level undo copy older memories have
LEGACY_ID = "prev"
HISTORY = by_name("card history")
_NAME_RE = re.compile(r"^(\d{6,})-(\d{8}T\d{6}Z)-([a-z]+)-([0-9a-f]{8})\.md\Z")


class ChangeBy(StrEnum):
    """What replaced a version of the card."""

    USER = "user"  # an entry edited or removed from the page or the CLI
    EVOLUTION = "evolution"  # the card pass after a conversation
    UNDO = "undo"
    REDO = "redo"
    RESTORE = "restore"  # an earlier version brought back from the history
    IMPORT = "import"  # instructions accepted from an export
    REPAIR = "repair"  # converted to the current format, or seeded from a slice snapshot
    EARLIER = "earlier"  # the undo copy from before the history was kept


class Listing(Protocol):
    def read(self, path: MemoryPath) -> str | None: ...

    def list(self, prefix: MemoryPath) -> list[MemoryPath]: ...


@dataclass(frozen=True)
class Version:
    """One earlier card: where its text is, and when and by what it was replaced."""

    path: MemoryPath
    seq: int
    replaced_at: datetime | None  # None for the legacy undo copy
    replaced_by: ChangeBy

    @property
    def id(self) -> str:
        return LEGACY_ID if self.path == CARD_PREV else self.path.name[: -len(".md")]


def _parse(path: MemoryPath) -> Version | None:
    m = _NAME_RE.match(path.name)
    if m is None:
        return None  # not ours (an editor's stray file): left alone, not a version
    try:
        by = ChangeBy(m.group(3))
    except ValueError:
        return None
    at = datetime.strptime(m.group(2), "%Y%m%dT%H%M%SZ").replace(tzinfo=UTC)
    return Version(path, int(m.group(1)), at, by)


def versions(view: Listing) -> list[Version]:
    """Every earlier version, oldest first (the legacy undo copy alone when there is no history)."""
    found = [v for v in (_parse(p) for p in view.list(CARD_HISTORY_DIR)) if v is not None]
    if found:
        return sorted(found, key=lambda v: (v.seq, v.path))
    if view.read(CARD_PREV) is not None:
        return [Version(CARD_PREV, 0, None, ChangeBy.EARLIER)]
    return []


def version_text(view: Listing, version: Version) -> str | None:
    """The version's text exactly as it was (DamagedFile when it cannot be read)."""
    return HISTORY.read(view, version.path)


def find(view: Listing, version_id: str) -> Version | None:
    """The version with this id, or None."""
    return next((v for v in versions(view) if v.id == version_id), None)


@dataclass(frozen=True)
class Stacks:
    """Which versions an undo and a redo would bring back (indices into `versions`, top last)."""

    undo: tuple[int, ...]
    redo: tuple[int, ...]


def stacks(found: Sequence[Version]) -> Stacks:
    """Replay the changes in order (see the module docstring)."""
    undo: list[int] = []
    redo: list[int] = []
    for i, v in enumerate(found):
        if v.replaced_by is ChangeBy.UNDO:
            if undo:
                undo.pop()
            redo.append(i)
        elif v.replaced_by is ChangeBy.REDO:
            if redo:
                redo.pop()
            undo.append(i)
        else:
            undo.append(i)
            redo.clear()
    return Stacks(tuple(undo), tuple(redo))


def _only_new(path: MemoryPath, text: str) -> UpdateFn:
    def apply(current: str | None) -> str:
        if current is not None:
            raise ConflictError(f"{path} already exists; the card changed meanwhile. Reload and try again.")
        return text

    return apply


def _name(seq: int, now: datetime, by: ChangeBy, text: str) -> str:
    stamp = now.astimezone(UTC).strftime("%Y%m%dT%H%M%SZ")
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()[:8]
    return f"{seq:06d}-{stamp}-{by.value}-{digest}.md"


def record(batch: WriteBatch, replaced: str, now: datetime, by: ChangeBy) -> MemoryPath:
    """Queue `replaced` as the newest version (the legacy undo copy first, when it is all there is)."""
    found = versions(batch)
    seq = found[-1].seq if found else 0
    if found and found[-1].path == CARD_PREV:
        legacy = batch.read(CARD_PREV)
        if legacy is not None:
            seq = 1
            path = CARD_HISTORY_DIR / _name(seq, now, ChangeBy.EARLIER, legacy)
            batch.update(path, _only_new(path, legacy))
    path = CARD_HISTORY_DIR / _name(seq + 1, now, by, replaced)
    batch.update(path, _only_new(path, replaced))
    return path


# ------------------------------------------------------------------ the listing the page shows


@dataclass(frozen=True)
class Row:
    """One version as the history view shows it: when and by what it was made, and how it
    differs from the version before it (`None` counts for the oldest one listed without its
    predecessor, or a version that cannot be read)."""

    id: str | None  # None: the live card
    made_at: datetime | None
    made_by: ChangeBy | None
    added: int | None
    removed: int | None
    sample: LineChange | None  # one line that changed: the one-line summary
    readable: bool = True


@dataclass(frozen=True)
class History:
    """The newest versions first (the live card on top), how many there are, and what undo and
    redo would bring back."""

    rows: tuple[Row, ...]
    total: int
    undo_to: str | None
    redo_to: str | None


def undo_redo(view: Listing) -> tuple[bool, bool]:
    """Whether an undo and a redo are possible now (one listing, no version read)."""
    state = stacks(versions(view))
    return bool(state.undo), bool(state.redo)


def _text_or_damaged(view: Listing, version: Version) -> tuple[str | None, bool]:
    try:
        return version_text(view, version), True
    except DamagedFile:
        return None, False


def _row(rid: str | None, made: Version | None, before: str | None, after: str | None, readable: bool) -> Row:
    known = made is not None and made.replaced_by is not ChangeBy.EARLIER
    at = made.replaced_at if known and made is not None else None
    by = made.replaced_by if known and made is not None else None
    if before is None or after is None:
        return Row(rid, at, by, None, None, None, readable)
    lines = diff_card_lines(before, after, limit=10_000)
    added = sum(1 for c in lines if c.type == "added")
    # What the version says now reads best; a change that only removed shows what went.
    first = next((c for c in lines if c.type == "added"), lines[0] if lines else None)
    sample = LineChange(first.type, entry_words(first.text).strip() or first.text) if first else None
    return Row(rid, at, by, added, len(lines) - added, sample, readable)


def history(view: Listing, live: str | None, limit: int) -> History:
    """The live card and the `limit` newest earlier versions, newest first (reads limit + 1 files)."""
    found = versions(view)
    n = len(found)
    state = stacks(found)
    first = max(0, n - limit)
    wanted = found[max(0, first - 1) :]
    prefetch(view, [v.path for v in wanted])
    texts = {v.path: _text_or_damaged(view, v) for v in wanted}
    rows = [_row(None, found[-1] if found else None, texts[found[-1].path][0] if found else None, live, True)]
    for i in range(n - 1, first - 1, -1):
        text, readable = texts[found[i].path]
        before = texts[found[i - 1].path][0] if i > 0 else None
        rows.append(_row(found[i].id, found[i - 1] if i > 0 else None, before, text, readable))
    undo_to = found[state.undo[-1]].id if state.undo else None
    redo_to = found[state.redo[-1]].id if state.redo else None
    return History(tuple(rows), n, undo_to, redo_to)
