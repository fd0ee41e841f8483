"""One term's postings in one segment as the file stores them: binary columns, turns apart.

The writers hold a term's postings as one string (`core/search/postings.py`). The file keeps
what the slice stage needs — which slices hold the term and its head, turn and passage counts —
as four little-endian integer columns that a reader turns into arrays with `frombytes` (no
per-number Python work), and the term's turns (needed only for the passages of a few candidate
slices) apart, read only when a passage asks for them.

A term in at least a quarter of a segment's slices is stored *by row*: its turn and passage
counts for every slice of the segment (0 where it is absent), then the rows whose head holds it
and those head counts. A query lays such a column out by document number with one slice
assignment, and its turns are one count byte per turn of every row, read by position. A rarer
term is stored *sparse*: its rows, then its head, turn and passage counts, and its turn pieces
as text.
"""

from __future__ import annotations

import sys
from array import array
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from itertools import accumulate
from operator import lt, or_

from core.search.postings import piece_counts, pieces_of_rows, rows_bytes

BY_ROW = "d"
SPARSE = "s"
BY_ROW_SHARE = 4  # by row when the term is in at least 1/BY_ROW_SHARE of the segment's slices
_I32 = next(code for code in "ILQ" if array(code).itemsize == 4)
_ITEM = {"B": 1, "H": 2, _I32: 4}
_CODE = {"B": "B", "H": "H", "I": _I32}  # file letter → array typecode


def _width(values: Sequence[int]) -> str:
    top = max(values, default=0)
    return "B" if top < 1 << 8 else "H" if top < 1 << 16 else "I"


def column_bytes(values: Sequence[int]) -> tuple[str, bytes]:
    """(file letter, little-endian bytes) of a column of non-negative integers."""
    letter = _width(values)
    arr = array(_CODE[letter], values)
    if sys.byteorder != "little":
        arr.byteswap()
    return letter, arr.tobytes()


def column_of(letter: str, data: bytes | memoryview) -> array[int]:
    """The column stored as `letter` in `data`; ValueError when it is not one."""
    code = _CODE.get(letter)
    if code is None or len(data) % _ITEM[code]:
        raise ValueError("not a posting column")
    arr = array(code)
    arr.frombytes(data)
    if sys.byteorder != "little":
        arr.byteswap()
    return arr


@dataclass
class TextTurns:
    """Turn pieces as text (`postings.piece_counts`): one per slice holding the term (sparse) or
    per row (by row, empty where absent), split on first use."""

    load: Callable[[], list[str]]
    size: int  # how many pieces there must be
    _pieces: tuple[str, ...] | None = field(default=None, repr=False)

    def _all(self) -> tuple[str, ...]:
        if self._pieces is None:
            try:
                found = self.load()
            except ValueError:
                found = []
            # A tuple: the garbage collector stops walking it. Pieces that do not match the rows
            # are damage: the passages are lost, the slice stage keeps its counts.
            self._pieces = tuple(found) if len(found) == self.size else ()
        return self._pieces

    def counts(self, at: int, n_turns: int) -> list[int] | None:
        pieces = self._all()
        piece = pieces[at] if at < len(pieces) else ""
        return piece_counts(piece, n_turns) if piece else None

    def pieces(self) -> list[str]:
        found = self.load()
        if len(found) != self.size:
            raise ValueError("the turn pieces do not match the posting rows")
        return found


@dataclass
class CountTurns:
    """A by-row term's count in every turn of every row, one byte each, rows one after another
    (`starts[r]` is where row r's turns begin: the slice table's turn counts added up)."""

    load: Callable[[], bytes]
    starts: Sequence[int]
    _data: bytes | None = field(default=None, repr=False)

    def _bytes(self) -> bytes:
        if self._data is None:
            try:
                found = self.load()
            except ValueError:
                found = b""
            self._data = found if len(found) == self.starts[-1] else b""
        return self._data

    def counts(self, row: int, n_turns: int) -> list[int] | None:
        data = self._bytes()
        if not data or row + 1 >= len(self.starts):
            return None
        counts = list(data[self.starts[row] : self.starts[row + 1]])
        if not any(counts):
            return None
        return counts if len(counts) == n_turns else (counts + [0] * n_turns)[:n_turns]

    def pieces(self) -> list[str]:
        data = self.load()
        if len(data) != self.starts[-1]:
            raise ValueError("the turn counts do not match the slice table")
        return pieces_of_rows(data, self.starts)


Turns = TextTurns | CountTurns


def _no_turns() -> list[str]:
    return []


