"""A term's postings in one segment: a summary row per slice, and the turns apart.

In memory (what the writers join, split and append) a term's postings are one string
`SUMMARY<TAB>TURNS`. SUMMARY is comma-separated integers, four per slice holding the term:
the slice's row in the segment, the term's count in the head (focus, summary, tags, loops,
decisions), its count in the turns, and how many passages (runs of `WINDOW_TURNS` turns)
contain it. TURNS has one piece per summary row, in the same order, separated by `;`: either
`turn,count,turn,count…` (turns numbered from 1) or, for a term in more than half the slice's
turns, `=` and one character per turn whose code point minus 64 is the count (`@` = 0,
`A` = 1, …), which a reader turns into numbers without a Python loop.

In the file (`pack` / `unpack`) SUMMARY is stored as four columns of binary integers in
base64, so a reader gets a term's rows with one decode instead of parsing thousands of
numbers. Ranking every slice needs only the summary; the turns are parsed for the few slices
whose passages are scored.
"""

from __future__ import annotations

import base64
import binascii
import sys
from array import array
from bisect import bisect_left
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from itertools import repeat
from operator import add
from typing import TypeVar

WINDOW_TURNS = 3  # a passage is this many consecutive turns (the question, its answer, a follow-up)

Hits = list[tuple[int, int]]  # (turn number, 0 = head; count)
T = TypeVar("T")
Entry = tuple[str, str]  # ("head,turns,passages" counts, turns piece): one slice's postings for a term

_DENSE = "="  # marks a piece with one character per turn
_ZERO = 64  # code point of a zero count in a dense piece ("@"): above every separator
_MAX_DENSE = 255 - _ZERO  # counts up to this fit one latin-1 byte
# byte → count, for bytes.translate; anything below "@" (a damaged piece) counts 0
_SHIFT = bytes(max(0, i - _ZERO) for i in range(256))
# Binary columns: 16-bit when every value fits, else 32-bit; little-endian in the file.
_WIDTHS = {"h": "H", "i": next(code for code in "ILQ" if array(code).itemsize == 4)}


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
    if not turns:
        return summary, ""
    if n_turns < 2 * len(turns) and turns[-1] < n_turns and max(counts) <= _MAX_DENSE:
        dense = [0] * n_turns
        for j, tf in zip(turns, counts, strict=True):
            dense[j] = tf
        return summary, _DENSE + "".join(chr(_ZERO + tf) for tf in dense)
    return summary, ",".join(f"{j + 1},{tf}" for j, tf in zip(turns, counts, strict=True))


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


def _column_bytes(values: list[int]) -> tuple[str, bytes]:
    width = "h" if max(values, default=0) < 1 << 16 else "i"
    arr = array(_WIDTHS[width], values)
    if sys.byteorder != "little":
        arr.byteswap()
    return width, arr.tobytes()


def _columns_of(packed: str) -> list[int]:
    """The integers of a packed summary; ValueError when it is not one."""
    code = _WIDTHS.get(packed[:1])
    if code is None:
        raise ValueError("not a packed posting summary")
    arr = array(code)
    try:
        arr.frombytes(base64.b64decode(packed[1:], validate=True))
    except binascii.Error as exc:
        raise ValueError(str(exc)) from exc
    if sys.byteorder != "little":
        arr.byteswap()
    return arr.tolist()


def pack(raw: str) -> str:
    """The file form of a posting string: the summary as base64 binary columns.

    Column-major (all rows, then all head counts, turn counts, passages), 16-bit little-endian
    when every value fits (`h` prefix), else 32-bit (`i`).
    """
    rows, _, pieces = raw.partition("\t")
    nums = list(map(int, rows.split(",")))
    width, data = _column_bytes(nums[0::4] + nums[1::4] + nums[2::4] + nums[3::4])
    return f"{width}{base64.b64encode(data).decode('ascii')}\t{pieces}"


