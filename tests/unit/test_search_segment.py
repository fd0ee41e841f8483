"""The segment file: round trips, blocks looked up on demand, damage, and what opening reads."""

from __future__ import annotations

import json
from itertools import pairwise

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.clock import FixedClock
from core.errors import InvalidInput
from core.memory.paths import SLICES, MemoryPath, core_md
from core.search import blocks as blocks_mod
from core.search.blocks import Blocks, RawBlock
from core.search.postings import hits_of, join
from core.search.reader import read_slice
from core.search.recall import open_index, refresh_index, tail_prefixes
from core.search.segment import Segment, SegmentView, Stats, analyze, fingerprint, window_stats
from core.search.termpart import BY_ROW, SPARSE, CountTurns, from_raw
from core.search.termpostings import TermPostings
from core.storage.base import WriteBatch
from core.storage.memory import InMemoryStorage
from tests.fakes.slices import SAMPLE, slice_text, storage_with

pytestmark = pytest.mark.unit

CLOCK = FixedClock.at("2026-08-11T11:15:00Z")


def sample_segment() -> Segment:
    docs = [analyze(read_slice(sid, text), fingerprint(text)) for sid, text in sorted(SAMPLE.items())]
    return Segment.build("0001", docs)


def test_a_segment_round_trips_through_its_file(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(blocks_mod, "BLOCK_BYTES", 200)  # many small blocks
    seg = sample_segment()
    text = seg.encode()
    assert len(json.loads(text)["blocks"]) > 3
    again = Segment.decode(text)
    assert again.docs == seg.docs
    assert again.postings == seg.postings
    assert again.encode() == text


def test_a_view_finds_every_term_and_only_those(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(blocks_mod, "BLOCK_BYTES", 200)
    seg = sample_segment()
    view = SegmentView.decode(seg.encode())
    for term, raw in seg.postings.items():
        part = view.lookup(term)
        assert part is not None and part.to_raw() == raw
    for absent in ("", "a", "zzzz", "pixe", "pixell", "~", "beagl\t"):
        assert view.lookup(absent) is None
    assert view.stats == seg.stats()


def test_opening_a_view_inflates_no_postings_block(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(blocks_mod, "BLOCK_BYTES", 200)
    view = SegmentView.decode(sample_segment().encode())
    blocks = view.blocks
    assert blocks is not None and len(blocks) > 3
    assert blocks.dirs == {} and blocks.turns == {}
    part = view.lookup("pixel")
    assert part is not None
    assert len(blocks.dirs) == 1 and blocks.turns == {}  # the slice stage reads no turn pieces
    assert part.counts(0, len(sample_segment().docs[0].turn_lens)) is not None
    assert len(blocks.turns) == 1


def test_a_damaged_block_loses_its_terms_not_the_segment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(blocks_mod, "BLOCK_BYTES", 200)
    header = json.loads(sample_segment().encode())
    first_term = header["blocks"][0][0]
    header["blocks"][0][1] = "bm90IHpsaWI="  # valid base64, not zlib
    view = SegmentView.decode(json.dumps(header))
    assert view.lookup(first_term) is None
    assert view.lookup(header["blocks"][-1][0]) is not None
    with pytest.raises(InvalidInput):
        Segment.decode(json.dumps(header))  # a writer needs every list: it rebuilds instead


@pytest.mark.parametrize(
    "text",
    [
        "not json",
        '{"kind": "previously.search.segment", "_schema": 1, "data": "x"}',
        '{"kind": "something else"}',
        "[]",
    ],
)
def test_foreign_or_old_files_are_unreadable_segments(text: str) -> None:
    with pytest.raises(InvalidInput):
        SegmentView.decode(text)


def test_window_stats_count_every_passage() -> None:
    for lens in ([], [4], [1, 2, 3], [1, 2, 3, 4], [5, 1, 7, 2, 9, 3]):
        if len(lens) <= 3:
            expected = (1, sum(lens))
        else:
            windows = [sum(lens[a : a + 3]) for a in range(len(lens) - 2)]
            expected = (len(windows), sum(windows))
        assert window_stats(lens) == expected
    assert Stats.of(2, [1, 2, 3, 4]) + Stats.of(0, [5]) - Stats.of(0, [5]) == Stats.of(2, [1, 2, 3, 4])


class Recording:
    """A snapshot that records which folders were listed."""

    def __init__(self, storage: InMemoryStorage) -> None:
        self.snapshot = storage.snapshot()
        self.listed: list[str] = []

    def read(self, path: MemoryPath) -> str | None:
        return self.snapshot.read(path)

    def list(self, prefix: MemoryPath) -> list[MemoryPath]:
        self.listed.append(prefix.value)
        return self.snapshot.list(prefix)


def indexed_sample() -> InMemoryStorage:
    storage = storage_with(SAMPLE)
    batch = WriteBatch.open(storage)
    refresh_index(batch, CLOCK)
    batch.commit("index")
    return storage


def test_a_sound_index_lists_only_the_folders_newer_than_its_newest_slice() -> None:
    storage = indexed_sample()
    newest = max(SAMPLE)
    snap = Recording(storage)
    index = open_index(snap)
    assert SLICES.value not in snap.listed
    assert snap.listed == [p.value for p in tail_prefixes(newest)]
    assert index.search("beagle shoes", 1, CLOCK.now()).hits[0].slice_id == "2026-03-14-0900"
    # Checking that the hit still exists lists its own folder only.
    assert snap.listed[-1] == "memory/episodic/slices/2026/03/14/0900"


def test_tail_prefixes_cover_the_rest_of_the_year_and_the_years_after() -> None:
    prefixes = [p.value for p in tail_prefixes("2026-11-30-2300", years_ahead=2)]
    assert prefixes == [
        "memory/episodic/slices/2026/10",
        "memory/episodic/slices/2026/11",
        "memory/episodic/slices/2026/12",
        "memory/episodic/slices/2027",
        "memory/episodic/slices/2028",
    ]
    january = [p.value for p in tail_prefixes("2027-01-03-0800", years_ahead=1)]
    assert january[:2] == ["memory/episodic/slices/2026/12", "memory/episodic/slices/2027/01"]
    assert january[-1] == "memory/episodic/slices/2028"


def test_a_slice_in_a_later_year_is_found_without_a_refresh() -> None:
    storage = indexed_sample()
    sid = "2027-01-02-0800"
    storage.files[core_md(sid)] = slice_text(sid, [("user", "new year swim in the icy sea")])
    index = open_index(storage.snapshot())
    assert index.search("icy swim", 1, CLOCK.now()).hits[0].slice_id == sid


def test_a_slice_written_into_the_past_waits_for_maintenance() -> None:
    # Only slices newer than the index are looked for at query time; an old slice added by hand
    # or an import is found once `maintain` (refresh_index) or `index_slice` has run.
    storage = indexed_sample()
    sid = "2026-01-05-0800"
    storage.files[core_md(sid)] = slice_text(sid, [("user", "planted tulip bulbs in the garden")])
    assert open_index(storage.snapshot()).search("tulip bulbs", 1, CLOCK.now()).hits == []
    batch = WriteBatch.open(storage)
    assert refresh_index(batch, CLOCK).added == 1
    batch.commit("maintain")
    assert open_index(storage.snapshot()).search("tulip bulbs", 1, CLOCK.now()).hits[0].slice_id == sid


def test_segments_are_read_side_by_side_and_in_manifest_order(monkeypatch: pytest.MonkeyPatch) -> None:
    from core.search import store

    monkeypatch.setattr(store, "MAX_SEGMENT_SLICES", 2)
    storage = indexed_sample()
    views = store.load_views(storage.snapshot()).views
    assert len(views) == 3
    assert [v.columns["ids"] for v in views] == [sorted(SAMPLE)[i : i + 2] for i in (0, 2, 4)]


def test_the_format_doc_shows_what_the_code_writes() -> None:
    from pathlib import Path

    doc = (Path(__file__).resolve().parents[2] / "docs" / "FORMAT.md").read_text(encoding="utf-8")
    section = doc.split("\n## The search index\n", 1)[1].split("\n## ", 1)[0]
    seg = sample_segment()
    header = json.loads(seg.encode())
    assert json.dumps(header["stats"]) in section
    assert f'"bytes": {len(seg.encode())},' in section
    blocks = Blocks([tuple(block) for block in header["blocks"]], [len(d.turn_lens) for d in seg.docs])
    lines, _ = blocks._dir(0)
    for term in ("pixel", "travel"):
        line = next(line for line in lines if line.startswith(term + "\t"))
        assert f"`{line.replace(chr(9), '→')}`" in section
    pixel = blocks.lookup("pixel")
    assert pixel is not None and isinstance(pixel.turns, CountTurns)
    shown = " | ".join(pixel.turns.load()[a:b].hex(" ") for a, b in pairwise(blocks.starts()))
    assert f"turn bytes `{shown}`" in section


def test_closing_a_slice_never_patches_a_damaged_index(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib

    from core.search import store
    from core.search.recall import index_slice

    recall_mod = importlib.import_module("core.search.recall")  # the package exports a `recall` function

    monkeypatch.setattr(store, "MAX_SEGMENT_SLICES", 2)
    monkeypatch.setattr(recall_mod, "INLINE_BUILD_LIMIT", 2)
    storage = indexed_sample()
    storage.files[store.segment_path("0003")] = "damaged"  # the newest: where a new slice goes
    sid = "2026-08-11-0900"
    storage.files[core_md(sid)] = slice_text(sid, [("user", "a kayak lesson on the lake")])
    batch = WriteBatch.open(storage)
    assert not index_slice(batch, sid, CLOCK)  # too large to rebuild in a turn: maintain will
    assert batch.commit("close").written == ()
    index = open_index(storage.snapshot())
    assert any("segment 0003" in n for n in index.notes)
    # The damaged segment's slices and the new one are all still answered.
    assert index.search("hiking 爬山", 1, CLOCK.now()).hits[0].slice_id == "2026-08-10-1200"
    assert index.search("kayak lesson", 1, CLOCK.now()).hits[0].slice_id == sid


def test_a_posting_summary_counts_head_turns_and_passages() -> None:
    from core.search.postings import encode_doc, entries, hits_of, join, windows_with

    assert encode_doc([(0, 2)], 5) == ("2,0,0", "")
    assert encode_doc([(3, 1)], 5) == ("0,1,3", "3,1")  # turn 3 of 5 is in all 3 passages
    assert encode_doc([(0, 1), (1, 2), (5, 1)], 5) == ("1,3,2", "1,2,5,1")
    # In more than half the turns: one character per turn, "@" + count.
    assert encode_doc([(1, 2), (2, 1), (4, 3)], 5) == ("0,6,3", "=BA@C@")
    assert encode_doc([(1, 300), (2, 1)], 3)[1] == "1,300,2,1"  # a count past one byte stays in pairs
    for n in range(0, 8):
        for j in range(n):
            assert windows_with([j], n) == len({a for a in range(max(1, n - 2)) if a <= j < a + 3})
    a, b = encode_doc([(0, 1), (2, 2)], 4), encode_doc([(1, 1)], 1)
    raw = join([f"0,{a[0]}", f"1,{b[0]}"], [a[1], b[1]])
    assert entries(raw) == [(0, a), (1, b)]
    assert [hits_of(e, n) for (_, e), n in zip(entries(raw), (4, 1), strict=True)] == [
        [(0, 1), (2, 2)],
        [(1, 1)],
    ]


def _stored(postings: dict[str, str], n_rows: int, turns: int = 3) -> Blocks:
    """These postings written as one block of a segment of `n_rows` slices of `turns` turns
    each, and read back."""
    block = RawBlock()
    for term in sorted(postings):
        block.add(term, *from_raw(postings[term], [turns] * n_rows))
    columns, stream = block.streams()
    return Blocks([(min(postings), blocks_mod.pack(columns), blocks_mod.pack(stream))], [turns] * n_rows)


_ROWS = st.lists(
    st.tuples(
        st.integers(0, 70_000),
        st.integers(0, 70_000),
        st.integers(0, 2**31),
        st.integers(0, 40),
        st.text(alphabet="0123456789,=@ABC", max_size=12),
    ),
    min_size=1,
    max_size=30,
)


@settings(max_examples=200, deadline=None)
@given(_ROWS, st.integers(1, 40))
def test_the_file_form_of_postings_round_trips(
    rows: list[tuple[int, int, int, int, str]], n_rows: int
) -> None:
    raw = join([f"{p},{h},{b},{w}" for p, h, b, w, _ in rows], [piece for *_, piece in rows])
    part = _stored({"term": raw}, n_rows).lookup("term")
    assert part is not None and part.to_raw() == raw


@settings(max_examples=100, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(0, 300), st.lists(st.integers(0, 300), min_size=4, max_size=4)), max_size=12
    )
)
def test_a_common_term_is_stored_by_row_and_reads_back_the_same(cells: list[tuple[int, list[int]]]) -> None:
    from core.search.postings import piece_of

    cells = [(h, counts) for h, counts in cells if h or any(counts)]  # a slice holds the term somewhere
    if not cells:
        return
    n_rows = len(cells)
    raw = join(
        [f"{r},{h},{sum(c)},{r % 3}" for r, (h, c) in enumerate(cells)], [piece_of(c) for _, c in cells]
    )
    part = _stored({"term": raw}, n_rows, turns=4).lookup("term")
    assert part is not None and part.form == BY_ROW and part.to_raw() == raw
    # Count bytes when the dense pieces are at least half (a count past 191 is never dense);
    # text pieces otherwise. Either way every turn count reads back.
    pieces = [piece_of(c) for _, c in cells]
    dense = sum(p.startswith("=") for p in pieces)
    as_bytes = all(max(c) <= 191 for _, c in cells) and 2 * dense >= sum(map(bool, pieces))
    assert isinstance(part.turns, CountTurns) == as_bytes
    post = TermPostings()
    post.add(part, 10, n_rows)
    assert list(post.docs) == [10 + r for r in range(n_rows)]
    assert list(post.heads) == [h for h, _ in cells] and list(post.bodies) == [sum(c) for _, c in cells]
    assert post.bodies_by_doc(10 + n_rows)[10:] == [sum(c) for _, c in cells]
    assert list(post.head_counts()) == [(10 + r, h) for r, (h, _) in enumerate(cells) if h]
    for r, (_, c) in enumerate(cells):
        assert post.turn_counts(10 + r, 4) == (c if any(c) else None)


def test_a_rare_term_is_stored_sparse() -> None:
    part, _ = from_raw(join(["3,0,2,1"], ["4,2"]), [5] * 40)
    assert part.form == SPARSE and list(part.rows) == [3]
    part, turns = from_raw(join(["3,0,4,3", "5,1,0,0"], ["=A@BA@", ""]), [5] * 8)
    assert part.form == BY_ROW and list(part.bodies) == [0, 0, 0, 4, 0, 0, 0, 0]
    assert (list(part.rows), list(part.heads)) == ([5], [1])  # the rows whose head holds it
    assert turns == bytes(15) + bytes([1, 0, 2, 1, 0]) + bytes(20)  # one count byte per turn
    assert part.present_rows() == [3, 5]
    # Pieces their counts would not give back (a dense piece of the wrong length), or mostly
    # turn/count pairs, keep the text form.
    assert from_raw(join(["3,0,4,3", "5,1,0,0"], ["=A@BA", ""]), [5] * 8)[1] == [
        "",
        "",
        "",
        "=A@BA",
        *[""] * 4,
    ]
    assert from_raw(join(["3,0,2,1", "5,1,0,0"], ["4,2", ""]), [5] * 8)[1] == ["", "", "", "4,2", *[""] * 4]
    # Rows past the segment's end, or a slice that holds the term nowhere, stay sparse (exact).
    assert from_raw(join(["3,0,2,1", "9,1,0,0"], ["4,2", ""]), [5] * 8)[0].form == SPARSE
    assert from_raw(join(["3,0,0,0", "5,1,0,0"], ["", ""]), [5] * 8)[0].form == SPARSE


def test_a_damaged_block_or_turns_stream_loses_only_what_it_holds() -> None:
    good = _stored({"kayak": join(["0,1,2,1", "2,0,1,1"], ["1,2", "2,1"])}, 10)
    columns, turns = good.data[0]
    damaged = Blocks([("kayak", "bm90IHpsaWI=", turns)], [3] * 10)  # valid base64, not zlib
    assert damaged.lookup("kayak") is None
    short = Blocks(
        [("kayak", blocks_mod.pack(b"\x09\x00\x00\x00kayak"), turns)], [3] * 10
    )  # a directory past its end
    assert short.lookup("kayak") is None
    no_turns = Blocks([("kayak", columns, "bm90IHpsaWI=")], [3] * 10)
    part = no_turns.lookup("kayak")
    assert part is not None and list(part.bodies) == [2, 1]  # the slice stage keeps its counts
    post = TermPostings()
    post.add(part, 0, 10)
    assert 0 in post and post.turn_counts(0, 3) is None  # only the passages are lost
    with pytest.raises(ValueError):
        part.to_raw()  # a writer cannot rebuild the postings: the segment is rebuilt instead


def test_a_damaged_dense_piece_counts_nothing_where_it_is_damaged() -> None:
    from core.search.postings import piece_counts

    assert piece_counts("=A?\u4e00B", 4) == [1, 0, 0, 2]
    assert piece_counts("=AB", 4) == [1, 2, 0, 0]  # shorter than the slice: the rest is 0
    assert piece_counts("1,2,x,1", 3) == [0, 0, 0]  # a damaged pair list: no passage, no crash
    assert piece_counts("1,2,9,1", 3) == [2, 0, 0]  # a turn past the slice's end is ignored


def test_dense_and_sparse_pieces_give_the_same_turn_counts() -> None:
    from core.search.postings import encode_doc

    for hits, n in (([(2, 1)], 6), ([(1, 1), (2, 4), (3, 1), (6, 2)], 6), ([(0, 3), (1, 1)], 1)):
        summary, piece = encode_doc(hits, n)
        for n_rows in (1, 40):  # stored by row, then sparse
            part = _stored({"t": join([f"0,{summary}"], [piece])}, n_rows, n).lookup("t")
            assert part is not None
            post = TermPostings()
            post.add(part, 7, n_rows)
            counts = [0] * n
            for turn, tf in hits:
                if turn:
                    counts[turn - 1] = tf
            assert post.turn_counts(7, n) == counts
            assert 7 in post and 6 not in post and post.turn_counts(6, n) is None
            assert 8 not in post and post.turn_counts(8, n) is None


def test_hidden_documents_count_nowhere() -> None:
    raw = join(["0,1,2,1", "1,0,3,2", "2,2,0,0"], ["1,2", "=@C", ""])
    for n_rows in (3, 40):
        part = _stored({"t": raw}, n_rows).lookup("t")
        assert part is not None
        post = TermPostings(frozenset({5, 99}))
        post.add(part, 4, n_rows)
        assert len(post) == 2 and post.window_df == 1
        assert list(post.docs) == [4, 6] and list(post.heads) == [1, 2] and list(post.bodies) == [2, 0]
        assert 5 not in post and post.turn_counts(5, 2) is None
        assert post.bodies_by_doc(8)[4:7] == [2, 0, 0]
        assert list(post.head_counts()) == [(4, 1), (6, 2)]


_WORDSET = st.sampled_from(["kayak", "lake", "Lake", "湖", "划船", "one", "1", "ünïcode", "a"])
_TURN = st.lists(_WORDSET, max_size=260).map(" ".join) | st.text(max_size=80)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(_TURN, min_size=0, max_size=7), min_size=1, max_size=5), st.text(max_size=30))
def test_any_slice_text_survives_the_file_and_the_reader(turn_lists: list[list[str]], head: str) -> None:
    from core.search.reader import SliceText, TurnText

    docs = []
    for i, turns in enumerate(turn_lists):
        sid = f"2026-01-0{i + 1}-0900"
        st_ = SliceText(sid, focus=head, status="closed", turns=[TurnText("user", "", t) for t in turns])
        docs.append(analyze(st_, fingerprint(repr(turns))))
    seg = Segment.build("0001", docs)
    again = Segment.decode(seg.encode())
    assert again.docs == seg.docs and again.postings == seg.postings
    view = SegmentView.decode(seg.encode())
    for pos, doc in enumerate(docs):
        n = len(doc.meta.turn_lens)
        for term, entry in doc.terms.items():
            post = TermPostings()
            stored = view.lookup(term)
            assert stored is not None
            post.add(stored, 0, len(view))
            expected = [0] * n
            for turn, tf in hits_of(entry, n):
                if turn:
                    expected[turn - 1] = tf
            assert post.turn_counts(pos, n) == (expected if any(expected) else None)
