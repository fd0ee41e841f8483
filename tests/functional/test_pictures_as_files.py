"""Pictures are image files at the path core.md links (docs/FORMAT.md "Pictures"): a turn's
picture on a folder and on GitHub, `maintain` turning old `.b64` pictures into image files in one
commit (and surviving kill -9), and readers of a memory holding both."""

from __future__ import annotations

import io
import os
import posixpath
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from PIL import Image

from core.clock import FixedClock
from core.media.attach import image_path, legacy_image_path, read_image
from core.media.images import Upload, prepare_images, stored_text
from core.media.migrate import COMMIT_MESSAGE, migrate_pictures
from core.memory import paths
from core.storage.base import WriteBatch
from core.storage.local import LocalStorage
from tests.contract.conftest import git
from tests.fakes.fake_github import FakeGitHub
from tests.fakes.fake_model_server import FakeModelServer
from tests.fakes.images import png
from tests.functional.api_env import make_env
from tests.functional.cli_env import run
from tests.functional.picture_memory import SLICE, seed
from tests.functional.turn_support import make_harness

pytestmark = pytest.mark.functional

CLOCK = "2026-08-11T11:15:00.000Z"
TURNS = [("user", "Hi."), ("agent", "Hello.")]
REPO_ROOT = Path(__file__).resolve().parents[2]


def _linked_file(core: str, slice_id: str) -> paths.MemoryPath:
    """The file the turn's image link points at, resolved from core.md's folder."""
    link = core.rsplit("](", 1)[1].rstrip(")\n")
    folder = posixpath.dirname(paths.core_md(slice_id).value)
    return paths.MemoryPath(posixpath.normpath(posixpath.join(folder, link)))


@pytest.mark.parametrize("where", ["folder", "github"])
def test_a_turn_s_picture_is_an_image_file_at_the_linked_path(
    where: str, tmp_path: Path, fake_models: FakeModelServer
) -> None:
    fake = FakeGitHub(tmp_path / "gh.git").start() if where == "github" else None
    try:
        storage = fake.client(branch="main") if fake else LocalStorage(tmp_path / "root")
        h = make_harness(storage, FixedClock.at(CLOCK), fake_models)
        assert h.brain is not None
        h.brain.main("A square.")
        h.turn("Look", attachments=tuple(prepare_images([Upload("b.png", png())])))
        user = next(t for t in h.slice(SLICE).turns if t.role == "user")
        target = _linked_file(user.content, SLICE)
        assert target == image_path(SLICE, f"{user.turn_id}-1.png")
        if fake is not None:
            spec = f"main:{target.value}"
            cmd = ["git", "--git-dir", str(fake.git.path), "cat-file", "blob", spec]
            data = subprocess.run(cmd, capture_output=True, check=True).stdout
        else:
            data = (tmp_path / "root" / target.value).read_bytes()
        assert Image.open(io.BytesIO(data)).format == "PNG"
        assert not any(p.name.endswith(".b64") for p in storage.snapshot().list(paths.SLICES))
    finally:
        if fake is not None:
            fake.stop()


def _legacy_memory(root: Path) -> LocalStorage:
    return seed(root, TURNS, ["t00000-1.png", "t00000-2.png"], [], legacy=True)


def test_maintain_turns_b64_pictures_into_image_files_in_one_commit(tmp_path: Path) -> None:
    root = tmp_path / "root"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    storage = _legacy_memory(root)
    before = {n: read_image(storage.snapshot(), SLICE, n)[0] for n in ("t00000-1.png", "t00000-2.png")}
    code, out, err = run("maintain", "--no-model", "--memory", str(root))
    assert code == 0, err
    assert "pictures: 2 base64 files turned into image files" in out
    for name, data in before.items():
        assert (root / image_path(SLICE, name).value).read_bytes() == data
        assert not (root / legacy_image_path(SLICE, name).value).exists()
        assert Image.open(io.BytesIO(data)).format == "PNG"
    # One commit holds the image files and the removal of the .b64 files together.
    [migration] = [block for block in _commits(root) if block[0] == COMMIT_MESSAGE]
    assert sorted(line.split("\t")[0] for line in migration[1:]) == ["A", "A", "D", "D"], migration
    code, out, _ = run("maintain", "--no-model", "--memory", str(root))
    assert code == 0 and "pictures:" not in out  # idempotent: nothing left to migrate


def _commits(root: Path) -> list[list[str]]:
    """Each commit as [subject, status lines…]."""
    out = git(root, "log", "--format=@@%s", "--name-status")
    return [[line for line in chunk.splitlines() if line] for chunk in out.split("@@") if chunk.strip()]


