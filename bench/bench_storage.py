"""Storage costs on a 1,000-slice memory: GitHub requests per operation (against the fake
GitHub server) and wall time, plus the local folder for comparison."""

from __future__ import annotations

import json
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

from core.memory import paths
from core.storage.base import Storage, WriteBatch
from core.storage.local import LocalStorage
from tests.fakes.fake_github import FakeGitHub

SLICES = 1_000
RTT_MS = 100  # a typical round trip to api.github.com from a Lambda, for the estimate column


def slice_ids(n: int) -> list[str]:
    """n slice ids, two a day from 2024-01-01 (UTC)."""
    start = time.mktime((2024, 1, 1, 0, 0, 0, 0, 0, 0))
    return [time.strftime("%Y-%m-%d-%H%M", time.gmtime(start + i * 43_200 + (i % 60) * 60)) for i in range(n)]


def build_memory(n: int) -> dict[str, str]:
    """A synthetic memory: per slice core.md, agent.md, previously.md; catalog, timeline, strands."""
    files: dict[str, str] = {}
    catalog, strands = [], {}
    for i, sid in enumerate(slice_ids(n)):
        tags = [f"topic-{i % 37}", f"person-{i % 11}"]
        head = f'---\nslice_id: "{sid}"\nfocus: "Planning item {i}"\nstatus: closed\ntags: {tags}\n---\n'
        turns = "".join(
            f"\n## Turn t{i:04d}{k} — 2024-01-01T00:00:00.000Z (user)\n\n{'words ' * 60}\n" for k in range(6)
        )
        files[paths.core_md(sid).value] = head + turns
        files[paths.agent_md(sid).value] = f"# Cognition {sid}\n" + "thought " * 120
        files[paths.card_snapshot(sid).value] = "# Previously On\n" + "- fact\n" * 80
        catalog.append(
            {"slice_id": sid, "focus": f"Planning item {i}", "summary": "words " * 20, "tags": tags}
        )
        for tag in tags:
            strands.setdefault(tag, []).append(sid)
    files[paths.CATALOG_JSON.value] = json.dumps({"slices": catalog}, indent=2)
    files[paths.TIMELINE_MD.value] = "# Timeline\n" + "".join(
        f"- {e['slice_id']} {e['focus']}\n" for e in catalog
    )
    files[paths.STRANDS_JSON.value] = json.dumps(strands, indent=2)
    files[paths.CARD.value] = "# Previously On\n" + "- fact\n" * 80
    return files


def turn_batch(storage: Storage, sid: str) -> WriteBatch:
    """What an ordinary turn writes: its turn into core.md (an Update) plus the indexes and agent.md."""
    batch = WriteBatch.open(storage)
    catalog = batch.read(paths.CATALOG_JSON) or "{}"
    batch.update(
        paths.core_md(sid), lambda t: (t or "") + "\n## Turn tNEW — 2026-08-11T11:15:00.000Z (user)\n\nhi\n"
    )
    batch.put(paths.CATALOG_JSON, catalog.replace('"summary"', '"summary "', 1))
    batch.update(paths.TIMELINE_MD, lambda t: (t or "") + f"- {sid} new turn\n")
    batch.update(paths.STRANDS_JSON, lambda t: (t or "{}")[:-1] + ', "new": []}')
    batch.update(paths.agent_md(sid), lambda t: (t or "") + "\nmore thought\n")
    return batch


def measure(fake: FakeGitHub | None, label: str, fn: Callable[[], object], rows: list[tuple]) -> None:
    """Run `fn` once; record requests per route, wall time and the time outside the fake server."""
    if fake:
        fake.reset_counts()
    start = time.perf_counter()
    fn()
    ms = (time.perf_counter() - start) * 1000
    counts = Counter(fake.counts) if fake else Counter()
    server_ms = fake.server_seconds * 1000 if fake else 0.0
    rows.append((label, sum(counts.values()) if fake else None, ms, ms - server_ms, counts))


def bench_github(files: dict[str, str], sid: str, rows: list[tuple], tmp: Path) -> None:
    """Reads cold, warm and after another writer; a turn batch; a turn batch that meets a conflict."""
    core = paths.core_md(sid)
    with FakeGitHub(tmp / "bench.git", seed=files) as fake:
        fake.client(branch="main").snapshot()  # let the fake compute its blob sizes once
        storage = fake.client(branch="main")

        def read_catalog_and_slice() -> None:
            snap = storage.snapshot()
            snap.read(paths.CATALOG_JSON)
            snap.read(core)

        measure(fake, "github  cold: snapshot + catalog + one slice", read_catalog_and_slice, rows)
        measure(fake, "github  warm: same (blob cache, ref 304)", read_catalog_and_slice, rows)
        fake.commit_files({paths.core_md(slice_ids(SLICES)[0]).value: "changed by another writer\n"})
        measure(fake, "github  after another writer's commit", read_catalog_and_slice, rows)
        batch = turn_batch(storage, sid)
        measure(
            fake,
            "github  commit a turn batch (5 files)",
            lambda: batch.commit("Turn tNEW — housekeeping"),
            rows,
        )
        measure(
            fake,
            "github  whole turn: open, read, commit",
            lambda: turn_batch(storage, sid).commit("Turn"),
            rows,
        )
        fake.race_next_patch(lambda f: f.commit_files({core.value: lambda t: (t or "") + "other\n"}))
        measure(
            fake,
            "github  turn batch that meets a conflict",
            lambda: turn_batch(storage, sid).commit("T"),
            rows,
        )


def bench_local(files: dict[str, str], sid: str, rows: list[tuple], tmp: Path) -> None:
    """The same reads and turn batch on a local folder."""
    root = tmp / "local"
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    storage = LocalStorage(root)

    def read_catalog_and_slice() -> None:
        snap = storage.snapshot()
        snap.read(paths.CATALOG_JSON)
        snap.read(paths.core_md(sid))

    measure(None, "local   snapshot + catalog + one slice", read_catalog_and_slice, rows)
    measure(
        None, "local   list every file under memory/", lambda: storage.snapshot().list(paths.MEMORY), rows
    )
    measure(
        None, "local   commit a turn batch (5 files)", lambda: turn_batch(storage, sid).commit("Turn"), rows
    )


def main() -> None:
    """Print the request counts per route and the wall times."""
    files = build_memory(SLICES)
    sid = slice_ids(SLICES)[-1]
    size = sum(len(t.encode()) for t in files.values())
    print(f"memory: {SLICES} slices, {len(files)} files, {size / 1e6:.1f} MB")
    rows: list[tuple] = []
    with tempfile.TemporaryDirectory() as tmp:
        bench_github(files, sid, rows, Path(tmp))
        bench_local(files, sid, rows, Path(tmp))
    print(f"{'operation':46} {'requests':>8} {'wall ms':>8} {'client ms':>9} {f'~ms at {RTT_MS} ms RTT':>18}")
    for label, requests, ms, client_ms, _ in rows:
        estimate = f"{client_ms + requests * RTT_MS:>18.0f}" if requests is not None else f"{'':>18}"
        shown = requests if requests is not None else "-"
        print(f"{label:46} {shown:>8} {ms:>8.1f} {client_ms:>9.1f} {estimate}")
    print("(wall ms includes the fake server's own work; client ms is ours alone)")
    print("\nrequests per route:")
    for label, requests, _, _, counts in rows:
        if requests:
            detail = ", ".join(f"{route} ×{n}" for route, n in sorted(counts.items()))
            print(f"  {label.split('  ', 1)[1]}: {detail}")
