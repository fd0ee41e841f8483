"""Read slices for indexing: find every core.md in a snapshot and pull out the searchable text.

`read_slice` never raises on a damaged file: broken YAML leaves the frontmatter fields empty
and the turns are still indexed.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from core.errors import SliceFormatError
from core.memory.paths import SLICES, MemoryPath, PathClass, PathKind, classify
from core.memory.slice.model import Slice, Turn, parse_core_md, salvage_turns
from core.memory.slice.slicer import FALLBACK_MARK, deterministic_mark


class Readable(Protocol):
    """What indexing needs from storage: a Snapshot or a WriteBatch (read-your-writes)."""

    def read(self, path: MemoryPath) -> str | None: ...

    def list(self, prefix: MemoryPath) -> list[MemoryPath]: ...


@dataclass
class TurnText:
    """One turn's role, timestamp and text."""

    role: str
    timestamp: str
    content: str


@dataclass
class SliceText:
    """The parts of a slice the index reads.

    Not a `Slice`: it holds the words to search, not the record — the deterministic mark is
    taken out of focus and summary (`_own_words`), loops and decisions are one `notes` list, and
    a slice with broken YAML still has its turns here (the frontmatter fields left empty).
    """

    slice_id: str
    start: str = ""
    timezone: str = "UTC"
    status: str = "active"
    focus: str = ""
    summary: str = ""
    tags: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    turns: list[TurnText] = field(default_factory=list)

    @property
    def head(self) -> str:
        """Focus, summary, tags, open loops and decisions: what the slice says about itself."""
        return "\n".join(p for p in (self.focus, self.summary, *self.tags, *self.notes) if p)


def slice_paths(
    snapshot: Readable,
    prefixes: Sequence[MemoryPath] = (SLICES,),
    known: dict[MemoryPath, PathClass] | None = None,
    closed: Collection[str] = (),
) -> dict[str, MemoryPath]:
    """Slice id → its core.md (or legacy flat `HHMM.md`) for every slice under `prefixes`.

    `known` remembers what each path is across calls (a process that lists the same folders
    again: core/search/warm.py). `closed`: slices the caller takes from elsewhere (the stored
    index holds them as closed); a reader that lists one folder at a time (`Browsable`, a
    local folder) does not enter their folders, so they may be left out of the answer.
    """
    found: dict[str, MemoryPath] = {}
    legacy: dict[str, MemoryPath] = {}
    browse = getattr(snapshot, "entries", None) if closed else None
    if browse is None:
        listed: Iterable[MemoryPath] = (p for prefix in prefixes for p in snapshot.list(prefix))
    else:
        listed = (p for prefix in prefixes for p in _browse(browse, prefix, closed))
    for path in listed:
        kind = known.get(path) if known is not None else None
        if kind is None:
            kind = classify(path)
            if known is not None:
                known[path] = kind
        if kind.slice_id is None:
            continue
        if kind.kind is PathKind.CORE_MD:
            found[kind.slice_id.dash] = path
        elif kind.kind is PathKind.LEGACY_FLAT:
            legacy[kind.slice_id.dash] = path
    for sid, path in legacy.items():
        found.setdefault(sid, path)
    return found


def _browse(
    entries: Callable[[MemoryPath], tuple[Sequence[MemoryPath], Sequence[MemoryPath]]],
    prefix: MemoryPath,
    closed: Collection[str],
) -> list[MemoryPath]:
    """Every file below `prefix` but those in the folders of `closed` slices (`YYYY/MM/DD/HHMM`
    under the slices root): a day folder costs its own entries, a closed slice nothing."""
    under = f"{SLICES.value}/"
    start = len(under)
    prune = prefix.value.startswith(under) or prefix == SLICES
    files: list[MemoryPath] = []
    stack = [prefix]
    while stack:
        folders, here = entries(stack.pop())
        files.extend(here)
        for sub in folders:
            rel = sub.value[start:]
            if prune and rel.count("/") == 3 and rel.replace("/", "-") in closed:
                continue
            stack.append(sub)
    return files


def read_slice(slice_id: str, text: str) -> SliceText:
    """The searchable parts of one core.md (read with the slice format's own parser)."""
    try:
        parsed = parse_core_md(text)
    except SliceFormatError:
        # Broken YAML: keep the turns searchable, leave the frontmatter fields empty.
        return SliceText(slice_id, turns=_turns(salvage_turns(text)))
    focus, summary = _own_words(parsed)
    return SliceText(
        slice_id=slice_id,
        start=parsed.start,
        timezone=parsed.timezone or "UTC",
        status=parsed.status or "active",
        focus=focus,
        summary=summary,
        tags=[t for t in parsed.tags if t],
        notes=[n for n in (*parsed.open_loops, *parsed.decisions) if n],
        turns=_turns(parsed.turns),
    )


def _own_words(parsed: Slice) -> tuple[str, str]:
    """Focus and summary, minus what the deterministic mark wrote.

    That mark is made from the turns ("Opened with: <the first line>", "18 turns; topics: …"):
    as head text it would count the first line twice over and put the same boilerplate in
    every slice. A focus or summary a model or the user wrote is kept.
    """
    if parsed.marked_by != FALLBACK_MARK:
        return parsed.focus, parsed.summary
    marks = [deterministic_mark(parsed.turns, parsed.tags, locale) for locale in ("en", "zh")]
    focus = "" if parsed.focus in {m.focus for m in marks} else parsed.focus
    summary = "" if parsed.summary in {m.summary for m in marks} else parsed.summary
    return focus, summary


def _turns(turns: list[Turn]) -> list[TurnText]:
    return [TurnText(t.role, t.timestamp, t.content) for t in turns]
