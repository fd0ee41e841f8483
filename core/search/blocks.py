"""A segment's postings in the file: sorted terms cut into blocks, each stored as two streams.

A block is `[first term, columns, turns]`. *columns* (zlib, base64) is a 4-byte little-endian
length, then the block's directory — one `term<TAB>form,df,a,b,offset,widths` line per term,
sorted — then the binary columns the lines point at (`core/search/termpart.py`). *turns* (zlib,
base64) holds each term's turn pieces joined by `;`, one line per term in directory order. A
question inflates the columns of the blocks holding its terms; the turns only when a passage is
scored. docs/FORMAT.md "The search index" has the byte layout.
"""

from __future__ import annotations

import base64
import binascii
import zlib
from bisect import bisect_left, bisect_right
from dataclasses import dataclass, field

from core.search.termpart import TermPart, column_bytes, column_of, from_raw, part_columns, part_of_columns

BLOCK_BYTES = 16_000  # uncompressed columns and turns per block: a query inflates few of them
_DAMAGE = (ValueError, zlib.error, binascii.Error, IndexError, UnicodeDecodeError)


def pack(data: bytes) -> str:
    """One stream as the file stores it: zlib, then base64."""
    return base64.b64encode(zlib.compress(data, 6)).decode("ascii")


def unpack(data: str) -> bytes:
    return zlib.decompress(base64.b64decode(data, validate=True))


@dataclass
class RawBlock:
    """One block before compression: directory lines, binary columns, turn lines."""

    lines: list[str] = field(default_factory=list)
    columns: bytearray = field(default_factory=bytearray)
    turns: list[str] = field(default_factory=list)

    def add(self, term: str, part: TermPart, pieces: list[str]) -> None:
        encoded = [column_bytes(col) for col in part_columns(part)]
        a, b = len(part_columns(part)[0]), len(part_columns(part)[2])
        widths = "".join(letter for letter, _ in encoded)
        self.lines.append(f"{term}\t{part.form},{part.df},{a},{b},{len(self.columns)},{widths}")
        for _, data in encoded:
            self.columns += data
        self.turns.append(";".join(pieces))

    def size(self) -> int:
        return sum(map(len, self.lines)) + len(self.columns) + sum(map(len, self.turns))

    def streams(self) -> tuple[bytes, bytes]:
        directory = "\n".join(self.lines).encode("utf-8")
        return len(directory).to_bytes(4, "little") + directory + bytes(self.columns), "\n".join(
            self.turns
        ).encode("utf-8")


def raw_blocks(postings: dict[str, str], n_rows: int) -> list[tuple[str, RawBlock]]:
    """The postings of a segment of `n_rows` slices in term order, cut into blocks of about
    BLOCK_BYTES, each with its first term."""
    out: list[tuple[str, RawBlock]] = []
    block = RawBlock()
    for term in sorted(postings):
        part, pieces = from_raw(postings[term], n_rows)
        if block.lines and block.size() > BLOCK_BYTES:
            out.append((block.lines[0].split("\t", 1)[0], block))
            block = RawBlock()
        block.add(term, part, pieces)
    if block.lines:
        out.append((block.lines[0].split("\t", 1)[0], block))
    return out


class Blocks:
    """A segment file's blocks, each stream inflated on first use."""

    def __init__(self, blocks: list[tuple[str, str, str]]) -> None:
        self.firsts = [f for f, _, _ in blocks]
        self.data = [(c, t) for _, c, t in blocks]
        self.dirs: dict[int, tuple[list[str], bytes]] = {}
        self.turns: dict[int, list[str]] = {}
        self.raw: dict[str, bytes] = {}  # stored stream → its inflated bytes (for `packed`)

    def _dir(self, i: int) -> tuple[list[str], bytes]:
        found = self.dirs.get(i)
        if found is None:
            data = self.raw[self.data[i][0]] = unpack(self.data[i][0])
            size = int.from_bytes(data[:4], "little")
            if len(data) < 4 + size:
                raise ValueError("a postings block shorter than its directory")
            found = self.dirs[i] = (data[4 : 4 + size].decode("utf-8").split("\n"), data[4 + size :])
        return found

    def _turn_lines(self, i: int) -> list[str]:
        found = self.turns.get(i)
        if found is None:
            try:
                data = self.raw[self.data[i][1]] = unpack(self.data[i][1])
                found = data.decode("utf-8").split("\n")
            except _DAMAGE:
                found = []  # damaged turns lose their passages, not the slice stage
            self.turns[i] = found
        return found

    def _part(self, i: int, j: int) -> TermPart:
        lines, payload = self._dir(i)
        form, df, a, b, offset, widths = lines[j].split("\t", 1)[1].split(",")
        at, cols = int(offset), []
        for letter, count in zip(widths, (a, a, b, b), strict=True):
            size = int(count) * {"B": 1, "H": 2, "I": 4}[letter]
            if at + size > len(payload):
                raise ValueError("a posting column past the end of its block")
            cols.append(column_of(letter, payload[at : at + size]))
            at += size
        part = part_of_columns(form, int(df), cols)

        def pieces() -> list[str]:
            turn_lines = self._turn_lines(i)
            return turn_lines[j].split(";") if j < len(turn_lines) and len(turn_lines) == len(lines) else []

        part.load_pieces = pieces
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
