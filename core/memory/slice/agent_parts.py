"""agent.md in parts: a slice's cognition log never loses an entry to the file size cap.

A file is capped (core/storage/paths.py, 1 MB). The log is `timeline/agent.md`, then, once that
is full, `timeline/agent-2.md`, `timeline/agent-3.md` … — an entry is appended to the highest
part when it fits there, else it starts the next part. An entry too large for a part of its own
is cut into pieces, each the sole content of a new part: the first under the entry's header,
the others under `## Cognition <id> — <time> (continued)`. Bodies are escaped
(core/memory/formats/escape.py), so no piece holds a `## Cognition ` mark and any character
boundary is a safe cut; reading joins the pieces' raw text, then unescapes and trims it, which
gives the body exactly as an uncut entry would.

Readers list the slice's timeline folder (a part emptied by forgetting is deleted, so numbers
may have gaps); an unreadable part is skipped by readers and never written again.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from core.errors import ConflictError
from core.memory import paths
from core.memory.damage import Listing, read_or_skip
from core.memory.formats.escape import escape_cognition, unescape_cognition
from core.memory.slice.agent_md import append_cognition, remove_cognition
from core.storage.base import UpdateFn, WriteBatch
from core.storage.paths import MAX_FILE_BYTES, MemoryPath
from core.text import js_trim, js_trim_end

_PART_RE = re.compile(r"^agent(?:-([1-9]\d{0,5}))?\.md\Z")
_ENTRY_RE = re.compile("(?:\\A|(?<=[\n\r\u2028\u2029]))## Cognition ")
CONTINUED = "(continued)"
# Left free in every part: the separator before an entry, and slack for a header's growth.
SLACK_BYTES = 64


def part_path(slice_id: str, n: int) -> MemoryPath:
    """Part `n` of the slice's log: `timeline/agent.md` for 1, `timeline/agent-<n>.md` after."""
    if n == 1:
        return paths.agent_md(slice_id)
    return paths.slice_dir(slice_id) / f"timeline/agent-{n}.md"


def part_number(name: str) -> int | None:
    """The part number of a file name in a slice's timeline folder (None: not a log part)."""
    m = _PART_RE.match(name)
    if m is None:
        return None
    return int(m.group(1)) if m.group(1) else 1


@dataclass(frozen=True)
class Part:
    """One part file: its number, path, and text (None when it could not be read)."""

    number: int
    path: MemoryPath
    text: str | None


@dataclass(frozen=True)
class Entry:
    """One entry as stored: its header label (after `## Cognition `) and its raw body."""

    label: str
    body: str

    def is_for(self, turn_id: str) -> bool:
        return self.label == turn_id or self.label.startswith(turn_id + " ")

    @property
    def continued(self) -> bool:
        return self.label.endswith(" " + CONTINUED)


def read_parts(reader: Listing, slice_id: str) -> list[Part]:
    """Every part of the slice's log, in order (a damaged part with text None)."""
    found: list[tuple[int, MemoryPath]] = []
    for path in reader.list(paths.slice_dir(slice_id) / "timeline"):
        n = part_number(path.name)
        if n is not None and path == part_path(slice_id, n):
            found.append((n, path))
    # A part over the cap or not UTF-8 reads as None: `check` names it; it stays as it is.
    return [Part(n, path, read_or_skip(reader, path)) for n, path in sorted(found)]


def entries_of(text: str) -> list[Entry]:
    """The entries of one part, in order (text above the first entry is not an entry)."""
    starts = [m.start() for m in _ENTRY_RE.finditer(text)]
    out = []
    for i, start in enumerate(starts):
        end = starts[i + 1] if i + 1 < len(starts) else len(text)
        line_end = text.find("\n", start, end)
        header_end = end if line_end == -1 else line_end
        out.append(Entry(text[start + len("## Cognition ") : header_end], text[header_end + 1 : end]))
    return out


def log_text(parts: list[Part]) -> str:
    """The whole log as one text (for the tools that show it): readable parts, in order."""
    texts = [p.text for p in parts if p.text and p.text.strip()]
    return "\n\n".join([*(js_trim_end(t) for t in texts[:-1]), *texts[-1:]])