def test_migration_on_github_is_one_commit_with_counted_requests(fake_github: FakeGitHub) -> None:
    images = prepare_images([Upload("b.png", png()), Upload("c.png", png(color=(200, 10, 10, 255)))])
    names = [f"t00000-{n}.png" for n in (1, 2)]
    olds = {legacy_image_path(SLICE, n).value: stored_text(i) for n, i in zip(names, images, strict=True)}
    fake_github.commit_files(olds, "an older memory")
    storage = fake_github.client(branch="main")
    batch = WriteBatch.open(storage)
    fake_github.reset_counts()
    report = migrate_pictures(batch)
    batch.commit(COMMIT_MESSAGE)
    assert len(report.migrated) == 2 and report.kept == []
    assert dict(fake_github.counts) == {
        "GET /git/blobs/{sha}": 2,  # each .b64 read once
        "POST /git/blobs": 2,  # each image sent once, base64
        "POST /git/trees": 1,
        "POST /git/commits": 1,
        "PATCH /git/refs/heads/{b}": 1,
    }
    assert fake_github.log()[0].message == COMMIT_MESSAGE
    for name, image in zip(names, images, strict=True):
        assert fake_github.read_bytes(image_path(SLICE, name).value) == image.raw
        assert fake_github.read_bytes(legacy_image_path(SLICE, name).value) is None
    again = WriteBatch.open(storage)
    assert migrate_pictures(again).migrated == [] and not again.commit("again").changed


def test_a_mixed_memory_reads_both_kinds_and_the_page_gets_both(tmp_path: Path) -> None:
    storage = seed(tmp_path, TURNS, ["t00000-1.png"], [], legacy=True)
    [image] = prepare_images([Upload("b.png", png())])
    batch = WriteBatch.open(storage)
    batch.put_bytes(image_path(SLICE, "t00000-2.png"), image.raw)
    batch.commit("a newer picture")
    snap = storage.snapshot()
    assert read_image(snap, SLICE, "t00000-1.png") == (image.raw, "image/png")  # still .b64
    assert read_image(snap, SLICE, "t00000-2.png") == (image.raw, "image/png")  # an image file
    env = make_env(storage=storage)
    for name in ("t00000-1.png", "t00000-2.png"):
        served = env.client.get(f"/api/slices/{SLICE}/images/{name}")
        assert served.status_code == 200 and served.content == image.raw


def test_a_b64_whose_image_file_holds_other_bytes_is_left_and_named(tmp_path: Path) -> None:
    storage = _legacy_memory(tmp_path)
    batch = WriteBatch.open(storage)
    batch.put_bytes(image_path(SLICE, "t00000-1.png"), b"\x89PNG other")
    batch.put(legacy_image_path(SLICE, "t00000-2.png"), "@@ not base64 @@\n")
    batch.commit("trouble")
    batch = WriteBatch.open(storage)
    report = migrate_pictures(batch)
    batch.commit(COMMIT_MESSAGE)
    assert report.migrated == []
    assert [k.split(":", 1)[0] for k in report.kept] == [
        legacy_image_path(SLICE, "t00000-1.png").value,
        legacy_image_path(SLICE, "t00000-2.png").value,
    ]
    assert storage.snapshot().read(legacy_image_path(SLICE, "t00000-2.png")) == "@@ not base64 @@\n"


# A child that migrates a folder memory and freezes at one point of the commit: right before the
# first staged file is renamed into place, or after every image file is in place and before any
# .b64 is removed. The test kills it there with -9.
CHILD = """
import os, sys, time
import core.storage.local as local
from core.media.migrate import COMMIT_MESSAGE, migrate_pictures
from core.storage.base import WriteBatch

root, where = sys.argv[1], sys.argv[2]
def stall(*args, **kwargs):
    print("stalled", flush=True)
    time.sleep(600)
if where == "rename":
    local.os.replace = stall
else:
    local.delete_files = stall
batch = WriteBatch.open(local.LocalStorage(root))
migrate_pictures(batch)
batch.commit(COMMIT_MESSAGE)
"""


@pytest.mark.parametrize("where", ["rename", "delete"])
def test_kill_9_during_migration_loses_no_picture(where: str, tmp_path: Path) -> None:
    storage = _legacy_memory(tmp_path)
    names = ("t00000-1.png", "t00000-2.png")
    before = {n: read_image(storage.snapshot(), SLICE, n)[0] for n in names}
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(tmp_path), where], stdout=subprocess.PIPE, env=env, cwd=REPO_ROOT
    )
    try:
        assert child.stdout is not None and child.stdout.readline().strip() == b"stalled"
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait(30)
    after = LocalStorage(tmp_path)
    assert {n: read_image(after.snapshot(), SLICE, n)[0] for n in names} == before  # every picture
    batch = WriteBatch.open(after)
    migrate_pictures(batch)
    batch.commit(COMMIT_MESSAGE)
    for name, data in before.items():
        assert (tmp_path / image_path(SLICE, name).value).read_bytes() == data
        assert not (tmp_path / legacy_image_path(SLICE, name).value).exists()
    after.clean_temp()


def test_the_page_revalidates_a_picture_so_a_forgotten_one_is_gone_at_once(tmp_path: Path) -> None:
    storage = seed(tmp_path, TURNS, ["t00000-1.png"], [])
    env = make_env(storage=storage)
    url = f"/api/slices/{SLICE}/images/t00000-1.png"
    first = env.client.get(url)
    assert first.status_code == 200 and first.headers["cache-control"] == "private, no-cache"
    again = env.client.get(url, headers={"If-None-Match": first.headers["etag"]})
    assert again.status_code == 304 and again.content == b""
    batch = WriteBatch.open(storage)
    batch.delete(image_path(SLICE, "t00000-1.png"))
    batch.commit("forgotten")
    gone = env.client.get(url, headers={"If-None-Match": first.headers["etag"]})
    assert gone.status_code == 404
