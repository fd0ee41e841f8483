"""The memory commands take their backend from the environment: check and weave on GitHub.

Same commands as on a folder (tests/functional/test_cli_memory.py), here against the GitHub
stand-in selected by GITHUB_TOKEN / GITHUB_REPO / GITHUB_API_URL, with no --memory option.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from functions.cli import cmd_check, cmd_weave  # noqa: F401 - registers the commands
from functions.cli.app import app
from tests.conftest import SAMPLE_ROOT
from tests.fakes.fake_github import FakeGitHub

pytestmark = pytest.mark.functional


def _sample_files() -> dict[str, str]:
    return {
        p.relative_to(SAMPLE_ROOT).as_posix(): p.read_text(encoding="utf-8")
        for p in sorted((SAMPLE_ROOT / "memory").rglob("*"))
        if p.is_file()
    }


def _env(fake: FakeGitHub) -> dict[str, str]:
    return {
        "STORAGE": "",
        "GITHUB_TOKEN": fake.token,
        "GITHUB_REPO": "octo/memory",
        "GITHUB_API_URL": fake.url,
        "PREVIOUSLY_MEMORY": str(Path("/nonexistent-folder")),
    }


def test_check_reads_the_repository_named_by_the_environment(fake_github: FakeGitHub) -> None:
    fake_github.commit_files(_sample_files(), "Seed the sample memory")
    result = CliRunner().invoke(app, ["check"], env=_env(fake_github))
    assert result.exit_code == 0, result.output
    assert "50 slices" in result.output and "No problems found" in result.output


def test_check_reports_a_broken_slice_on_github(fake_github: FakeGitHub) -> None:
    files = _sample_files()
    broken = "memory/episodic/slices/2026/11/26/2010/timeline/core.md"
    files[broken] = "---\nfocus: [\n---\n"
    fake_github.commit_files(files, "Seed with one broken slice")
    result = CliRunner().invoke(app, ["check"], env=_env(fake_github))
    assert result.exit_code == 1
    assert "2026/11/26/2010/timeline/core.md" in result.output


def test_weave_rebuilds_the_indexes_as_one_commit(fake_github: FakeGitHub) -> None:
    files = _sample_files()
    catalog = ("memory/episodic/timeline/catalog.json", "memory/episodic/timeline/index/")
    files = {p: t for p, t in files.items() if not p.startswith(catalog)}
    del files["memory/episodic/timeline.md"]
    fake_github.commit_files(files, "Seed without a catalog")
    commits_before = len(fake_github.log())
    result = CliRunner().invoke(app, ["weave"], env=_env(fake_github))
    assert result.exit_code == 0, result.output
    assert len(fake_github.log()) == commits_before + 1
    index = fake_github.read("memory/episodic/timeline/catalog.json") or ""
    assert '"slice_count": 50' in index
    assert (fake_github.read("memory/episodic/timeline.md") or "").startswith("# Timeline")


@pytest.mark.parametrize("command", [["maintain", "--no-model", "--json"], ["weave", "--json"]])
def test_a_command_that_reads_every_slice_lists_them_in_one_tree_request_with_nothing_cached(
    fake_github: FakeGitHub, tmp_path: Path, command: list[str]
) -> None:
    """maintain and weave list every slice anyway: with an empty cache (a first run) they ask for
    the whole tree at once, not folder by folder as a turn does (functions/compose/backends.py)."""
    from functions.cli import cmd_maintain  # noqa: F401 - registers the command

    fake_github.commit_files(_sample_files(), "Seed the sample memory")
    fake_github.reset_counts()
    env = {**_env(fake_github), "HOME": str(tmp_path), "XDG_CACHE_HOME": str(tmp_path / "cache")}
    result = CliRunner().invoke(app, command, env=env)
    assert result.exit_code == 0, result.output
    trees = [r for r in fake_github.requests if "/git/trees/" in r and r.startswith("GET")]
    assert len(trees) == 1, trees
