"""One index segment: a run of slices, their turn lengths, and turn-level term postings.

A term's postings are one string (`core/search/postings.py`). `Segment` is the model the
writers change; `encode` stores it as a small readable JSON header, a compressed column table of the
slices, and the postings sorted by term in compressed blocks (`core/search/blocks.py`). A
reader (`SegmentView`) decompresses only the blocks that hold the terms a question asks for,
and finds a term in a block by binary search, so opening an index costs a few JSON parses
rather than decoding every list. The format is in docs/FORMAT.md.
"""

from __future__ import annotations

import binascii
import json
import zlib
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from core.errors import InvalidInput
from core.search import postings as plist
from core.search.blocks import Blocks, raw_blocks
from core.search.blocks import pack as pack_stream
from core.search.blocks import unpack as unpack_stream
from core.search.postings import WINDOW_TURNS
from core.search.reader import SliceText
from core.search.termpart import CountTurns, TermPart, TextTurns, from_raw, starts_of
from core.search.tokenize import TOKENIZER_VERSION, tokenize
from core.storage.base import blob_sha

SEGMENT_SCHEMA = 4
FINGERPRINT_LEN = 16
SEGMENT_KIND = "previously.search.segment"
_STATS = ("slices", "head_tokens", "turn_tokens", "passages", "passage_tokens")
_COLUMNS = ("ids", "start", "tz", "status", "fp", "roles", "head", "body", "lens")


@dataclass
class DocMeta:
    """What the engine knows about an indexed slice without its text."""

    slice_id: str
    start: str
    timezone: str
    status: str
    fingerprint: str
    roles: str
    head_len: int
    turn_lens: list[int]


@dataclass
class DocTerms:
    """An analysed slice: its metadata and term → its encoded entry (`postings.encode_doc`).

    Entries are kept encoded: a segment is built by joining strings, and a split or removal
    moves them between segments without parsing a count.
    """

    meta: DocMeta
    terms: dict[str, plist.Entry]


def fingerprint(text: str) -> str:
    """A short content hash of a core.md: a changed file is re-indexed, an unchanged one is not.

    The prefix of the file's git blob sha, so a refresh can compare it with the version the
    storage lists (free on GitHub) without reading the file.
    """
    return blob_sha(text)[:FINGERPRINT_LEN]


def analyze(st: SliceText, fp: str) -> DocTerms:
    """Tokenize a slice's head and turns into a document."""
    terms: dict[str, list[tuple[int, int]]] = {}
    head = tokenize(st.head)
    for term, tf in Counter(head).items():
        terms[term] = [(0, tf)]
    lens = []
    for n, turn in enumerate(st.turns, start=1):
        toks = tokenize(turn.content)
        lens.append(len(toks))
        for term, tf in Counter(toks).items():
            hits = terms.get(term)
            if hits is None:
                terms[term] = [(n, tf)]
            else:
                hits.append((n, tf))
    roles = "".join((t.role[:1] or "?") for t in st.turns)
    meta = DocMeta(st.slice_id, st.start, st.timezone, st.status, fp, roles, len(head), lens)
    n_turns = len(lens)
    return DocTerms(meta, {term: plist.encode_doc(hits, n_turns) for term, hits in terms.items()})


def window_stats(turn_lens: list[int]) -> tuple[int, int]:
    """(number of passages, their summed lengths) for a slice with these turn lengths."""
    n = len(turn_lens)
    if n <= WINDOW_TURNS:
        return 1, sum(turn_lens)
    windows = n - WINDOW_TURNS + 1
    # Turn j lies in as many passages as there are window starts that cover it.
    total = sum(x * min(j + 1, WINDOW_TURNS, n - j, windows) for j, x in enumerate(turn_lens))
    return windows, total


@dataclass(frozen=True)
class Stats:
    """Length totals the ranking needs (integers, so every way of adding them up agrees)."""

    docs: int = 0
    head: int = 0
    body: int = 0
    windows: int = 0
    window_len: int = 0

    @classmethod
    def of(cls, head_len: int, turn_lens: list[int]) -> Stats:
        windows, window_len = window_stats(turn_lens)
        return cls(1, head_len, sum(turn_lens), windows, window_len)

    def __add__(self, other: Stats) -> Stats:
        return Stats(*(a + b for a, b in zip(self.row(), other.row(), strict=True)))

    def __sub__(self, other: Stats) -> Stats:
        return Stats(*(a - b for a, b in zip(self.row(), other.row(), strict=True)))

    def row(self) -> list[int]:
        return [self.docs, self.head, self.body, self.windows, self.window_len]

    def to_dict(self) -> dict[str, int]:
        return dict(zip(_STATS, self.row(), strict=True))

    @classmethod
    def from_dict(cls, data: dict[str, object]) -> Stats:
        return cls(*(int(data[name]) for name in _STATS))  # type: ignore[call-overload]


