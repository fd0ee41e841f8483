"""Damaged slice files never stop the rest: maintain, check, search, the timeline and the slice view
name them, serve everything else, and leave them byte for byte as they were."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from core.memory import paths
from core.storage.local import LocalStorage
from functions.cli import cmd_check, cmd_maintain, cmd_weave  # noqa: F401 - registers the commands
from functions.cli.app import app
from functions.compose.deps import KeptIndex
from tests.conftest import SAMPLE_ROOT
from tests.functional.api_env import make_env

pytestmark = pytest.mark.functional

NO_MODEL_ENV = dict.fromkeys(
    ("STORAGE", "GITHUB_TOKEN", "OPENAI_BASE_URL", "OPENAI_API_KEY", "ANTHROPIC_API_KEY"), ""
)
NOT_UTF8, TOO_LARGE, UNCLOSED = "2024-08-04-1932", "2024-09-07-0914", "2024-10-02-1903"
runner = CliRunner()


@pytest.fixture
def damaged(tmp_path: Path) -> Path:
    """The sample memory with one slice not UTF-8, one over the size cap, one with unclosed frontmatter."""
    shutil.copytree(SAMPLE_ROOT / "memory", tmp_path / "memory")
    core = {sid: tmp_path / str(paths.core_md(sid)) for sid in (NOT_UTF8, TOO_LARGE, UNCLOSED)}
    core[NOT_UTF8].write_bytes(core[NOT_UTF8].read_bytes() + b"\xff\xfe broken")
    core[TOO_LARGE].write_bytes(core[TOO_LARGE].read_bytes() + b"x" * 1_100_000)
    text = core[UNCLOSED].read_bytes()
    close = text.index(b"\n---", 3)
    core[UNCLOSED].write_bytes(text[:close] + text[close + 4 :])
    return tmp_path


def _hashes(root: Path) -> dict[str, str]:
    return {
        sid: hashlib.sha256((root / str(paths.core_md(sid))).read_bytes()).hexdigest()
        for sid in (NOT_UTF8, TOO_LARGE, UNCLOSED)
    }


def _run(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, list(args), env=NO_MODEL_ENV)
    return result.exit_code, result.output


def test_maintain_skips_and_names_damaged_slices_and_writes_the_rest(damaged: Path) -> None:
    before = _hashes(damaged)
    code, out = _run("maintain", "--no-model", "--full", "--memory", str(damaged))
    assert code == 0, out
    for sid in (NOT_UTF8, TOO_LARGE, UNCLOSED):
        assert f"damaged, skipped and left as it is: {paths.core_md(sid)}" in out
    assert "search index rebuilt: 48 slices" in out  # every readable slice is indexed
    assert _hashes(damaged) == before
    code, out = _run("maintain", "--no-model", "--json", "--memory", str(damaged))
    assert code == 0 and len(json.loads(out)["damaged"]) == 3
    assert _hashes(damaged) == before


def test_check_names_each_damaged_slice(damaged: Path) -> None:
    code, out = _run("check", "--memory", str(damaged))
    assert code == 1
    assert "not UTF-8" in out and "too large" in out and "no closing `---`" in out


def test_the_api_serves_everything_else_and_names_the_damage(damaged: Path) -> None:
    before = _hashes(damaged)
    (damaged / str(paths.CATALOG_TOP_JSON)).unlink()
    code, out = _run("weave", "--memory", str(damaged))  # a fresh catalog skips what it cannot read
    assert code == 0 and "catalog: 47 entries" in out
    env = make_env(storage=LocalStorage(damaged), search=KeptIndex())  # type: ignore[arg-type]

    r = env.client.get("/api/search", params={"q": "Rosa"})
    assert r.status_code == 200 and r.json()["hits"]

    timeline = {e["id"]: e for e in env.client.get("/api/timeline").json()["slices"]}
    assert len(timeline) == 50
    assert all(timeline[sid]["problem"] for sid in (NOT_UTF8, TOO_LARGE, UNCLOSED))
    assert sum(1 for e in timeline.values() if e.get("problem")) == 3

    unreadable = env.client.get(f"/api/slices/{NOT_UTF8}").json()
    assert unreadable["turns"] == [] and "not UTF-8" in unreadable["problem"]
    big = env.client.get(f"/api/slices/{TOO_LARGE}").json()
    assert big["turns"] == [] and "too large" in big["problem"]
    unclosed = env.client.get(f"/api/slices/{UNCLOSED}").json()
    assert unclosed["turns"] and "no closing `---`" in unclosed["problem"]
    assert env.client.get("/api/slices/2024-08-19-1845").json()["problem"] is None
    assert _hashes(damaged) == before
