"""A term's postings in one segment: a summary row per slice, and the turns apart.

In memory (what the writers join, split and append) a term's postings are one string
`SUMMARY<TAB>TURNS`. SUMMARY is comma-separated integers, four per slice holding the term:
the slice's row in the segment, the term's count in the head (focus, summary, tags, loops,
decisions), its count in the turns, and how many passages (runs of `WINDOW_TURNS` turns)
contain it. TURNS has one piece per summary row, in the same order, separated by `;`: either
`turn,count,turn,count…` (turns numbered from 1) or, for a term in more than half the slice's
turns, `=` and one character per turn whose code point minus 64 is the count (`@` = 0,
`A` = 1, …), which a reader turns into numbers without a Python loop.

The file stores the summary as binary columns and the turns apart (`core/search/termpart.py`):
ranking every slice needs only the summary; the turns are parsed for the few slices whose
passages are scored.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import repeat
from operator import add, sub

WINDOW_TURNS = 3  # a passage is this many consecutive turns (the question, its answer, a follow-up)

Hits = list[tuple[int, int]]  # (turn number, 0 = head; count)
Entry = tuple[str, str]  # ("head,turns,passages" counts, turns piece): one slice's postings for a term

_DENSE = "="  # marks a piece with one character per turn
_ZERO = 64  # code point of a zero count in a dense piece ("@"): above every separator
_MAX_DENSE = 255 - _ZERO  # counts up to this fit one latin-1 byte
# byte → count, for bytes.translate; anything below "@" (a damaged piece) counts 0
_SHIFT = bytes(max(0, i - _ZERO) for i in range(256))
_UNSHIFT = bytes((i + _ZERO) % 256 for i in range(256))  # count → its dense character (up to 191)


def windows_with(turns: Sequence[int], n_turns: int) -> int:
    """How many passages of an `n_turns`-turn slice contain one of `turns` (0-based, ascending)."""
    last = max(0, n_turns - WINDOW_TURNS)
    count, covered = 0, -1
    for j in turns:
        lo, hi = max(0, j - WINDOW_TURNS + 1, covered + 1), min(j, last)
        if hi >= lo:
            count += hi - lo + 1
            covered = hi
    return count


def window_sums(values: list[int]) -> list[int]:
    """The sum over each passage's turns, in passage order (one passage for a short slice)."""
    if len(values) <= WINDOW_TURNS:
        return [sum(values)]
    # Shifted copies added element-wise: a few C-level passes instead of a Python loop.
    n = len(values) - WINDOW_TURNS + 1
    sums: Iterable[int] = values[:n]
    for shift in range(1, WINDOW_TURNS):
        sums = map(add, sums, values[shift : shift + n])
    return list(sums)


def encode_doc(hits: Hits, n_turns: int) -> Entry:
    """One slice's entry for a term: its summary (without the row) and its turns piece."""
    head = body = 0
    turns: list[int] = []
    counts: list[int] = []
    for turn, tf in hits:
        if turn == 0:
            head += tf
        else:
            body += tf
            turns.append(turn - 1)
            counts.append(tf)
    summary = f"{head},{body},{windows_with(turns, n_turns)}"
    if turns and turns[-1] < n_turns:
        dense = [0] * n_turns
        for j, tf in zip(turns, counts, strict=True):
            dense[j] = tf
        return summary, piece_of(dense)
    return summary, ",".join(f"{j + 1},{tf}" for j, tf in zip(turns, counts, strict=True))


def piece_of(counts: Sequence[int]) -> str:
    """The turns piece of a slice whose turns hold the term this many times each (`piece_counts`
    reversed for every piece `encode_doc` writes)."""
    try:
        data = counts if isinstance(counts, bytes) else bytes(counts)
    except ValueError:  # a count past one byte: the pairs form
        return ",".join(f"{j + 1},{tf}" for j, tf in enumerate(counts) if tf)
    held = len(data) - data.count(0)
    if not held:
        return ""
    if len(data) < 2 * held and max(data) <= _MAX_DENSE:
        return _DENSE + data.translate(_UNSHIFT).decode("latin-1")  # chr(64 + count) per turn
    return ",".join([f"{j},{tf}" for j, tf in enumerate(data, start=1) if tf])


