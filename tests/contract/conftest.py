"""Every storage backend behind one harness, so one contract suite runs against all of them."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from core.memory.paths import MEMORY, SLICES, MemoryPath
from core.storage.base import Storage
from core.storage.demo import DemoStorage
from core.storage.disk_cache import DiskCache
from core.storage.github import GitHubStorage
from core.storage.github_listing import LazyTrees
from core.storage.local import LocalStorage
from core.storage.memory import InMemoryStorage
from tests.fakes.fake_github import FakeGitHub

# "github-lazy": GitHub as functions/compose builds it (slices listed a month at a time as reads
# need them, a shared disk cache that each reopened storage, a new process, finds).
BACKENDS = ["memory", "local", "local-git", "github", "github-lazy", "demo", "demo-s3"]


@dataclass
class Backend:
    """One backend under test plus what a test needs to look behind it."""

    name: str
    storage: Storage
    # Seed files as if written by someone else (bypasses every check; bytes are written raw).
    seed: Callable[[dict[str, str | bytes]], None]
    # Another writer on the same memory (a new instance where the backend has a shared store).
    other_writer: Callable[[], Storage]
    # Commit messages, newest first; None for a backend that keeps no history.
    history: Callable[[], list[str] | None]
    fake: FakeGitHub | None = None
    root: Path | None = None
    extras: dict[str, object] = field(default_factory=dict)

    def stored(self) -> dict[str, str]:
        """Every memory/ file as a fresh reader of this memory sees it."""
        snap = self.other_writer().snapshot()
        return {p.value: snap.read(p) or "" for p in snap.list(MEMORY)}


def git(root: Path, *args: str) -> str:
    """Run git in `root` with a fixed identity; stdout."""
    env = {**os.environ, "GIT_AUTHOR_NAME": "T", "GIT_AUTHOR_EMAIL": "t@example.test"}
    env.update(GIT_COMMITTER_NAME="T", GIT_COMMITTER_EMAIL="t@example.test")
    done = subprocess.run(
        ["git", "-C", str(root), *args], capture_output=True, text=True, env=env, check=True
    )
    return done.stdout


def write_raw(root: Path, files: dict[str, str | bytes]) -> None:
    for rel, content in files.items():
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(content.encode("utf-8") if isinstance(content, str) else content)


def _memory_backend() -> Backend:
    storage = InMemoryStorage()

    def seed(files: dict[str, str | bytes]) -> None:
        for rel, content in files.items():
            storage.files[MemoryPath(rel)] = content

    return Backend(
        "memory", storage, seed, lambda: storage, lambda: [m for m, _ in reversed(storage.commits)]
    )


def _local_backend(tmp: Path, with_git: bool) -> Backend:
    root = tmp / "memory-root"
    if with_git:
        root.mkdir()
        git(root, "init", "-q", "-b", "main")
        write_raw(root, {"README.md": "# my memory\n"})
        git(root, "add", "README.md")
        git(root, "commit", "-q", "-m", "Initial commit")

    def seed(files: dict[str, str | bytes]) -> None:
        write_raw(root, files)
        if with_git:
            git(root, "add", "--", *files)
            git(root, "commit", "-q", "-m", "seed")

    def history() -> list[str] | None:
        return git(root, "log", "--format=%s").splitlines() if with_git else None

    name = "local-git" if with_git else "local"
    return Backend(name, LocalStorage(root), seed, lambda: LocalStorage(root), history, root=root)


def _github_backend(fake: FakeGitHub, cache: Path | None = None) -> Backend:
    def seed(files: dict[str, str | bytes]) -> None:
        fake.commit_files(dict(files), "seed")

    def client() -> GitHubStorage:
        if cache is None:
            return fake.client()
        return fake.client(lazy=LazyTrees(SLICES.value), disk_cache=DiskCache(cache))

    name = "github" if cache is None else "github-lazy"
    return Backend(name, client(), seed, client, lambda: [c.message for c in fake.log()], fake=fake)


def _demo_backend(tmp: Path) -> Backend:
    base = tmp / "sample"
    (base / "memory").mkdir(parents=True)
    storage = DemoStorage(base)
    return Backend(
        "demo", storage, lambda files: write_raw(base, files), lambda: storage, lambda: None, root=base
    )


def _demo_s3_backend(tmp: Path) -> Backend:
    """The demo as a deployment runs it: the overlay in a (moto) S3 bucket; another writer is
    another container, with its own S3Overlay on the same bucket."""
    import boto3

    from core.clock import SystemClock
    from functions.aws.demo_overlay import S3Overlay

    base = tmp / "sample"
    (base / "memory").mkdir(parents=True)
    client = boto3.client("s3", region_name="us-east-1")
    client.create_bucket(Bucket="runs")

    def open_demo() -> DemoStorage:
        return DemoStorage(base, lambda persona: S3Overlay(client, "runs", persona, SystemClock()))

    return Backend(
        "demo-s3", open_demo(), lambda files: write_raw(base, files), open_demo, lambda: None, root=base
    )


def make_backend(name: str, tmp: Path, fake: FakeGitHub | None) -> Backend:
    if name == "memory":
        return _memory_backend()
    if name in ("local", "local-git"):
        return _local_backend(tmp, with_git=name == "local-git")
    if name in ("github", "github-lazy"):
        assert fake is not None
        return _github_backend(fake, tmp / "github-cache" if name == "github-lazy" else None)
    if name == "demo-s3":
        return _demo_s3_backend(tmp)
    return _demo_backend(tmp)


@contextmanager
def open_backend(name: str, tmp: Path) -> Iterator[Backend]:
    """The backend `name`, with what it runs against (the fake GitHub, moto's S3) up around it."""
    if name in ("github", "github-lazy"):
        with FakeGitHub(tmp / "fake-github.git") as fake:
            yield make_backend(name, tmp, fake)
    elif name == "demo-s3":
        from moto import mock_aws

        from tests.fakes.moto_s3 import atomic_requests

        with mock_aws(), atomic_requests():
            yield make_backend(name, tmp, None)
    else:
        yield make_backend(name, tmp, None)


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Backend]:
    """Each backend in turn (the GitHub one against a running fake)."""
    with open_backend(request.param, tmp_path) as opened:
        yield opened


def backend_fixture(*names: str):  # type: ignore[no-untyped-def]
    """A fixture over a subset of the backends (for behaviour only some of them have)."""

    @pytest.fixture(params=list(names))
    def _fixture(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Backend]:
        with open_backend(request.param, tmp_path) as opened:
            yield opened

    return _fixture
