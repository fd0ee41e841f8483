"""Forgetting a slice or one exchange on every backend that keeps memory for good.

The sample memory (catalog, strands, monthly indexes, a card citing slices, snapshots) plus a
stored search index; after the forget, none of the slice's own words is in any file, recall
does not find it, every other slice is byte-identical (snapshots citing it aside), `check` is
clean and there is exactly one new commit.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.actions.check import check_memory
from core.actions.forget import forget
from core.clock import FixedClock
from core.errors import NotFound, ReadOnly
from core.memory.catalog.index import stored_index_text
from core.memory.paths import slice_dir, slice_rel
from core.memory.slice.model import parse_core_md
from core.search.recall import open_index
from core.search.segment import Segment, fingerprint
from core.storage.base import Storage
from core.storage.demo import DemoStorage
from core.storage.memory import InMemoryStorage
from tests.contract.conftest import Backend, backend_fixture
from tests.fakes.slices import slice_text, storage_with
from tests.functional.forget_support import CLOCK, SAMPLE, core_path, grep, own_words, seed_sample, tree

pytestmark = pytest.mark.functional

SLICE = "2025-02-08-1617"  # cited alone by a Past anchor, and by later snapshots
EXCHANGE = ("2026-11-21-1040",)

store = backend_fixture("memory", "local", "local-git", "github")


def _commits(backend: Backend) -> int | None:
    """How many commits the memory has (None for a plain folder, which keeps no history)."""
    history = backend.history()
    if history is not None:
        return len(history)
    commits = getattr(backend.storage, "commits", None)
    return None if commits is None else len(commits)


def _one_more(backend: Backend, before: int | None) -> bool:
    return before is None or _commits(backend) == before + 1


def _errors(storage: Storage) -> list[str]:
    report = check_memory(storage.snapshot(), FixedClock.at(CLOCK).now())
    return [str(f) for f in report.errors]


def _indexed_ids(files: dict[str, str]) -> set[str]:
    return {
        sid
        for p, t in files.items()
        if p.startswith("memory/episodic/search/seg-")
        for sid in Segment.decode(t).ids()
    }


def test_forget_a_slice_removes_every_word_in_one_commit(store: Backend) -> None:
    clock = FixedClock.at(CLOCK)
    seed_sample(store, clock)
    before = tree(store.storage)
    words = own_words(before, SLICE)
    assert len(words) >= 5  # the test means something
    commits = _commits(store)
    errors = _errors(store.storage)

    report = forget(store.storage, SLICE, clock)

    after = tree(store.storage)
    assert grep(after, words) == {}
    assert _one_more(store, commits)
    assert report.message == f"Forget slice {SLICE}"
    history = store.history()
    if history is not None:
        assert history[0] == report.message
    prefix = slice_dir(SLICE).value + "/"
    assert not [p for p in after if p.startswith(prefix)]
    assert sorted(report.deleted) == sorted(p for p in before if p.startswith(prefix))
    # other slices: byte-identical, except snapshots that cited the slice
    for path, text in before.items():
        if path.startswith("memory/episodic/slices/") and not path.startswith(prefix):
            if "_index.json" in path:
                continue
            if after[path] != text:
                assert path.endswith("previously.md") and slice_rel(SLICE) in text, path
    assert slice_rel(SLICE) not in after["memory/episodic/current-previously.md"]
    assert report.card.removed >= 1
    # indexes
    catalog = json.loads(stored_index_text(InMemoryStorage.from_texts(after).snapshot()) or "")
    assert SLICE not in [e["id"] for e in catalog["slices"]]
    assert catalog["slice_count"] == len(catalog["slices"])
    assert SLICE not in after["memory/episodic/timeline.md"]
    assert SLICE not in after["memory/episodic/slices/2025/02/_index.json"]
    assert all(slice_rel(SLICE) not in text for path, text in after.items() if "/strands" in path)
    assert any(path.startswith("memory/episodic/strands/") for path in after)
    assert SLICE not in _indexed_ids(after)
    index = open_index(store.storage.snapshot())
    for word in sorted(words)[:20]:
        hits = index.search(word, 10, clock.now()).hits
        assert SLICE not in [h.slice_id for h in hits]
    assert _errors(store.storage) == errors


def test_forget_one_exchange_keeps_the_rest_of_the_slice(store: Backend) -> None:
    clock = FixedClock.at(CLOCK)
    seed_sample(store, clock)
    before = tree(store.storage)
    slice_id = EXCHANGE[0]
    core = before[core_path(slice_id).value]
    turn_ids = list(
        dict.fromkeys(line.split()[2] for line in core.splitlines() if line.startswith("## Turn "))
    )
    # the first exchange after the opening one whose words are its own
    turn_id = next(t for t in turn_ids[1:] if own_words(before, slice_id, t))
    words = own_words(before, slice_id, turn_id)
    commits = _commits(store)

    report = forget(store.storage, slice_id, clock, turn_id=turn_id)

    after = tree(store.storage)
    assert not report.whole_slice
    assert report.message == f"Forget turn {turn_id} of slice {slice_id}"
    assert _one_more(store, commits)
    assert grep(after, words) == {}
    new_core = after[core_path(slice_id).value]
    assert f"## Turn {turn_id} " not in new_core
    for other in {t for t in turn_ids if t != turn_id}:
        assert f"## Turn {other} " in new_core
    agent = after[(slice_dir(slice_id) / "timeline/agent.md").value]
    assert f"## Cognition {turn_id} " not in agent
    # every other slice untouched
    for path, text in before.items():
        mine = path.startswith(slice_dir(slice_id).value + "/")
        if path.startswith("memory/episodic/slices/") and "_index.json" not in path and not mine:
            assert after[path] == text, path
    # the stored index holds the slice as it is now (its old text is gone from the postings)
    docs = [
        m
        for p, t in after.items()
        if p.startswith("memory/episodic/search/seg-")
        for m in Segment.decode(t).docs
        if m.slice_id == slice_id
    ]
    assert [m.fingerprint for m in docs] == [fingerprint(new_core)]
    assert _errors(store.storage) == []


def test_forgetting_the_last_exchange_forgets_the_slice(store: Backend) -> None:
    clock = FixedClock.at(CLOCK)
    seed_sample(store, clock)
    slice_id = SLICE
    core = tree(store.storage)[core_path(slice_id).value]
    turn_ids = list(
        dict.fromkeys(line.split()[2] for line in core.splitlines() if line.startswith("## Turn "))
    )
    for turn_id in turn_ids[:-1]:
        assert not forget(store.storage, slice_id, clock, turn_id=turn_id).whole_slice
    last = forget(store.storage, slice_id, clock, turn_id=turn_ids[-1])
    assert last.whole_slice
    assert core_path(slice_id).value not in tree(store.storage)


def test_missing_slice_or_turn_is_not_found_and_writes_nothing(store: Backend) -> None:
    clock = FixedClock.at(CLOCK)
    seed_sample(store, clock)
    commits = _commits(store)
    with pytest.raises(NotFound, match="There is no slice 2030-01-01-0000"):
        forget(store.storage, "2030-01-01-0000", clock)
    with pytest.raises(NotFound, match="has no turn zzzzzz"):
        forget(store.storage, SLICE, clock, turn_id="zzzzzz")
    assert _commits(store) == commits


def test_the_demo_refuses_and_keeps_everything() -> None:
    demo = DemoStorage(SAMPLE)
    with pytest.raises(ReadOnly, match="read-only"):
        forget(demo, SLICE, FixedClock.at(CLOCK))
    assert demo.snapshot().read(core_path(SLICE)) is not None


_texts = st.text(st.characters(codec="utf-8", blacklist_characters="\r"), min_size=1, max_size=120).map(
    lambda s: s.replace("## Turn ", "").strip() or "x"
)


@settings(max_examples=30, deadline=None)
@given(st.lists(_texts, min_size=6, max_size=6))
def test_forgetting_an_exchange_keeps_every_other_turn_word_for_word(texts: list[str]) -> None:
    sid = "2026-08-10-0900"
    roles = ["user", "agent"] * 3
    storage = storage_with({sid: slice_text(sid, list(zip(roles, texts, strict=True)), focus="F")})
    before = parse_core_md(storage.files[core_path(sid)]).turns
    forget(storage, sid, FixedClock.at(CLOCK), turn_id="t00001")
    after = parse_core_md(storage.files[core_path(sid)]).turns
    assert [(t.turn_id, t.role, t.content) for t in after] == [
        (t.turn_id, t.role, t.content) for t in before if t.turn_id != "t00001"
    ]


local = backend_fixture("local", "github")


def test_a_slice_too_large_or_not_utf8_can_still_be_forgotten(local: Backend) -> None:
    big, bad = "2026-08-10-0900", "2026-08-10-1000"
    local.seed(
        {
            core_path(big).value: "---\nstatus: closed\n---\n\n" + "x" * 1_100_000,
            core_path(bad).value: b"---\nstatus: closed\n---\n\n\xff\xfe",
            core_path("2026-08-10-1100").value: slice_text("2026-08-10-1100", [("user", "keep me")]),
        }
    )
    for sid in (big, bad):
        forget(local.storage, sid, FixedClock.at(CLOCK))
    left = [p for p in tree(local.storage) if p != "memory/evolution/fitness.json"]  # the forgotten signal
    assert left == [core_path("2026-08-10-1100").value]


def test_export_reads_every_backend_byte_for_byte(store: Backend) -> None:
    import io
    import zipfile

    from core.memory.export import export_zip
    from tests.functional.forget_support import sample_files

    store.seed(dict(sample_files()))
    buf = io.BytesIO()
    report = export_zip(store.storage.snapshot(), buf)
    with zipfile.ZipFile(buf) as zf:
        got = {n: zf.read(n) for n in zf.namelist() if n.startswith("memory/")}
    assert got == {p: t.encode("utf-8") for p, t in sample_files().items()}
    assert report.files == len(got) and not report.skipped


card_store = backend_fixture("memory", "local")


def test_forgetting_a_slice_scrubs_every_earlier_version_of_the_card(card_store: Backend) -> None:
    from core.memory.card.history import version_text, versions
    from core.memory.card.store import delete_card_entry
    from core.storage.base import WriteBatch

    clock = FixedClock.at(CLOCK)
    seed_sample(card_store, clock)
    batch = WriteBatch.open(card_store.storage)
    delete_card_entry(batch, "identity", 1, clock.now())  # the replaced card, citing SLICE, is kept
    batch.commit("edit")
    view = card_store.storage.snapshot()
    (kept,) = versions(view)
    assert slice_rel(SLICE) in (version_text(view, kept) or "")

    forget(card_store.storage, SLICE, clock)

    view = card_store.storage.snapshot()
    assert [v.path for v in versions(view)] == [kept.path], "the version stays, without the slice"
    assert slice_rel(SLICE) not in (version_text(view, kept) or "")