def pieces_of_rows(data: bytes, starts: Sequence[int]) -> list[str]:
    """`piece_of` for each row of one-byte turn counts (row r's are `data[starts[r]:starts[r+1]]`),
    with the dense pieces cut from one translation of the whole."""
    text = data.translate(_UNSHIFT).decode("latin-1")
    small = max(data, default=0) <= _MAX_DENSE
    begins, ends = starts[:-1], starts[1:]
    zeros = map(data.count, repeat(0), begins, ends)
    return [
        "" if z == b - a else _DENSE + text[a:b] if small and b - a > 2 * z else piece_of(data[a:b])
        for a, b, z in zip(begins, ends, zeros, strict=True)
    ]


def rows_bytes(pieces: list[str], starts: Sequence[int]) -> bytes | None:
    """Each row's piece as one count byte per turn (`pieces_of_rows` reversed), or None when the
    pieces would not come back exactly from those bytes (a count past 191, a piece the writer
    did not make) or most of them are turn/count pairs."""
    if 2 * sum(1 for piece in pieces if piece[:1] == _DENSE) < len(pieces) - pieces.count(""):
        return None  # mostly pairs: the text is as quick to read, and far quicker to write
    sizes = map(sub, starts[1:], starts[:-1])
    chunks = [p[1:] if p[:1] == _DENSE else _dense_text(p, n) for p, n in zip(pieces, sizes, strict=True)]
    if None in chunks:
        return None
    try:
        data = "".join(chunks).encode("latin-1").translate(_SHIFT)  # type: ignore[arg-type]
    except UnicodeEncodeError:
        return None
    if len(data) != starts[-1] or pieces_of_rows(data, starts) != pieces:
        return None
    return data


def _dense_text(piece: str, n_turns: int) -> str | None:
    """The dense characters of a pairs (or empty) piece; None when a count does not fit one."""
    counts = piece_counts(piece, n_turns)
    if max(counts, default=0) > _MAX_DENSE:
        return None
    return bytes(counts).translate(_UNSHIFT).decode("latin-1")


def join(rows: list[str], pieces: list[str]) -> str:
    """One posting string from summary rows (`row,summary`) and their turn pieces."""
    return ",".join(rows) + "\t" + ";".join(pieces)


def append(old: str | None, row: str, piece: str) -> str:
    """A posting string with one more slice at the end."""
    if not old:
        return join([row], [piece])
    rows, _, pieces = old.partition("\t")
    return f"{rows},{row}\t{pieces};{piece}"


def entries(raw: str) -> list[tuple[int, Entry]]:
    """(slice row, entry) for every slice in a posting string, without parsing the counts."""
    rows, _, pieces = raw.partition("\t")
    cells = rows.split(",")
    return [
        (int(cells[4 * k]), (",".join(cells[4 * k + 1 : 4 * k + 4]), piece))
        for k, piece in enumerate(pieces.split(";"))
    ]


def piece_counts(piece: str, n_turns: int) -> list[int]:
    """The count in each of a slice's `n_turns` turns that a turns piece stands for."""
    if piece.startswith(_DENSE):
        counts = list(piece[1:].encode("latin-1", "replace").translate(_SHIFT))
        if len(counts) != n_turns:  # a slice table and postings that disagree: trust the table
            counts = (counts + [0] * n_turns)[:n_turns]
        return counts
    counts = [0] * n_turns
    try:
        nums = list(map(int, piece.split(","))) if piece else []
    except ValueError:
        return counts  # a damaged piece: the slice keeps its summary, loses its passages
    for turn, tf in zip(nums[0::2], nums[1::2], strict=False):
        if 0 < turn <= n_turns:
            counts[turn - 1] = max(0, tf)
    return counts


def hits_of(entry: Entry, n_turns: int) -> Hits:
    """The (turn number, count) pairs an entry stands for, the head (turn 0) first."""
    summary, piece = entry
    head = int(summary.split(",", 1)[0])
    hits: Hits = [(0, head)] if head else []
    return hits + [(j, tf) for j, tf in enumerate(piece_counts(piece, n_turns), start=1) if tf]
