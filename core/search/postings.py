"""A term's postings in one segment: a summary row per slice, and the turns apart.

Stored as one string `SUMMARY<TAB>TURNS`. SUMMARY is comma-separated integers, four per slice
holding the term: the slice's row in the segment, the term's count in the head (focus,
summary, tags, loops, decisions), its count in the turns, and how many passages (runs of
`WINDOW_TURNS` turns) contain it. TURNS has one piece per summary row, in the same order,
separated by `;`: either `turn,count,turn,count…` (turns numbered from 1) or, for a term in
more than half the slice's turns, `=count,count,…` with one count per turn (shorter, and parsed
without a loop). Ranking every slice needs only the summary; the turns are parsed for the few
slices whose passages are scored.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass, field
from operator import add

WINDOW_TURNS = 3  # a passage is this many consecutive turns (the question, its answer, a follow-up)

Hits = list[tuple[int, int]]  # (turn number, 0 = head; count)
Entry = tuple[str, str]  # ("head,turns,passages" counts, turns piece): one slice's postings for a term


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
    sums = values[:n]
    for shift in range(1, WINDOW_TURNS):
        sums = list(map(add, sums, values[shift : shift + n]))
    return sums


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
    if n_turns < 2 * len(turns) and turns[-1] < n_turns:
        # In most turns: one count per turn is shorter than pairs, and parses without a loop.
        dense = [0] * n_turns
        for j, tf in zip(turns, counts, strict=True):
            dense[j] = tf
        return summary, "=" + ",".join(map(str, dense))
    return summary, ",".join(f"{j + 1},{tf}" for j, tf in zip(turns, counts, strict=True))


def join(rows: list[str], pieces: list[str]) -> str:
    """One stored posting string from summary rows (`row,summary`) and their turn pieces."""
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


def hits_of(entry: Entry) -> Hits:
    """The (turn number, count) pairs an entry stands for, the head (turn 0) first."""
    summary, piece = entry
    head = int(summary.split(",", 1)[0])
    hits: Hits = [(0, head)] if head else []
    if piece.startswith("="):
        hits += [(j, tf) for j, tf in enumerate(map(int, piece[1:].split(",")), start=1) if tf]
    elif piece:
        nums = [int(x) for x in piece.split(",")]
        hits += list(zip(nums[0::2], nums[1::2], strict=True))
    return hits


@dataclass
class TermPostings:
    """Where one term occurs across the corpus, as columns in ascending document order.

        Columns rather than per-document dicts: ranking walks them whole, and a document is found
        by bisection. `weights` caches the term's slice-stage score per document (set by the engine,
        which owns the formula), so a term asked for again costs a sum, not a rescoring; a common
    term's weights are also kept `dense`, by document number, to be added as one column.
    """

    docs: list[int] = field(default_factory=list)
    heads: list[int] = field(default_factory=list)
    bodies: list[int] = field(default_factory=list)
    pieces: list[str] = field(default_factory=list)
    window_df: int = 0  # passages holding the term, over all documents
    weights: list[float] | None = field(default=None, repr=False)
    dense: list[float] | None = field(default=None, repr=False)  # weights by document number

    def __len__(self) -> int:
        return len(self.docs)

    def __contains__(self, doc: object) -> bool:
        return isinstance(doc, int) and self._at(doc) is not None

    def _at(self, doc: int) -> int | None:
        i = bisect_left(self.docs, doc)
        return i if i < len(self.docs) and self.docs[i] == doc else None

    def add(self, raw: str, base: int, dead: set[int]) -> None:
        """Add one segment's posting string; `base` is its first document number, `dead` hidden docs.

        Segments must be added in document order (each one's numbers above the last's).
        """
        rows, _, pieces = raw.partition("\t")
        nums = list(map(int, rows.split(",")))
        docs = [base + pos for pos in nums[0::4]]
        split = pieces.split(";")
        if dead and not dead.isdisjoint(docs):
            keep = [i for i, doc in enumerate(docs) if doc not in dead]
            docs = [docs[i] for i in keep]
            nums = [x for i in keep for x in nums[4 * i : 4 * i + 4]]
            split = [split[i] for i in keep]
        if len(split) < len(docs):  # a damaged string: keep the rows that have their turns
            docs, nums = docs[: len(split)], nums[: 4 * len(split)]
        self.docs += docs
        self.heads += nums[1::4]
        self.bodies += nums[2::4]
        self.pieces += split[: len(docs)]
        self.window_df += sum(nums[3::4])

    def turn_counts(self, doc: int, n_turns: int) -> list[int] | None:
        """The term's count in each of a document's `n_turns` turns (None when no turn holds it)."""
        i = self._at(doc)
        piece = self.pieces[i] if i is not None else ""
        if not piece:
            return None
        if piece[0] == "=":
            counts = list(map(int, piece[1:].split(",")))
            if len(counts) != n_turns:  # a slice table and postings that disagree: trust the table
                counts = (counts + [0] * n_turns)[:n_turns]
            return counts
        nums = list(map(int, piece.split(",")))
        counts = [0] * n_turns
        for turn, tf in zip(nums[0::2], nums[1::2], strict=True):
            if 0 < turn <= n_turns:
                counts[turn - 1] = tf
        return counts
