"""A segment's postings in the file: sorted terms cut into blocks, each stored as two streams.

A block is `[first term, columns, turns]`, both streams base64 of zlib. *columns* is a 4-byte
little-endian length, then the block's directory — one
`term<TAB>form,df,a,b,offset,widths,kind,turns offset,turns length` line per term, sorted — then
the binary columns the lines point at (`core/search/termpart.py`). *turns* holds each term's
turns where its line says: its pieces as `;`-joined text, or one count byte per turn of every
row. A question inflates the columns of the blocks holding its terms, and the turns only when a
passage is scored. docs/FORMAT.md "The search index" has the byte layout.
"""

from __future__ import annotations

import base64
import binascii
import zlib
from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from dataclasses import dataclass, field

from core.search.termpart import (
    BY_ROW,
    CountTurns,
    TermPart,
    TextTurns,
    column_bytes,
    column_of,
    from_raw,
    part_columns,
    part_of_columns,
    starts_of,
)

TEXT, COUNTS = "t", "c"  # a term's turns: pieces as text, or one count byte per turn of every row
BLOCK_BYTES = 16_000  # uncompressed columns and turns per block: a query inflates few of them
_DAMAGE = (ValueError, zlib.error, binascii.Error, IndexError, UnicodeDecodeError)


def pack(data: bytes) -> str:
    """One stream as the file stores it: zlib, then base64."""
    return base64.b64encode(zlib.compress(data, 6)).decode("ascii")


def unpack(data: str) -> bytes:
    """`pack` reversed; binascii.Error or zlib.error when damaged. (Strict base64 without the
    regular-expression check `b64decode(validate=True)` runs first: half the time.)"""
    return zlib.decompress(binascii.a2b_base64(data, strict_mode=True))


@dataclass
class RawBlock:
    """One block before compression: directory lines, binary columns, turns."""

    lines: list[str] = field(default_factory=list)
    columns: bytearray = field(default_factory=bytearray)
    turns: bytearray = field(default_factory=bytearray)

    def add(self, term: str, part: TermPart, turns: list[str] | bytes) -> None:
        cols = part_columns(part)
        encoded = [column_bytes(col) for col in cols]
        widths = "".join(letter for letter, _ in encoded)
        kind, data = (COUNTS, turns) if isinstance(turns, bytes) else (TEXT, ";".join(turns).encode("utf-8"))
        place = f"{len(self.columns)},{widths},{kind},{len(self.turns)},{len(data)}"
        self.lines.append(f"{term}\t{part.form},{part.df},{len(cols[0])},{len(cols[2])},{place}")
        for _, column in encoded:
            self.columns += column
        self.turns += data

    def size(self) -> int:
        return sum(map(len, self.lines)) + len(self.columns) + len(self.turns)

    def streams(self) -> tuple[bytes, bytes]:
        directory = "\n".join(self.lines).encode("utf-8")
        return len(directory).to_bytes(4, "little") + directory + bytes(self.columns), bytes(self.turns)


def raw_blocks(postings: dict[str, str], turns_per_row: list[int]) -> list[tuple[str, RawBlock]]:
    """The postings of a segment whose rows have these turn counts, in term order, cut into
    blocks of about BLOCK_BYTES, each with its first term."""
    out: list[tuple[str, RawBlock]] = []
    block = RawBlock()
    for term in sorted(postings):
        part, turns = from_raw(postings[term], turns_per_row)
        if block.lines and block.size() > BLOCK_BYTES:
            out.append((block.lines[0].split("\t", 1)[0], block))
            block = RawBlock()
        block.add(term, part, turns)
    if block.lines:
        out.append((block.lines[0].split("\t", 1)[0], block))
    return out


