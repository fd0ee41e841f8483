"""`previously check` names the picture files no turn refers to any more — as warnings, with
the slice and the command that removes them — and never one that a turn, or a taken-back
exchange's words in agent.md, still links; on real memory folders."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from core.actions.forget import forget
from core.actions.forget_plan import preview_forget
from core.actions.retract import retract_exchange
from core.memory import paths
from core.memory.slice.agent_parts import queue_removal
from core.storage.base import WriteBatch
from core.storage.local import LocalStorage
from functions.cli import _load_commands, app
from tests.functional.forget_support import sample_files
from tests.functional.picture_memory import CLOCK, QUESTION, SLICE, files, picture, seed, taken_back

pytestmark = pytest.mark.functional
_load_commands()


@pytest.fixture(autouse=True)
def _local(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("STORAGE", raising=False)
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)


def _cli(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.output


def _picture_warnings(root: Path) -> list[dict[str, object]]:
    code, out = _cli("check", "--memory", str(root), "--json")
    report = json.loads(out)
    assert code == (1 if report["errors"] else 0)
    return [w for w in report["warnings"] if "/images/" in str(w["path"])]


def test_a_picture_left_behind_by_an_earlier_forget_is_a_warning_with_the_way_out(tmp_path: Path) -> None:
    storage = taken_back(tmp_path)
    batch = WriteBatch.open(storage)
    queue_removal(batch, SLICE, "t00001")  # a forget before pictures went with their exchange
    batch.commit(f"Forget turn t00001 of slice {SLICE}")
    before = files(tmp_path)
    code, out = _cli("check", "--memory", str(tmp_path))
    assert code == 0, out  # a warning: nothing is lost
    where = picture(SLICE, "t00001-1.png").value
    assert (
        f"{where}: warning: picture of slice {SLICE} that no turn refers to any more: turn t00001 is gone "
        "and no text of the slice links it (left by an earlier forget or an interrupted turn); "
        f"`previously forget {SLICE} --turn t00001` deletes it, or delete the file by hand"
    ) in out
    assert files(tmp_path) == before  # check writes nothing
    [warning] = _picture_warnings(tmp_path)
    assert warning["path"] == where and warning["line"] is None
    # The command it names removes that file and leaves the slices as they were (the forget is
    # noted in the evolution ledger, as every forget is).
    code, out = _cli("forget", SLICE, "--turn", "t00001", "--memory", str(tmp_path), "--yes")
    assert code == 0, out
    assert _picture_warnings(tmp_path) == []
    episodic = "memory/episodic/"
    left = {p: b for p, b in files(tmp_path).items() if p.startswith(episodic)}
    assert left == {p: b for p, b in before.items() if p.startswith(episodic) and p != where}


def test_a_taken_back_exchange_s_pictures_are_not_reported(tmp_path: Path) -> None:
    storage = taken_back(tmp_path)
    assert storage.snapshot().read_bytes(picture(SLICE, "t00001-1.png")) is not None
    assert "t00001-1.png" in (storage.snapshot().read(paths.agent_md(SLICE)) or "")
    assert _picture_warnings(tmp_path) == []


def test_only_pictures_nothing_refers_to_are_reported(tmp_path: Path) -> None:
    """t00000's own picture (linked, and one whose link was edited away: its turn is there),
    t00002-1 (its turn gone, but t00001 links it) stay quiet; t00009-1 (no turn ever) is named."""
    turns = [
        ("user", f"{QUESTION}\n\n![b.png](../images/t00000-1.png)"),
        ("agent", "One square."),
        ("user", "That one again:\n![b.png](../images/t00002-1.png)"),
        ("agent", "Still one square."),
    ]
    seed(tmp_path, turns, ["t00000-1.png", "t00000-2.png", "t00002-1.png", "t00009-1.jpg"], ["t00000"])
    [warning] = _picture_warnings(tmp_path)
    assert warning["path"] == picture(SLICE, "t00009-1.jpg").value
    assert "--turn t00009" in str(warning["message"]) and warning["severity"] == "warning"


def test_a_slice_whose_files_cannot_be_read_is_not_guessed_at(tmp_path: Path) -> None:
    """With core.md broken (its turns unknown) no picture is called unreferenced: the broken
    file is the error to fix."""
    seed(tmp_path, [("user", "Hi."), ("agent", "Hello.")], ["t00005-1.png"], [])
    core = tmp_path / paths.core_md(SLICE).value
    core.write_text("---\nstatus: [unclosed\n---\n## Turn t00000 — 2026-08-11T11:15:00.000Z (user)\nHi.\n")
    code, out = _cli("check", "--memory", str(tmp_path), "--json")
    assert code == 1 and json.loads(out)["errors"]
    assert _picture_warnings(tmp_path) == []


def test_the_sample_memory_has_no_unreferenced_picture(tmp_path: Path) -> None:
    storage = LocalStorage(tmp_path)
    batch = WriteBatch.open(storage)
    for path, text in sample_files().items():
        batch.put(paths.MemoryPath(path), text)
    batch.commit("sample")
    assert _picture_warnings(tmp_path) == []


def test_a_picture_a_taken_back_exchange_links_outlives_its_own_turn(tmp_path: Path) -> None:
    """Forgetting t00000 keeps its picture while t00002's taken-back words link it (the preview
    names no picture); once t00002 is forgotten too, nothing refers to it and check says so."""
    turns = [
        ("user", f"{QUESTION}\n\n![b.png](../images/t00000-1.png)"),
        ("agent", "One square."),
        ("user", "Thanks."),
        ("agent", "You are welcome."),
        ("user", "Again:\n![b.png](../images/t00000-1.png)"),
        ("agent", "Still one square."),
    ]
    storage = seed(tmp_path, turns, ["t00000-1.png"], ["t00000", "t00002"])
    retract_exchange(storage, SLICE, "t00002", CLOCK)
    assert preview_forget(storage.snapshot(), SLICE, "t00000").pictures == []
    forget(storage, SLICE, CLOCK, turn_id="t00000")
    kept = picture(SLICE, "t00000-1.png")
    assert storage.snapshot().read_bytes(kept) is not None and _picture_warnings(tmp_path) == []
    forget(storage, SLICE, CLOCK, turn_id="t00002")
    assert storage.snapshot().read_bytes(kept) is not None
    [warning] = _picture_warnings(tmp_path)
    assert warning["path"] == kept.value and "--turn t00000" in str(warning["message"])


def test_a_picture_cut_short_is_damaged_for_check_and_a_whole_one_is_not(tmp_path: Path) -> None:
    storage = seed(tmp_path, [("user", f"{QUESTION} ![a](../images/t00000-1.png)")], ["t00000-1.png"], [])
    file = tmp_path / picture(SLICE, "t00000-1.png").value
    code, out = _cli("check", "--memory", str(tmp_path), "--json")
    assert not [e for e in json.loads(out)["errors"] if "/images/" in str(e["path"])], out
    whole = file.read_bytes()
    file.write_bytes(whole[: len(whole) // 2])
    code, out = _cli("check", "--memory", str(tmp_path), "--json")
    [error] = [e for e in json.loads(out)["errors"] if "/images/" in str(e["path"])]
    assert code == 1 and "cut short" in str(error["message"]), out
    assert storage.snapshot().read_bytes(picture(SLICE, "t00000-1.png")) == whole[: len(whole) // 2]
