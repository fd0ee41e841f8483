"""A damaged slice file other than core.md — agent.md and its parts, the appendix, the card snapshot,
an attachment, a picture — is named by `previously maintain` and on the page, left byte for byte,
and blocks nothing (core/memory/owners/slice_files.py; docs/FORMAT.md "Who owns each file")."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import CliRunner

from core.clock import FixedClock, SequentialIds
from core.memory import paths
from core.storage.local import LocalStorage
from functions.cli import cmd_maintain  # noqa: F401 - registers the command
from functions.cli.app import app
from tests.fakes.fake_model_server import FakeModelServer
from tests.fakes.files import save_as_an_editor
from tests.fakes.images import jpeg
from tests.functional.api_env import make_env
from tests.functional.turn_support import make_harness

pytestmark = pytest.mark.functional

START = "2026-11-30T10:00:00.000Z"
LATER = "2026-11-30T10:05:00.000Z"
NO_MODEL_ENV = dict.fromkeys(
    ("STORAGE", "GITHUB_TOKEN", "OPENAI_BASE_URL", "OPENAI_API_KEY", "ANTHROPIC_API_KEY"), ""
)
runner = CliRunner()
Damage = Callable[[bytes], bytes]


def _not_utf8(data: bytes) -> bytes:
    return data + b"\xff\xfe not UTF-8"


def _oversized(data: bytes) -> bytes:
    return data + b"x" * 1_000_001


def _truncated(data: bytes) -> bytes:
    return data[: len(data) // 2]


# (file inside the slice folder, its content before the damage (None: the one the turns wrote))
FILES: dict[str, bytes | None] = {
    "timeline/agent.md": None,
    "timeline/agent-2.md": b"## Cognition later \xe2\x80\x94 2026-11-30T10:01:00.000Z\n\nMore.\n",
    "timeline/appendix.md": b"## Moved from core.md\n\nText core.md could not hold.\n",
    "previously.md": None,
    "attachments/notes.txt": b"Notes that came with an imported conversation.\n",
    "images/t1-1.jpg": jpeg(),
}
CASES = [
    *(pytest.param(f, how, id=f"{f}-{how.__name__[1:]}") for f in FILES if not f.endswith(".jpg")
      for how in (_not_utf8, _oversized)),
    pytest.param("images/t1-1.jpg", _truncated, id="picture-truncated"),
    pytest.param("images/t1-1.jpg", _oversized, id="picture-oversized"),
]  # fmt: skip


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """A memory with one slice of two turns, its extra files in place, maintained once (so the
    pass that meets the damage has a record to compare with: only changed folders are read)."""
    root = tmp_path_factory.mktemp("template") / "memory-root"
    with FakeModelServer() as fake:
        h = make_harness(LocalStorage(root), FixedClock.at(START), fake)
        assert h.brain is not None
        h.brain.main("Hello.", "Noted.")
        first = h.turn("Hello, I'm Nell.")
        assert first.status == "done" and h.turn("I live in Bristol.").status == "done"
    assert first.slice_id
    folder = root / paths.slice_dir(first.slice_id).value
    for inner, data in FILES.items():
        if data is not None:
            (folder / inner).parent.mkdir(parents=True, exist_ok=True)
            (folder / inner).write_bytes(data)
    for _ in range(2):  # the first pass marks the slice: its folder is recorded by the second
        for folder, _, _ in os.walk(root):  # written long before the pass, as a memory usually is
            os.utime(folder, (1_700_000_000, 1_700_000_000))
        code, out = _maintain(root)
        assert code == 0 and "damaged" not in out, out
    assert (root / paths.SLICE_CHECKS_JSON.value).exists()
    return root, first.slice_id


def _maintain(root: Path, *args: str) -> tuple[int, str]:
    result = runner.invoke(app, ["maintain", "--no-model", *args, "--memory", str(root)], env=NO_MODEL_ENV)
    return result.exit_code, result.output


@pytest.mark.parametrize(("inner", "how"), CASES)
def test_maintain_and_the_page_name_a_damaged_slice_file_and_nothing_waits(
    template: tuple[Path, str], tmp_path: Path, fake_models: FakeModelServer, inner: str, how: Damage
) -> None:
    root = tmp_path / "memory-root"
    shutil.copytree(template[0], root)
    path = paths.slice_dir(template[1]) / inner
    file = root / path.value
    damaged = how(file.read_bytes())
    save_as_an_editor(file, damaged)

    code, out = _maintain(root)
    assert code == 0, out
    assert f"damaged, skipped and left as it is: {path.value}" in out, out
    code, out = _maintain(root, "--json")  # the folder did not change since: named from the record
    assert code == 0 and any(line.startswith(path.value) for line in json.loads(out)["damaged"]), out

    state = make_env(storage=LocalStorage(root)).client.get("/api/state")
    assert state.status_code == 200, state.text
    assert any(line.startswith(path.value) for line in state.json()["damaged"]), state.json()["damaged"]

    h = make_harness(LocalStorage(root), FixedClock.at(LATER), fake_models)
    assert h.brain is not None and isinstance(h.deps.ids, SequentialIds)
    h.deps.ids.counter = 100  # past the template's turn ids
    h.brain.main("Still here.")
    turn = h.turn("Are you still there?")
    assert turn.status == "done" and turn.reply == "Still here.", turn.events[-1]
    assert turn.slice_id and any(t.content == "Are you still there?" for t in h.slice(turn.slice_id).turns)
    assert file.read_bytes() == damaged, "the damaged file is left byte for byte"


def test_a_repaired_file_is_no_longer_named(template: tuple[Path, str], tmp_path: Path) -> None:
    root = tmp_path / "memory-root"
    shutil.copytree(template[0], root)
    file = root / (paths.slice_dir(template[1]) / "previously.md").value
    good = file.read_bytes()
    save_as_an_editor(file, _not_utf8(good))
    assert "damaged" in _maintain(root)[1]
    save_as_an_editor(file, good)
    code, out = _maintain(root)
    assert code == 0 and "damaged" not in out, out
    assert make_env(storage=LocalStorage(root)).client.get("/api/state").json()["damaged"] == []
