"""A large memory as one commit of a bare git repository, built directly (no API, no worktree).

The slice files come from `memory_gen` (all marked: the steady state between maintenance
passes, so a pass over it has nothing to do); the derived files (catalog, timeline.md, strands,
monthly indexes, search index) are computed in memory by the product's own code, then every
blob, tree and the commit go into one pack — a 10,000-slice memory takes seconds.
"""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

from dulwich.index import commit_tree
from dulwich.objects import Blob, Commit

from bench.memory_gen import _pool, core_md
from core.clock import FixedClock
from core.memory.catalog.rebuild import rebuild_indexes
from core.memory.paths import MEMORY
from core.memory.paths import core_md as core_md_path
from core.search import refresh_index
from core.storage.base import WriteBatch
from core.storage.memory import InMemoryStorage
from tests.fakes.fake_git import FILE_MODE, IDENT, BareRepo


def memory_files(count: int, seed: int = 7) -> tuple[dict[str, str], list[str], datetime]:
    """Every file of a `count`-slice memory with its indexes built; also the ids and a `now`
    one day after the last slice (so nothing is active and maintenance has nothing to close)."""
    rng = random.Random(seed)
    pool = _pool(rng)
    instant = datetime(2023, 1, 1, 8, 0, tzinfo=UTC)
    files: dict[str, str] = {}
    ids = []
    for _ in range(count):
        instant += timedelta(minutes=rng.randint(45, 240))
        sid = instant.strftime("%Y-%m-%d-%H%M")
        files[core_md_path(sid).value] = core_md(rng, sid, instant, pool, unmarked=0.0)
        ids.append(sid)
    now = instant + timedelta(days=1)
    storage = InMemoryStorage.from_texts(files)
    batch = WriteBatch.open(storage)
    rebuild_indexes(batch, now)
    batch.commit("indexes")
    batch = WriteBatch.open(storage)
    refresh_index(batch, FixedClock(now), full=True)
    batch.commit("search index")
    snap = storage.snapshot()
    everything = {p.value: snap.read(p) or "" for p in snap.list(MEMORY)}
    return {"README.md": "# memory\n", **everything}, ids, now


def write_repo(repo: BareRepo, files: dict[str, str], message: str = "A large memory") -> str:
    """One commit holding `files` on the repo's branch, written as a single pack."""
    blobs = {path: Blob.from_string(text.encode("utf-8")) for path, text in files.items()}
    repo.repo.object_store.add_objects([(b, None) for b in blobs.values()])  # one pack
    tree = commit_tree(repo.repo.object_store, [(p.encode(), b.id, FILE_MODE) for p, b in blobs.items()])
    commit = Commit()
    commit.tree, commit.parents = tree, []
    commit.author = commit.committer = IDENT
    commit.author_time = commit.commit_time = 1_700_000_000
    commit.author_timezone = commit.commit_timezone = 0
    commit.message = message.encode()
    repo.repo.object_store.add_object(commit)
    repo.repo.refs[repo.ref_name(repo.branch)] = commit.id
    repo.repo.object_store.close()  # the pack is re-opened on the next read
    return commit.id.decode()
