"""A commit's listing assembled tree by tree (issue 33 item 4): an empty cache lists the slices a
month at a time as reads need them, a moved head costs only the trees that changed, truncated
recursive answers still list every file, and a kept listing of another version is never used."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.memory.paths import SLICES, MemoryPath, core_md
from core.storage.base import WriteBatch
from core.storage.disk_cache import LISTINGS, CachedListing, DiskCache, parse_listing
from core.storage.github import GitHubStorage
from core.storage.github_listing import LazyTrees
from tests.fakes.fake_git import TREE_MODE
from tests.fakes.fake_github import FakeGitHub

pytestmark = pytest.mark.contract
LAZY = LazyTrees(SLICES.value, depth=2)
TREES = "GET /git/trees/{sha}"


def ids_over_months(months: int, per_month: int) -> list[str]:
    return [
        f"{2024 + m // 12}-{1 + m % 12:02d}-{1 + i:02d}-{(i * 7) % 24:02d}{(i * 13) % 60:02d}"
        for m in range(months)
        for i in range(per_month)
    ]


def seed(fake: FakeGitHub, months: int = 18, per_month: int = 20) -> dict[str, str]:
    files = {
        core_md(sid).value: f"---\nslice_id: {sid}\n---\n\nturn of {sid}\n"
        for sid in ids_over_months(months, per_month)
    }
    for m in range(months):
        files[f"{SLICES.value}/{2024 + m // 12}/{1 + m % 12:02d}/_index.json"] = f'{{"month": {m}}}\n'
    files["memory/episodic/timeline/index.json"] = "[]\n"
    files["memory/episodic/strands.json"] = "{}\n"
    files["memory/user/config.json"] = "{}\n"
    fake.commit_files(files, "seed")
    return files


def tree_bytes(fake: FakeGitHub) -> int:
    return sum(
        sent for request, sent, _ in fake.transfers if request.startswith("GET ") and "/git/trees/" in request
    )


def lazy_client(fake: FakeGitHub, cache: Path | None = None) -> GitHubStorage:
    """A fresh process's storage as the composition root builds it."""
    return fake.client(branch="main", lazy=LAZY, disk_cache=DiskCache(cache) if cache else None)


def tree_shas(fake: FakeGitHub) -> dict[str, str]:
    """folder → tree sha at the branch head, as git holds them."""
    root = fake.git.resolve_tree(fake.head() or "") or ""
    return {"": root} | {p: s for p, m, s in fake.git.walk(root, True) if m == TREE_MODE}


def test_an_empty_cache_lists_the_newest_month_not_every_slice(fake_github: FakeGitHub) -> None:
    files = seed(fake_github)
    fake_github.client(branch="main").snapshot()  # one recursive answer, for the comparison
    whole = tree_bytes(fake_github)
    fake_github.reset_counts()
    snap = lazy_client(fake_github).snapshot()
    newest = core_md(ids_over_months(18, 20)[-1])
    month = MemoryPath(newest.value.rsplit("/", 4)[0])
    assert snap.read(newest) == files[newest.value]
    assert [p.value for p in snap.list(month)] == sorted(p for p in files if p.startswith(month.value + "/"))
    assert tree_bytes(fake_github) < whole / 5, (tree_bytes(fake_github), whole)
    assert snap.read(MemoryPath("memory/user/config.json")) == "{}\n"


def test_after_another_writers_commit_only_the_changed_trees_are_fetched(
    fake_github: FakeGitHub, tmp_path: Path
) -> None:
    files = seed(fake_github)
    assert len(lazy_client(fake_github, tmp_path).snapshot().list(SLICES)) == len(
        [p for p in files if p.startswith(SLICES.value)]
    )
    before = tree_shas(fake_github)
    changed = core_md(ids_over_months(18, 20)[100])
    fake_github.commit_files(
        {changed.value: "edited on github.com\n", "memory/episodic/strands.json": "{ }\n"}
    )
    after = tree_shas(fake_github)
    fake_github.reset_counts()
    snap = lazy_client(fake_github, tmp_path).snapshot()
    assert [p.value for p in snap.list(MemoryPath("memory"))] == sorted(
        p for p in fake_github.files() if p.startswith("memory/")
    )
    assert snap.read(changed) == "edited on github.com\n"
    moved = {f for f, sha in after.items() if before.get(f) != sha}
    asked = [
        r.split("/git/trees/")[1].split("?")[0] for r, _, _ in fake_github.transfers if "/git/trees/" in r
    ]
    by_sha = {sha: f for f, sha in after.items()}
    assert {by_sha.get(sha, "(commit)") for sha in asked} <= moved | {"(commit)"}
    assert fake_github.counts[TREES] <= len(moved)  # a small changed folder comes whole


@pytest.mark.parametrize("lazy", [None, LAZY])
def test_truncated_recursive_answers_still_list_every_file(
    fake_github: FakeGitHub, lazy: LazyTrees | None
) -> None:
    files = seed(fake_github, months=3, per_month=6)
    fake_github.truncate_over = 7
    snap = fake_github.client(branch="main", lazy=lazy).snapshot()
    assert [p.value for p in snap.list(MemoryPath("memory"))] == sorted(files)
    assert all(snap.read(MemoryPath(p)) == t for p, t in list(files.items())[::5])