def cognition_in(parts: list[Part], turn_id: str) -> str | None:
    """The body of the first entry for `turn_id`, its pieces joined, unescaped and trimmed."""
    found = entries_for(parts, turn_id)
    return found[0].body if found else None


def entries_for(parts: list[Part], turn_id: str) -> list[Entry]:
    """Every entry for `turn_id`, in order, each with its pieces joined, unescaped and trimmed."""
    entries = [e for p in parts if p.text for e in entries_of(p.text)]
    out = []
    for i, entry in enumerate(entries):
        if entry.is_for(turn_id) and not entry.continued:
            pieces = [entry.body]
            for later in entries[i + 1 :]:
                if not (later.is_for(turn_id) and later.continued):
                    break
                pieces.append(later.body)
            out.append(Entry(entry.label, js_trim(unescape_cognition("".join(pieces)))))
    return out


def has_entry(parts: list[Part], turn_id: str) -> bool:
    return any(e.is_for(turn_id) for p in parts if p.text for e in entries_of(p.text))


def queue_entry(batch: WriteBatch, slice_id: str, header: str, body: str, *, once_for: str | None) -> bool:
    """Queue one entry (`header` is its label, `body` as written: escaped here); False when
    `once_for` names a turn the log already has an entry for (nothing queued)."""
    parts = read_parts(batch, slice_id)
    if once_for is not None and has_entry(parts, once_for):
        return False
    stored = escape_cognition(body)
    entry = f"## Cognition {header}\n{stored}"
    last = parts[-1] if parts else None
    if last is not None and last.text is not None and _fits(append_cognition(last.text, entry)):
        batch.update(last.path, _append(entry, once_for))
        return True
    n = last.number + 1 if last is not None else 1
    pieces = _pieces(header, stored)
    for k, piece in enumerate(pieces):
        label = header if k == 0 else f"{header} {CONTINUED}"
        alone = len(pieces) > 1  # a piece of a cut entry must be its part's only content
        batch.update(part_path(slice_id, n + k), _append(f"## Cognition {label}\n{piece}", once_for, alone))
    return True


def queue_removal(batch: WriteBatch, slice_id: str, turn_id: str) -> bool:
    """Queue every part without the turn's entries (a part left empty is deleted); whether any had one."""
    found = False
    for part in read_parts(batch, slice_id):
        if part.text is None:
            continue
        left = remove_cognition(part.text, turn_id)
        if left == part.text:
            continue
        found = True
        if left.strip():
            batch.put(part.path, left)
        else:
            batch.delete(part.path)
    return found


def _fits(text: str) -> bool:
    return len(text.encode("utf-8")) <= MAX_FILE_BYTES - SLACK_BYTES


def _append(entry: str, once_for: str | None, alone: bool = False) -> UpdateFn:
    """Append `entry` to the part as it is at commit time; a part filled (or, for a piece that
    must be `alone`, started) meanwhile by another writer is a conflict: the retry reads the
    parts again and picks the next one."""

    def apply(current: str | None) -> str | None:
        if once_for is not None and current and any(e.is_for(once_for) for e in entries_of(current)):
            return None
        text = append_cognition(current, entry)
        if not _fits(text) or (alone and current is not None and current.strip()):
            raise ConflictError("An agent log part filled up while this entry was written; writing it again.")
        return text

    return apply


def _pieces(header: str, stored: str) -> list[str]:
    """`stored` cut so that each piece, under its header, fills at most one part (cuts fall
    between two characters, never inside one)."""
    room = MAX_FILE_BYTES - SLACK_BYTES - len(f"## Cognition {header} {CONTINUED}\n".encode())
    data = stored.encode("utf-8")
    pieces: list[str] = []
    start = 0
    while len(data) - start > room:
        end = start + room
        while data[end] & 0xC0 == 0x80:  # a UTF-8 continuation byte: back off to the character start
            end -= 1
        pieces.append(data[start:end].decode("utf-8"))
        start = end
    pieces.append(data[start:].decode("utf-8"))
    return pieces