@dataclass
class TermPart:
    """One term in one segment: `form` SPARSE (`rows`, `heads`, `bodies`, `wins`, one per slice
    holding the term) or BY_ROW (`bodies`, `wins` for every row; `rows`, `heads` for the rows
    whose head holds it), and its turns, read only when a passage asks for them.
    """

    form: str
    df: int
    rows: Sequence[int]
    heads: Sequence[int]
    bodies: Sequence[int]
    wins: Sequence[int]
    turns: Turns = field(default_factory=lambda: TextTurns(_no_turns, 0), repr=False, compare=False)

    def counts(self, at: int, n_turns: int) -> list[int] | None:
        """The term's count in each turn of the slice at `at` in the columns (None: in no turn)."""
        return self.turns.counts(at, n_turns)

    def seal(self) -> TermPart:
        """This part with its columns as arrays (for caching: arrays hold no objects)."""
        self.rows, self.heads, self.bodies, self.wins = (
            col if isinstance(col, array) else array("q", col)
            for col in (self.rows, self.heads, self.bodies, self.wins)
        )
        return self

    def present_rows(self) -> list[int]:
        """The segment rows that hold the term, ascending."""
        if self.form == SPARSE:
            return list(self.rows)
        in_turns = [r for r, b in enumerate(self.bodies) if b]
        if not self.rows:
            return in_turns
        return sorted(set(in_turns).union(self.rows))

    def to_raw(self) -> str:
        """The writers' posting string (`postings.join`); ValueError when the turns are unreadable."""
        pieces = self.turns.pieces()
        if len(pieces) != len(self.bodies):
            raise ValueError("the turn pieces do not match the posting rows")
        if self.form == SPARSE:
            rows, heads, bodies, wins = self.rows, self.heads, self.bodies, self.wins
        else:
            rows = self.present_rows()
            head_of = dict(zip(self.rows, self.heads, strict=True))
            heads = [head_of.get(r, 0) for r in rows]
            bodies, wins = [self.bodies[r] for r in rows], [self.wins[r] for r in rows]
            pieces = [pieces[r] for r in rows]
        cells = ",".join(f"{p},{h},{b},{w}" for p, h, b, w in zip(rows, heads, bodies, wins, strict=True))
        return cells + "\t" + ";".join(pieces)


def starts_of(turns_per_row: Sequence[int]) -> list[int]:
    """Where each row's turns begin in a by-row term's counts, and where the last one ends."""
    return list(accumulate(turns_per_row, initial=0))


def from_raw(raw: str, turns_per_row: Sequence[int]) -> tuple[TermPart, list[str] | bytes]:
    """A writers' posting string in a segment whose rows have these turn counts, as its file form,
    and its turns: text pieces (one per slice holding the term, or per row), or for a term stored
    by row whose pieces its counts give back exactly, one count byte per turn of every row."""
    n_rows = len(turns_per_row)
    cells, _, joined = raw.partition("\t")
    nums = list(map(int, cells.split(",")))
    rows, heads, bodies, wins = nums[0::4], nums[1::4], nums[2::4], nums[3::4]
    pieces = joined.split(";")
    df = len(rows)
    if BY_ROW_SHARE * df < n_rows or not _fits_by_row(rows, heads, bodies, n_rows):
        return TermPart(SPARSE, df, rows, heads, bodies, wins), pieces
    by_body, by_win, by_piece = [0] * n_rows, [0] * n_rows, [""] * n_rows
    for r, b, w, piece in zip(rows, bodies, wins, pieces, strict=True):
        by_body[r], by_win[r], by_piece[r] = b, w, piece
    head_rows = [r for r, h in zip(rows, heads, strict=True) if h]
    head_counts = [h for h in heads if h]
    part = TermPart(BY_ROW, df, head_rows, head_counts, by_body, by_win)
    return part, rows_bytes(by_piece, starts_of(turns_per_row)) or by_piece


def _fits_by_row(rows: list[int], heads: list[int], bodies: list[int], n_rows: int) -> bool:
    """Whether the by-row form gives these postings back exactly: distinct ascending rows inside
    the segment, each holding the term in its head or turns."""
    ascending = all(map(lt, rows, rows[1:]))
    return bool(rows) and ascending and rows[0] >= 0 and rows[-1] < n_rows and all(map(or_, heads, bodies))


def part_columns(part: TermPart) -> list[Sequence[int]]:
    """The four columns in file order: sparse rows, heads, bodies, wins; by row bodies, wins,
    head rows, heads."""
    if part.form == SPARSE:
        return [part.rows, part.heads, part.bodies, part.wins]
    return [part.bodies, part.wins, part.rows, part.heads]


def part_of_columns(form: str, df: int, cols: list[array[int]]) -> TermPart:
    """A part from its four file columns (`part_columns` reversed); ValueError when they disagree."""
    if form == SPARSE:
        rows, heads, bodies, wins = cols
        if not len(rows) == len(heads) == len(bodies) == len(wins) == df:
            raise ValueError("sparse posting columns of different lengths")
    elif form == BY_ROW:
        bodies, wins, rows, heads = cols
        if len(bodies) != len(wins) or len(rows) != len(heads) or any(r >= len(bodies) for r in rows[-1:]):
            raise ValueError("by-row posting columns of different lengths")
    else:
        raise ValueError(f"posting form {form!r}")
    return TermPart(form, df, rows, heads, bodies, wins)
