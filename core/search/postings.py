"""A term's postings in one segment: a summary row per slice, and the turns apart.

Stored as one string `SUMMARY<TAB>TURNS`. SUMMARY is comma-separated integers, four per slice
holding the term: the slice's row in the segment, the term's count in the head (focus,
summary, tags, loops, decisions), its count in the turns, and how many passages (runs of
`WINDOW_TURNS` turns) contain it. TURNS has one piece per summary row, in the same order,
separated by `;`: `turn,count,turn,count…` (turns numbered from 1). Ranking every slice needs
only the summary; the turns are parsed for the few slices whose passages are scored.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

WINDOW_TURNS = 3  # a passage is this many consecutive turns (the question, its answer, a follow-up)

Hits = list[tuple[int, int]]  # (turn number, 0 = head; count)


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


def encode_doc(pos: int, hits: Hits, n_turns: int) -> tuple[str, str]:
    """The summary row and the turns piece of one slice's hits for a term."""
    if len(hits) == 1:  # most terms of a slice sit in one turn: skip the lists
        turn, tf = hits[0]
        if turn == 0:
            return f"{pos},{tf},0,0", ""
        return f"{pos},0,{tf},{windows_with((turn - 1,), n_turns)}", f"{turn},{tf}"
    head = body = 0
    pairs: list[str] = []
    turns: list[int] = []
    for turn, tf in hits:
        if turn == 0:
            head += tf
        else:
            body += tf
            pairs.append(f"{turn},{tf}")
            turns.append(turn - 1)
    return f"{pos},{head},{body},{windows_with(turns, n_turns)}", ",".join(pairs)


def join(rows: list[str], pieces: list[str]) -> str:
    """One stored posting string from summary rows and their turn pieces."""
    return ",".join(rows) + "\t" + ";".join(pieces)


def append(old: str | None, row: str, piece: str) -> str:
    """A posting string with one more slice at the end."""
    if not old:
        return join([row], [piece])
    rows, _, pieces = old.partition("\t")
    return f"{rows},{row}\t{pieces};{piece}"


def decode(raw: str) -> list[tuple[int, Hits]]:
    """(slice row, hits with the head first) for every slice in a posting string."""
    rows, _, pieces = raw.partition("\t")
    nums = [int(x) for x in rows.split(",")]
    out = []
    for k, piece in enumerate(pieces.split(";")):
        pos, head = nums[4 * k], nums[4 * k + 1]
        hits: Hits = [(0, head)] if head else []
        if piece:
            pair = [int(x) for x in piece.split(",")]
            hits += list(zip(pair[0::2], pair[1::2], strict=True))
        out.append((pos, hits))
    return out


@dataclass
class TermPostings:
    """Where one term occurs across the corpus: per document its head and turn counts."""

    heads: dict[int, int] = field(default_factory=dict)
    bodies: dict[int, int] = field(default_factory=dict)
    pieces: dict[int, str] = field(default_factory=dict)
    window_df: int = 0  # passages holding the term, over all documents

    def __len__(self) -> int:
        return len(self.bodies)

    def __contains__(self, doc: object) -> bool:
        return doc in self.bodies

    def add(self, raw: str, base: int, alive: list[bool]) -> None:
        """Add one segment's posting string; `base` is its first document number."""
        rows, _, pieces = raw.partition("\t")
        nums = list(map(int, rows.split(",")))
        for pos, head, body, wins, piece in zip(
            nums[0::4], nums[1::4], nums[2::4], nums[3::4], pieces.split(";"), strict=False
        ):
            doc = base + pos
            if alive[doc]:
                self.heads[doc] = head
                self.bodies[doc] = body
                self.pieces[doc] = piece
                self.window_df += wins

    def turns(self, doc: int) -> dict[int, int]:
        """Turn (0-based) → count for one document (empty when it is only in the head)."""
        piece = self.pieces.get(doc)
        if not piece:
            return {}
        nums = list(map(int, piece.split(",")))
        return dict(zip((t - 1 for t in nums[0::2]), nums[1::2], strict=True))