def unpack(stored: str) -> str:
    """The in-memory posting string of a file form (`pack` reversed); ValueError when damaged."""
    packed, _, pieces = stored.partition("\t")
    cols = _columns_of(packed)
    k = len(cols) // 4
    rows = zip(cols[:k], cols[k : 2 * k], cols[2 * k : 3 * k], cols[3 * k :], strict=True)
    return ",".join(f"{p},{h},{b},{w}" for p, h, b, w in rows) + "\t" + pieces


def _extended(column: Sequence[T], more: Sequence[T]) -> list[T]:
    """`column` with `more` at its end (in place when it is still a list)."""
    out: list[T] = column if isinstance(column, list) else list(column)
    out.extend(more)
    return out


@dataclass
class TermPostings:
    """Where one term occurs across the corpus, as columns in ascending document order.

    Columns rather than per-document dicts: ranking walks them whole, and a document is found
    by bisection. `weights` caches the term's slice-stage score per document (set by the engine,
    which owns the formula), so a term asked for again costs a sum, not a rescoring; `dense`
    holds a common term's weights by document number, to be added as one column.

    A corpus `seal`s the columns it caches: counts as arrays, which hold no objects for the
    garbage collector to walk, documents and pieces as tuples, which it stops tracking after one
    pass. Cached lists of 10,000 slices made every later collection walk them (a 22 ms pause in
    one question at 10,000 slices, docs/RECALL.md).
    """

    docs: Sequence[int] = field(default_factory=list)
    heads: Sequence[int] = field(default_factory=list)
    bodies: Sequence[int] = field(default_factory=list)
    pieces: Sequence[str] = field(default_factory=list)
    window_df: int = 0  # passages holding the term, over all documents
    weights: Sequence[float] | None = field(default=None, repr=False)
    dense: Sequence[float] | None = field(default=None, repr=False)  # weights by document number

    def __len__(self) -> int:
        return len(self.docs)

    def __contains__(self, doc: object) -> bool:
        return isinstance(doc, int) and self._at(doc) is not None

    def _at(self, doc: int) -> int | None:
        i = bisect_left(self.docs, doc)
        return i if i < len(self.docs) and self.docs[i] == doc else None

    def add(self, stored: str, base: int, dead: set[int]) -> None:
        """Add one segment's postings in their file form (`pack`); `base` is the segment's first
        document number, `dead` the documents to leave out. Segments must come in document order.
        A damaged summary loses this segment's share of the term (ValueError is not raised).
        """
        packed, _, pieces = stored.partition("\t")
        try:
            cols = _columns_of(packed)
        except ValueError:
            return
        split = pieces.split(";")
        k = min(len(cols) // 4, len(split))  # a damaged string: keep the rows that have their turns
        n = len(cols) // 4
        docs = list(map(add, cols[:k], repeat(base)))
        heads, bodies, wins = cols[n : n + k], cols[2 * n : 2 * n + k], cols[3 * n : 3 * n + k]
        split = split[:k]
        if dead and not dead.isdisjoint(docs):
            keep = [i for i, doc in enumerate(docs) if doc not in dead]
            docs, split = [docs[i] for i in keep], [split[i] for i in keep]
            heads, bodies, wins = ([col[i] for i in keep] for col in (heads, bodies, wins))
        self.docs = _extended(self.docs, docs)
        self.heads = _extended(self.heads, heads)
        self.bodies = _extended(self.bodies, bodies)
        self.pieces = _extended(self.pieces, split)
        self.window_df += sum(wins)

    def seal(self) -> None:
        """Freeze the columns for caching (no garbage-collector walks; see the class)."""
        self.docs, self.heads, self.bodies = tuple(self.docs), array("l", self.heads), array("l", self.bodies)
        self.pieces = tuple(self.pieces)

    def turn_counts(self, doc: int, n_turns: int) -> list[int] | None:
        """The term's count in each of a document's `n_turns` turns (None when no turn holds it)."""
        i = self._at(doc)
        piece = self.pieces[i] if i is not None else ""
        return piece_counts(piece, n_turns) if piece else None