@dataclass
class Segment:
    """A run of indexed slices (in insertion order) and their postings."""

    name: str
    docs: list[DocMeta] = field(default_factory=list)
    postings: dict[str, str] = field(default_factory=dict)
    # The file text this segment was read from or last encoded to (None after a change).
    text: str | None = field(default=None, repr=False, compare=False)
    # Compressed streams of the file it was read from, by their raw bytes: a block a change did
    # not touch is not compressed again (zlib gives the same bytes for the same input).
    packed: dict[bytes, str] = field(default_factory=dict, repr=False, compare=False)

    def ids(self) -> list[str]:
        return [d.slice_id for d in self.docs]

    def explode(self) -> list[DocTerms]:
        """Every document with its terms again (for removals and splits; reads every list)."""
        per_doc: list[dict[str, plist.Entry]] = [{} for _ in self.docs]
        for term, raw in self.postings.items():
            for pos, entry in plist.entries(raw):
                per_doc[pos][term] = entry
        return [DocTerms(meta, terms) for meta, terms in zip(self.docs, per_doc, strict=True)]

    @classmethod
    def build(cls, name: str, docs: list[DocTerms]) -> Segment:
        """A segment holding `docs` in the given order (each list is joined once, not grown)."""
        rows: dict[str, list[str]] = {}
        pieces: dict[str, list[str]] = {}
        for pos, doc in enumerate(docs):
            for term, (summary, piece) in doc.terms.items():
                row = f"{pos},{summary}"
                if term in rows:
                    rows[term].append(row)
                    pieces[term].append(piece)
                else:
                    rows[term], pieces[term] = [row], [piece]
        postings = {term: plist.join(rows[term], pieces[term]) for term in rows}
        return cls(name, [d.meta for d in docs], postings)

    def append(self, doc: DocTerms) -> None:
        """Add a document that is not in the segment yet."""
        pos = len(self.docs)
        self.text = None
        self.docs.append(doc.meta)
        for term, (summary, piece) in doc.terms.items():
            self.postings[term] = plist.append(self.postings.get(term), f"{pos},{summary}", piece)

    def upsert(self, doc: DocTerms) -> Segment:
        """This segment with `doc` added, or replacing the document with the same slice id."""
        if doc.meta.slice_id not in self.ids():
            out = Segment(self.name, list(self.docs), dict(self.postings), packed=self.packed)
            out.append(doc)
            return out
        kept = [d for d in self.explode() if d.meta.slice_id != doc.meta.slice_id]
        out = Segment.build(self.name, [*kept, doc])
        out.packed = self.packed
        return out

    def without(self, slice_ids: set[str]) -> Segment:
        """This segment minus the given slices."""
        if not slice_ids & set(self.ids()):
            return self
        out = Segment.build(self.name, [d for d in self.explode() if d.meta.slice_id not in slice_ids])
        out.packed = self.packed
        return out

    def stats(self) -> Stats:
        """Length totals over every slice of the segment."""
        total = Stats()
        for d in self.docs:
            total = total + Stats.of(d.head_len, d.turn_lens)
        return total

    def encode(self) -> str:
        """The file text: a readable header, the column table and the postings blocks."""
        if self.text is None:
            self.text = self._encode()
        return self.text

    def _encode(self) -> str:
        ids = sorted(self.ids())
        blocks = []
        for first, block in raw_blocks(self.postings, [len(d.turn_lens) for d in self.docs]):
            columns, turns = block.streams()
            stored = [self.packed.get(columns) or _pack(columns), self.packed.get(turns) or _pack(turns)]
            blocks.append([first, *stored])
        header = {
            "_schema": SEGMENT_SCHEMA,
            "kind": SEGMENT_KIND,
            "tokenizer": TOKENIZER_VERSION,
            "name": self.name,
            "slices": len(ids),
            "first": ids[0] if ids else None,
            "last": ids[-1] if ids else None,
            "stats": self.stats().to_dict(),
            "encoding": "zlib+base64",
            "docs": _pack(
                json.dumps(_columns(self.docs), ensure_ascii=False, separators=(",", ":")).encode("utf-8")
            ),
            "blocks": blocks,
        }
        return json.dumps(header, ensure_ascii=False, indent=1) + "\n"

    @classmethod
    def decode(cls, text: str) -> Segment:
        """Parse a whole segment file; InvalidInput when it is not one this version can read."""
        view = SegmentView.decode(text)
        blocks = view.blocks
        postings: dict[str, str] = {}
        try:
            for i in range(len(blocks) if blocks is not None else 0):
                postings.update(blocks.block_items(i))  # type: ignore[union-attr]
        except ValueError as exc:
            raise InvalidInput(f"Unreadable search segment ({exc}); rebuild the index.") from exc
        packed = blocks.packed() if blocks is not None else {}
        return cls(view.name, view.metas(), postings, text, packed)