def test_a_kept_listing_of_another_version_is_ignored(fake_github: FakeGitHub, tmp_path: Path) -> None:
    files = seed(fake_github, months=2, per_month=3)
    head = fake_github.head() or ""
    tree = fake_github.git.resolve_tree(head) or ""
    # What an older version kept (no version, no folder shas), and a body of a future version,
    # each claiming the commit holds one file: neither is ever read as a listing.
    old = {"tree": tree, "files": {"memory/only.md": [tree, 1, "100644"]}}
    for folder, body in (
        ("listings", old),
        (LISTINGS, old),
        (LISTINGS, {**old, "v": 3, "trees": {}, "unlisted": []}),
    ):
        (tmp_path / folder / head[:2]).mkdir(parents=True, exist_ok=True)
        (tmp_path / folder / head[:2] / head).write_text(json.dumps(body))
        assert parse_listing(json.dumps(body).encode()) is None
        snap = lazy_client(fake_github, tmp_path).snapshot()
        assert [p.value for p in snap.list(MemoryPath("memory"))] == sorted(files)


def test_a_partial_listing_never_replaces_a_fuller_one(tmp_path: Path) -> None:
    cache = DiskCache(tmp_path)
    commit, tree = "a" * 40, "b" * 40
    full = CachedListing(
        tree,
        {"memory/a.md": ("c" * 40, 1, "100644"), "memory/b/c.md": ("d" * 40, 2, "100644")},
        {"memory/b": "e" * 40},
    )
    partial = CachedListing(
        tree, {"memory/a.md": ("c" * 40, 1, "100644")}, {"memory/b": "e" * 40}, ("memory/b",)
    )
    cache.put_listing(commit, full)
    cache.put_listing(commit, partial)
    assert cache.get_listing(commit) == full
    other = "f" * 40
    cache.put_listing(other, partial)
    cache.put_listing(other, full)  # a fuller one replaces a partial one
    assert cache.get_listing(other) == full


def test_a_commit_on_a_lazy_listing_computes_the_new_trees(fake_github: FakeGitHub, tmp_path: Path) -> None:
    seed(fake_github, months=4, per_month=5)
    batch = WriteBatch.open(lazy_client(fake_github, tmp_path))
    new = core_md("2024-04-28-2200")
    batch.put(new, "---\nslice_id: 2024-04-28-2200\n---\n\nnew\n")
    batch.update(core_md(ids_over_months(4, 5)[0]), lambda text: (text or "") + "more\n")
    batch.commit("write")
    storage = lazy_client(fake_github, tmp_path)
    fake_github.reset_counts()
    listing = storage.snapshot().listing
    assert set(fake_github.counts) == {"GET /git/ref/heads/{b}"}  # the computed listing was kept
    truth = tree_shas(fake_github)
    assert {f: s for f, s in listing.trees.items()} == {f: truth[f] for f in listing.trees}
    assert {f for f in truth if listing.unlisted_over(f) is None} <= set(listing.trees)


@pytest.fixture(scope="module")
def wide(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[FakeGitHub, dict[str, str]]]:
    with FakeGitHub(tmp_path_factory.mktemp("wide") / "repo.git") as fake:
        yield fake, seed(fake, months=14, per_month=4)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_any_path_reads_and_lists_in_a_fresh_lazy_process(
    wide: tuple[FakeGitHub, dict[str, str]], data: st.DataObject
) -> None:
    fake, files = wide
    known = sorted(files)
    path = data.draw(
        st.one_of(
            st.sampled_from(known),
            st.sampled_from(known).map(lambda p: p.replace("/timeline/core.md", "/timeline/agent.md")),
            st.sampled_from(known).map(lambda p: p.rsplit("/", 1)[0] + "/missing.md"),
        )
    )
    snap = fake.client(branch="main", lazy=LAZY).snapshot()
    assert snap.read(MemoryPath(path)) == files.get(path)
    folder = path.rsplit("/", data.draw(st.integers(1, path.count("/"))))[0]
    if folder.startswith("memory/"):
        listed = [p.value for p in fake.client(branch="main", lazy=LAZY).snapshot().list(MemoryPath(folder))]
        assert listed == [p for p in known if p.startswith(folder + "/")]


def test_trees_another_process_fetched_come_from_the_shared_cache(
    fake_github: FakeGitHub, tmp_path: Path
) -> None:
    files = seed(fake_github, months=6, per_month=5)
    newest = core_md(ids_over_months(6, 5)[-1])
    assert lazy_client(fake_github, tmp_path).snapshot().read(newest) == files[newest.value]
    for kept in (*(tmp_path / LISTINGS).glob("*/*"), *(tmp_path / "last").glob("*")):
        kept.unlink()  # no listing to start from: only the trees, kept by their sha
    fake_github.reset_counts()
    assert lazy_client(fake_github, tmp_path).snapshot().read(newest) == files[newest.value]
    assert fake_github.counts[TREES] == 1  # the commit's root (asked by commit sha, not kept)


def test_a_damaged_or_planted_tree_is_never_served(fake_github: FakeGitHub, tmp_path: Path) -> None:
    files = seed(fake_github, months=3, per_month=4)
    newest = core_md(ids_over_months(3, 4)[-1])
    lazy_client(fake_github, tmp_path).snapshot().read(newest)
    kept = sorted((tmp_path / "trees-all").glob("*/*"))
    assert kept
    body = json.loads(kept[0].read_bytes())
    body["tree"] = [[p.replace("core.md", "planted.md"), *rest] for p, *rest in body["tree"]]
    kept[0].write_text(json.dumps(body))
    for other in (*(tmp_path / LISTINGS).glob("*/*"), *(tmp_path / "last").glob("*")):
        other.unlink()
    snap = lazy_client(fake_github, tmp_path).snapshot()
    assert snap.read(newest) == files[newest.value]
    month = MemoryPath(newest.value.rsplit("/", 4)[0])
    assert [p.value for p in snap.list(month)] == sorted(p for p in files if p.startswith(month.value + "/"))
