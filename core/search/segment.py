"""One index segment: a run of slices, their turn lengths, and turn-level term postings.

A posting list is one string of comma-separated integers, three per posting: the slice's
position in the segment, the turn number (0 = the slice's head: focus, summary, tags, loops,
decisions; 1… = turns) and the term frequency there. Strings keep loading cheap: a query
parses only the lists of its own terms. On disk a segment is a small JSON header plus the
body as zlib-compressed, base64-encoded JSON (the index is derived data, rebuilt at will).
"""

from __future__ import annotations

import base64
import hashlib
import json
import zlib
from collections import Counter
from dataclasses import dataclass, field

from core.errors import InvalidInput
from core.search.reader import SliceText
from core.search.tokenize import TOKENIZER_VERSION, tokenize

SEGMENT_SCHEMA = 1
SEGMENT_KIND = "previously.search.segment"


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

    def row(self) -> list[object]:
        return [
            self.slice_id,
            self.start,
            self.timezone,
            self.status,
            self.fingerprint,
            self.roles,
            self.head_len,
            self.turn_lens,
        ]

    @classmethod
    def from_row(cls, row: list[object]) -> DocMeta:
        sid, start, tz, status, fp, roles, head_len, lens = row
        return cls(str(sid), str(start), str(tz), str(status), str(fp), str(roles), int(head_len), list(lens))  # type: ignore[call-overload]


@dataclass
class DocTerms:
    """An analysed slice: its metadata and term → [(turn number, tf)]."""

    meta: DocMeta
    terms: dict[str, list[tuple[int, int]]]


def fingerprint(text: str) -> str:
    """A short content hash of a core.md: a changed file is re-indexed, an unchanged one is not."""
    return hashlib.sha1(text.encode("utf-8")).hexdigest()[:16]


def analyze(st: SliceText, fp: str) -> DocTerms:
    """Tokenize a slice's head and turns into a document."""
    terms: dict[str, list[tuple[int, int]]] = {}
    head = tokenize(st.head)
    for term, tf in Counter(head).items():
        terms.setdefault(term, []).append((0, tf))
    lens = []
    for n, turn in enumerate(st.turns, start=1):
        toks = tokenize(turn.content)
        lens.append(len(toks))
        for term, tf in Counter(toks).items():
            terms.setdefault(term, []).append((n, tf))
    roles = "".join((t.role[:1] or "?") for t in st.turns)
    meta = DocMeta(st.slice_id, st.start, st.timezone, st.status, fp, roles, len(head), lens)
    return DocTerms(meta, terms)


@dataclass
class Segment:
    """A run of indexed slices (in insertion order) and their postings."""

    name: str
    docs: list[DocMeta] = field(default_factory=list)
    postings: dict[str, str] = field(default_factory=dict)
    # The file text this segment was read from or last encoded to (None after a change).
    text: str | None = field(default=None, repr=False, compare=False)

    def ids(self) -> list[str]:
        return [d.slice_id for d in self.docs]

    def explode(self) -> list[DocTerms]:
        """Every document with its terms again (for removals and splits; reads every list)."""
        per_doc: list[dict[str, list[tuple[int, int]]]] = [{} for _ in self.docs]
        for term, raw in self.postings.items():
            nums = [int(x) for x in raw.split(",")]
            for i in range(0, len(nums), 3):
                per_doc[nums[i]].setdefault(term, []).append((nums[i + 1], nums[i + 2]))
        return [DocTerms(meta, terms) for meta, terms in zip(self.docs, per_doc, strict=True)]

    @classmethod
    def build(cls, name: str, docs: list[DocTerms]) -> Segment:
        """A segment holding `docs` in the given order."""
        seg = cls(name)
        for doc in docs:
            seg.append(doc)
        return seg

    def append(self, doc: DocTerms) -> None:
        """Add a document that is not in the segment yet."""
        pos = len(self.docs)
        self.text = None
        self.docs.append(doc.meta)
        for term, hits in doc.terms.items():
            chunk = ",".join(f"{pos},{turn},{tf}" for turn, tf in hits)
            old = self.postings.get(term)
            self.postings[term] = f"{old},{chunk}" if old else chunk

    def upsert(self, doc: DocTerms) -> Segment:
        """This segment with `doc` added, or replacing the document with the same slice id."""
        if doc.meta.slice_id not in self.ids():
            out = Segment(self.name, list(self.docs), dict(self.postings))
            out.append(doc)
            return out
        kept = [d for d in self.explode() if d.meta.slice_id != doc.meta.slice_id]
        return Segment.build(self.name, [*kept, doc])

    def without(self, slice_ids: set[str]) -> Segment:
        """This segment minus the given slices."""
        if not slice_ids & set(self.ids()):
            return self
        return Segment.build(self.name, [d for d in self.explode() if d.meta.slice_id not in slice_ids])

    def encode(self) -> str:
        """The file text: a readable header and the compressed body."""
        if self.text is None:
            self.text = self._encode()
        return self.text

    def _encode(self) -> str:
        body = json.dumps(
            {"docs": [d.row() for d in self.docs], "postings": self.postings},
            ensure_ascii=False,
            separators=(",", ":"),
            sort_keys=True,
        )
        data = base64.b64encode(zlib.compress(body.encode("utf-8"), 6)).decode("ascii")
        ids = sorted(self.ids())
        header = {
            "_schema": SEGMENT_SCHEMA,
            "kind": SEGMENT_KIND,
            "tokenizer": TOKENIZER_VERSION,
            "name": self.name,
            "slices": len(ids),
            "first": ids[0] if ids else None,
            "last": ids[-1] if ids else None,
            "encoding": "zlib+base64",
            "data": data,
        }
        return json.dumps(header, indent=1) + "\n"

    @classmethod
    def decode(cls, text: str) -> Segment:
        """Parse a segment file; InvalidInput when it is not one this version can read."""
        try:
            header = json.loads(text)
            if header.get("kind") != SEGMENT_KIND or header.get("_schema") != SEGMENT_SCHEMA:
                raise ValueError("not a search segment of this schema")
            if header.get("tokenizer") != TOKENIZER_VERSION:
                raise ValueError(f"built by tokenizer {header.get('tokenizer')!r}")
            body = json.loads(zlib.decompress(base64.b64decode(header["data"])).decode("utf-8"))
            docs = [DocMeta.from_row(r) for r in body["docs"]]
            postings = {str(k): str(v) for k, v in body["postings"].items()}
        except (ValueError, KeyError, TypeError, zlib.error) as exc:
            raise InvalidInput(f"Unreadable search segment ({exc}); rebuild the index.") from exc
        return cls(str(header.get("name") or ""), docs, postings, text)