def _pack(data: bytes) -> str:
    return pack_stream(data)


def _unpack(data: str) -> str:
    return unpack_stream(data).decode("utf-8")


def _columns(docs: list[DocMeta]) -> dict[str, list[object]]:
    return {
        "ids": [d.slice_id for d in docs],
        "start": [d.start for d in docs],
        "tz": [d.timezone for d in docs],
        "status": [d.status for d in docs],
        "fp": [d.fingerprint for d in docs],
        "roles": [d.roles for d in docs],
        "head": [d.head_len for d in docs],
        "body": [sum(d.turn_lens) for d in docs],
        "lens": [",".join(map(str, d.turn_lens)) for d in docs],
    }


@dataclass
class SegmentView:
    """A segment as the query side reads it: column lists and postings looked up on demand."""

    name: str
    columns: dict[str, list[Any]]
    stats: Stats
    lookup: Callable[[str], TermPart | None]
    blocks: Blocks | None = None  # a file's blocks (None for a segment held in memory)

    def __len__(self) -> int:
        return len(self.columns["ids"])

    @classmethod
    def of(cls, seg: Segment) -> SegmentView:
        """A view of a segment held in memory (nothing to decompress)."""
        postings, turns_per_row = seg.postings, [len(d.turn_lens) for d in seg.docs]

        def lookup(term: str) -> TermPart | None:
            raw = postings.get(term)
            if not raw:
                return None
            part, turns = from_raw(raw, turns_per_row)
            if isinstance(turns, bytes):
                part.turns = CountTurns(lambda: turns, starts_of(turns_per_row))
            else:
                part.turns = TextTurns(lambda: turns, len(part.bodies))
            return part.seal()

        return cls(seg.name, _columns(seg.docs), seg.stats(), lookup)

    @classmethod
    def decode(cls, text: str) -> SegmentView:
        """Parse the header and the column table; postings blocks stay compressed until asked for."""
        try:
            header = json.loads(text)
            if not isinstance(header, dict) or header.get("kind") != SEGMENT_KIND:
                raise ValueError("not a search segment")
            if header.get("_schema") != SEGMENT_SCHEMA:
                raise ValueError(f"segment schema {header.get('_schema')!r}")
            if header.get("tokenizer") != TOKENIZER_VERSION:
                raise ValueError(f"built by tokenizer {header.get('tokenizer')!r}")
            columns = json.loads(_unpack(header["docs"]))
            if sorted(columns) != sorted(_COLUMNS) or len({len(columns[c]) for c in _COLUMNS}) != 1:
                raise ValueError("the slice table is malformed")
            turns_per_row = [len(str(roles)) for roles in columns["roles"]]
            blocks = Blocks([(str(f), str(c), str(t)) for f, c, t in header["blocks"]], turns_per_row)
            stats = Stats.from_dict(header["stats"])
        except (ValueError, KeyError, TypeError, zlib.error, binascii.Error) as exc:
            raise InvalidInput(f"Unreadable search segment ({exc}); rebuild the index.") from exc
        return cls(str(header.get("name") or ""), columns, stats, blocks.lookup, blocks)

    def metas(self) -> list[DocMeta]:
        """The slice table as DocMeta rows (for writers)."""
        rows = zip(*(self.columns[name] for name in _COLUMNS), strict=True)
        return [
            DocMeta(sid, start, tz, status, fp, roles, int(head), _ints(lens))
            for sid, start, tz, status, fp, roles, head, _body, lens in rows
        ]


def _ints(raw: str) -> list[int]:
    return list(map(int, raw.split(","))) if raw else []
