"""build_storage: settings (as the environment gives them) → the right backend."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.memory import paths
from core.memory.paths import MemoryPath
from core.storage.base import Put, Update
from core.storage.demo import DemoStorage
from core.storage.github import GitHubStorage
from core.storage.local import LocalStorage
from functions.compose import backends, demo
from functions.settings import load_settings
from tests.fakes.fake_github import FakeGitHub

pytestmark = pytest.mark.functional

NOTE = MemoryPath("memory/user/note.md")


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in (
        "STORAGE",
        "PREVIOUSLY_MEMORY",
        "GITHUB_TOKEN",
        "GITHUB_REPO",
        "GITHUB_BRANCH",
        "GITHUB_API_URL",
    ):
        monkeypatch.delenv(var, raising=False)


def test_local_is_the_default_and_uses_previously_memory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PREVIOUSLY_MEMORY", str(tmp_path / "mem"))
    storage = backends.build_storage(load_settings())
    assert isinstance(storage, LocalStorage) and storage.root == tmp_path / "mem"
    storage.commit([Put(NOTE, "hi\n")], "m")
    assert (tmp_path / "mem" / NOTE.value).read_text() == "hi\n"


def test_the_memory_override_wins_even_over_github(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GITHUB_TOKEN", "t")
    monkeypatch.setenv("GITHUB_REPO", "octo/memory")
    storage = backends.build_storage(load_settings(), memory_override=tmp_path)
    assert isinstance(storage, LocalStorage) and storage.root == tmp_path


def test_demo_uses_the_bundled_sample(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "memory").mkdir()
    monkeypatch.setattr(demo, "SAMPLE_ROOT", tmp_path)
    monkeypatch.setenv("STORAGE", "demo")
    storage = backends.build_storage(load_settings())
    assert isinstance(storage, DemoStorage) and storage.base == tmp_path and storage.demo
    storage.commit([Put(NOTE, "hi\n")], "m")
    assert not (tmp_path / NOTE.value).exists()


def test_the_sample_location_is_the_repository_sample_folder() -> None:
    assert Path(__file__).resolve().parents[2] / "sample" == demo.SAMPLE_ROOT


def test_github_settings_reach_the_configured_repository(
    fake_github: FakeGitHub, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GITHUB_TOKEN", fake_github.token)
    monkeypatch.setenv("GITHUB_REPO", "octo/memory")
    monkeypatch.setenv("GITHUB_API_URL", fake_github.url)
    storage = backends.build_storage(load_settings())
    assert isinstance(storage, GitHubStorage)
    storage.commit([Put(NOTE, "hi\n")], "Turn t1")
    assert fake_github.read(NOTE.value) == "hi\n"
    assert fake_github.counts["GET /repos/{o}/{r}"] == 1  # no GITHUB_BRANCH: the default branch


def test_a_configured_branch_is_used(fake_github: FakeGitHub, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("STORAGE", "github")
    monkeypatch.setenv("GITHUB_TOKEN", fake_github.token)
    monkeypatch.setenv("GITHUB_REPO", "octo/memory")
    monkeypatch.setenv("GITHUB_BRANCH", "main")
    monkeypatch.setenv("GITHUB_API_URL", fake_github.url)
    storage = backends.build_storage(load_settings())
    storage.snapshot()
    assert "GET /repos/{o}/{r}" not in fake_github.counts


def test_demo_over_the_bundled_sample_reads_the_persona_and_saves_nothing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("STORAGE", "demo")
    storage = backends.build_storage(load_settings())
    snap = storage.snapshot()
    assert snap.read(paths.CATALOG_TOP_JSON) and snap.list(paths.SLICES)
    before = (demo.SAMPLE_ROOT / paths.CARD.value).read_bytes()
    storage.commit([Update(paths.CARD, lambda t: (t or "") + "\n- demo visitor was here\n")], "demo turn")
    assert "demo visitor" in (storage.snapshot().read(paths.CARD) or "")
    assert (demo.SAMPLE_ROOT / paths.CARD.value).read_bytes() == before