class Blocks:
    """A segment file's blocks, each stream inflated on first use; `turns_per_row` is the slice
    table's turn count of each row (where a by-row term's turn counts lie)."""

    def __init__(self, blocks: list[tuple[str, str, str]], turns_per_row: Sequence[int]) -> None:
        self.firsts = [f for f, _, _ in blocks]
        self.data = [(c, t) for _, c, t in blocks]
        self.turns_per_row = turns_per_row
        self.dirs: dict[int, tuple[list[str], bytes]] = {}
        self.turns: dict[int, bytes] = {}
        self.raw: dict[str, bytes] = {}  # stored stream → its inflated bytes (for `packed`)
        self._starts: list[int] | None = None

    def starts(self) -> list[int]:
        if self._starts is None:
            self._starts = starts_of(self.turns_per_row)
        return self._starts

    def _dir(self, i: int) -> tuple[list[str], bytes]:
        found = self.dirs.get(i)
        if found is None:
            data = self.raw[self.data[i][0]] = unpack(self.data[i][0])
            size = int.from_bytes(data[:4], "little")
            if len(data) < 4 + size:
                raise ValueError("a postings block shorter than its directory")
            found = self.dirs[i] = (data[4 : 4 + size].decode("utf-8").split("\n"), data[4 + size :])
        return found

    def _turns(self, i: int) -> bytes:
        """Block `i`'s turns; ValueError when damaged (a part then loses its passages only)."""
        found = self.turns.get(i)
        if found is None:
            try:
                found = self.raw[self.data[i][1]] = unpack(self.data[i][1])
            except _DAMAGE as exc:
                raise ValueError(f"postings block {i}: unreadable turns") from exc
            self.turns[i] = found
        return found

    def _part(self, i: int, j: int) -> TermPart:
        lines, payload = self._dir(i)
        form, df, a, b, offset, widths, kind, t_at, t_len = lines[j].split("\t", 1)[1].split(",")
        at, cols = int(offset), []
        for letter, count in zip(widths, (a, a, b, b), strict=True):
            size = int(count) * {"B": 1, "H": 2, "I": 4}[letter]
            if at + size > len(payload):
                raise ValueError("a posting column past the end of its block")
            cols.append(column_of(letter, payload[at : at + size]))
            at += size
        part = part_of_columns(form, int(df), cols)
        start, end = int(t_at), int(t_at) + int(t_len)

        def data() -> bytes:
            turns = self._turns(i)
            if end > len(turns):
                raise ValueError("turns past the end of their block")
            return turns[start:end]

        if kind == COUNTS and form == BY_ROW:
            part.turns = CountTurns(data, self.starts())
        elif kind == TEXT:
            part.turns = TextTurns(lambda: data().decode("utf-8").split(";"), len(part.bodies))
        else:
            raise ValueError(f"turns kind {kind!r}")
        return part

    def lookup(self, term: str) -> TermPart | None:
        """The term's postings in this segment; None when absent or its block is damaged."""
        i = bisect_right(self.firsts, term) - 1
        if i < 0:
            return None
        try:
            lines, _ = self._dir(i)
            key = term + "\t"
            j = bisect_left(lines, key)
            if j < len(lines) and lines[j].startswith(key):
                return self._part(i, j)
        except (*_DAMAGE, KeyError):
            return None  # a damaged block loses its terms, not the whole answer
        return None

    def block_items(self, i: int) -> list[tuple[str, str]]:
        """(term, writers' posting string) of every term in block `i`; ValueError when damaged."""
        try:
            lines, _ = self._dir(i)
            out = []
            for j, line in enumerate(lines):
                out.append((line.split("\t", 1)[0], self._part(i, j).to_raw()))
        except (*_DAMAGE, KeyError) as exc:
            raise ValueError(f"postings block {i}: {exc}") from exc
        return out

    def packed(self) -> dict[bytes, str]:
        """Each stream inflated so far → its stored form: an unchanged block is not compressed
        again when the segment is written back (zlib gives the same bytes for the same input)."""
        return {raw: stored for stored, raw in self.raw.items()}

    def __len__(self) -> int:
        return len(self.data)
