"""`previously check`, `weave` and `import` on small trees in a temporary folder (Typer's CliRunner)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from core.memory import paths
from core.memory.catalog.index import stored_index_text
from core.memory.catalog.strand_shards import read_all_strands
from core.storage.local import LocalStorage
from functions.cli import cmd_check, cmd_import, cmd_weave  # noqa: F401 - registers the commands
from functions.cli.app import app
from tests.conftest import SAMPLE_ROOT

pytestmark = pytest.mark.functional

runner = CliRunner()


def _run(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, list(args), env={"STORAGE": "", "GITHUB_TOKEN": ""})
    return result.exit_code, result.output


def _write(root: Path, path: paths.MemoryPath | str, text: str) -> None:
    file = root / str(path)
    file.parent.mkdir(parents=True, exist_ok=True)
    file.write_text(text, encoding="utf-8")


CORE = (
    "---\nslice_id: {sid}\nfocus: {focus}\nstatus: closed\nstart: '2026-08-01T09:00:00.000Z'\n"
    "tags:\n  - garden\n---\n## Turn a1 — 2026-08-01T09:00:00.000Z (user)\n\nHello\n"
)
BROKEN = "---\nfocus: [\n---\n"


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    for sid, focus in (("2026-08-01-0900", "Seeds"), ("2026-08-02-0900", "Watering")):
        _write(tmp_path, paths.core_md(sid), CORE.format(sid=sid, focus=focus))
    return tmp_path


def test_check_passes_on_a_healthy_tree_and_fails_on_errors(tree: Path) -> None:
    code, out = _run("check", "--memory", str(tree))
    assert code == 0 and "No problems found." in out
    _write(tree, paths.core_md("2026-08-03-0900"), "---\nfocus: A: B\n---\n")
    code, out = _run("check", "--memory", str(tree))
    assert code == 1
    assert "memory/episodic/slices/2026/08/03/0900/timeline/core.md:2: error:" in out
    code, out = _run("check", "--memory", str(tree), "--json")
    report = json.loads(out)
    assert code == 1 and report["ok"] is False and report["errors"][0]["line"] == 2


def test_check_refuses_a_missing_folder_and_creates_nothing(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere"
    code, out = _run("check", "--memory", str(missing))
    assert code == 1 and "no memory at" in out
    assert not missing.exists()


def test_check_is_read_only(tree: Path) -> None:
    before = sorted(p.relative_to(tree) for p in tree.rglob("*"))
    _run("check", "--memory", str(tree))
    assert sorted(p.relative_to(tree) for p in tree.rglob("*")) == before


def test_weave_builds_indexes_then_has_nothing_to_do(tree: Path) -> None:
    code, out = _run("weave", "--memory", str(tree), "--dry-run")
    assert code == 0 and "Would change" in out and "timeline/catalog.json (new)" in out
    assert not (tree / str(paths.CATALOG_TOP_JSON)).exists()
    code, out = _run("weave", "--memory", str(tree))
    assert code == 0 and "Changed" in out
    index = json.loads(stored_index_text(LocalStorage(tree).snapshot()) or "")
    assert [e["id"] for e in index["slices"]] == ["2026-08-01-0900", "2026-08-02-0900"]
    strands = read_all_strands(LocalStorage(tree).snapshot())
    assert strands == {"garden": ["2026/08/01/0900", "2026/08/02/0900"]}
    assert (tree / "memory/episodic/slices/2026/08/_index.json").is_file()
    code, out = _run("weave", "--memory", str(tree), "--json")
    report = json.loads(out)
    assert code == 0 and report["changes"] == [] and report["catalog"]["total"] == 2


def test_weave_drops_phantoms_and_skips_broken_slices(tree: Path) -> None:
    _run("weave", "--memory", str(tree))
    shutil.rmtree(tree / str(paths.slice_dir("2026-08-02-0900")))
    _write(tree, paths.core_md("2026-08-04-0900"), BROKEN)
    code, out = _run("weave", "--memory", str(tree), "--json")
    report = json.loads(out)
    assert code == 0
    assert report["catalog"]["total"] == 1 and report["unreadable"] == ["2026-08-04-0900"]
    assert report["strand_phantoms_dropped"] == 1
    assert (tree / str(paths.core_md("2026-08-04-0900"))).read_text(
        encoding="utf-8"
    ) == "---\nfocus: [\n---\n"


def test_weave_writes_zh_labels_when_the_memory_says_so(tree: Path) -> None:
    _write(tree, paths.CONFIG_JSON, json.dumps({"locale": "zh"}))
    _run("weave", "--memory", str(tree))
    assert "- **2026-08-02-0900** Watering · 1轮 [garden]" in (tree / str(paths.TIMELINE_MD)).read_text(
        "utf-8"
    )


LOCOMO = {
    "sample_id": "conv-7",
    "conversation": {
        "speaker_a": "Ann",
        "speaker_b": "Bo",
        "session_1_date_time": "1:56 pm on 8 May, 2023",
        "session_1": [{"speaker": "Ann", "text": "Hi"}, {"speaker": "Bo", "text": "Hello"}],
        "session_2_date_time": "9:05 am on 12 May, 2023",
        "session_2": [{"speaker": "Ann", "text": "Back again"}],
    },
}


def test_import_locomo_twice_and_pick_a_conversation(tmp_path: Path) -> None:
    file = tmp_path / "locomo.json"
    file.write_text(json.dumps([LOCOMO, {**LOCOMO, "sample_id": "conv-8"}]), encoding="utf-8")
    memory = tmp_path / "mem"
    code, out = _run("import", "--format", "locomo", str(file), "--memory", str(memory))
    assert code == 1 and "choose one with --conversation" in out and not memory.exists()
    code, out = _run(
        "import", "--format", "locomo", str(file), "--conversation", "conv-7", "--memory", str(memory)
    )
    assert code == 0 and "2 slices imported" in out
    core = (memory / str(paths.core_md("2023-05-08-1356"))).read_text(encoding="utf-8")
    assert "status: closed" in core and "(agent)\n\nHello" in core
    code, out = _run(
        "import",
        "--format",
        "locomo",
        str(file),
        "--conversation",
        "conv-7",
        "--memory",
        str(memory),
        "--json",
    )
    report = json.loads(out)
    assert code == 0 and report["imported"] == [] and len(report["unchanged"]) == 2
    assert (memory / str(paths.CATALOG_TOP_JSON)).is_file()
    code, _ = _run("check", "--memory", str(memory))
    assert code == 0


def test_import_rejects_unknown_formats_and_unreadable_files(tmp_path: Path) -> None:
    code, out = _run("import", "--format", "csv", "x.json", "--memory", str(tmp_path))
    assert code == 2 and "csv" in out
    code, out = _run(
        "import", "--format", "locomo", str(tmp_path / "missing.json"), "--memory", str(tmp_path)
    )
    assert code == 1 and "Cannot read" in out
    bad = tmp_path / "bad.json"
    bad.write_text("{", encoding="utf-8")
    code, out = _run("import", "--format", "locomo", str(bad), "--memory", str(tmp_path / "m"))
    assert code == 1 and "not valid JSON" in out


def test_the_sample_memory_checks_clean_and_weaves_to_itself(tmp_path: Path) -> None:
    copy = tmp_path / "sample"
    shutil.copytree(SAMPLE_ROOT / "memory", copy / "memory")
    code, out = _run("check", "--memory", str(copy))
    assert code == 0 and "50 slices" in out
    code, out = _run("weave", "--memory", str(copy), "--dry-run", "--json")
    assert code == 0 and json.loads(out)["changes"] == []
