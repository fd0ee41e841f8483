"""The preview a forget asks with says what will really go — for an exchange in core.md, one
taken back by Answer again or Edit (its words only in agent.md), and pictures an earlier forget
left behind — the same words on the command line and over HTTP, and it writes nothing."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from core.actions.forget_plan import preview_forget
from core.memory import paths
from core.memory.slice.agent_parts import queue_removal
from core.storage.base import WriteBatch
from core.storage.memory import InMemoryStorage
from functions.cli import _load_commands, app
from tests.functional.api_env import make_env, same_origin
from tests.functional.forget_support import SAMPLE, sample_files
from tests.functional.picture_memory import QUESTION, SLICE, files, picture, seed, taken_back

pytestmark = pytest.mark.functional
_load_commands()
LABEL = "(no focus yet)"
NORMAL = (
    "Turn ua5inA of slice 2025-02-08-1617 — Completion day: the keys, and a hard look at the kitchen.\n"
    '  your message "Unreal. Also the kitchen is worse than I remembered. The units are held together '
    "by paint and one cu\" and its reply (2 turns), and the agent's notes on it."
)
TAKEN_BACK = (
    f"Turn t00001 of slice {SLICE} — {LABEL}\n"
    f'  your message "{QUESTION}" and its reply (taken back by Answer again or Edit; its words are '
    "kept in agent.md), its picture images/t00001-1.png, and the agent's notes on it."
)


@pytest.fixture(autouse=True)
def _local(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("STORAGE", raising=False)
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)


def _forget(root: Path, slice_id: str, turn: str, answer: str) -> tuple[int, str]:
    args = ["forget", slice_id, "--turn", turn, "--memory", str(root)]
    result = CliRunner().invoke(app, args, input=answer)
    return result.exit_code, result.output


def test_a_normal_turn_s_preview_is_unchanged(tmp_path: Path) -> None:
    root = tmp_path / "mem"
    shutil.copytree(SAMPLE / "memory", root / "memory")
    before = files(root)
    code, out = _forget(root, "2025-02-08-1617", "ua5inA", "n\n")
    assert code == 1 and NORMAL in out
    assert files(root) == before
    env = make_env(storage=InMemoryStorage.from_texts(sample_files()))
    r = env.client.get("/api/slices/2025-02-08-1617/turns/ua5inA/forget-preview")
    assert r.status_code == 200, r.text
    assert r.json() == {
        "slice_id": "2025-02-08-1617",
        "turn_id": "ua5inA",
        "whole_slice": False,
        "text": NORMAL,
        "pictures": [],
        "taken_back": False,
    }


def test_a_taken_back_exchange_s_preview_names_its_words_and_pictures(tmp_path: Path) -> None:
    storage = taken_back(tmp_path)
    assert "## Turn t00001 " not in (storage.snapshot().read(paths.core_md(SLICE)) or "")
    before = files(tmp_path)
    code, out = _forget(tmp_path, SLICE, "t00001", "n\n")
    assert code == 1 and TAKEN_BACK in out and "Git history still holds" in out
    assert files(tmp_path) == before
    env = make_env(storage=storage)
    r = env.client.get(f"/api/slices/{SLICE}/turns/t00001/forget-preview")
    assert r.status_code == 200, r.text
    assert r.json() == {
        "slice_id": SLICE,
        "turn_id": "t00001",
        "whole_slice": False,
        "text": TAKEN_BACK,
        "pictures": ["images/t00001-1.png"],
        "taken_back": True,
    }
    assert files(tmp_path) == before
    # Saying yes forgets what the preview named, and nothing else.
    code, out = _forget(tmp_path, SLICE, "t00001", "y\n")
    assert code == 0, out
    after = files(tmp_path)
    assert not [p for p in after if "/images/" in p]
    agent = after[paths.agent_md(SLICE).value].decode()
    assert "t00001" not in agent and "## Cognition t00000 " in agent
    assert after[paths.core_md(SLICE).value] == before[paths.core_md(SLICE).value]


def test_pictures_alone_and_unknown_turns(tmp_path: Path) -> None:
    storage = taken_back(tmp_path)
    batch = WriteBatch.open(storage)
    queue_removal(batch, SLICE, "t00001")  # what a forget before pictures went with it left
    batch.commit("Forget turn t00001 of slice 2026-08-11-1115")
    preview = preview_forget(storage.snapshot(), SLICE, "t00001")
    assert preview.text == (
        f"Turn t00001 of slice {SLICE} — {LABEL}\n"
        "  its picture images/t00001-1.png, left behind by an earlier forget (no words of it remain)."
    )
    env = make_env(storage=storage)
    r = env.client.get(f"/api/slices/{SLICE}/turns/zzzzzz/forget-preview")
    assert r.status_code == 404 and "has no turn zzzzzz" in r.json()["message"]
    assert env.client.get("/api/slices/2030-01-01-0000/turns/t00001/forget-preview").status_code == 404
    code, out = _forget(tmp_path, SLICE, "zzzzzz", "y\n")
    assert code == 1 and "has no turn zzzzzz" in out


def test_a_normal_turn_with_pictures_and_the_last_exchange(tmp_path: Path) -> None:
    turns = [("user", f"{QUESTION}\n\n![b.png](../images/t00000-1.png)"), ("agent", "One square.")]
    storage = seed(tmp_path, turns, ["t00000-1.png", "t00000-2.png"], [])
    assert storage.snapshot().read_bytes(picture(SLICE, "t00000-2.png")) is not None
    preview = preview_forget(storage.snapshot(), SLICE, "t00000")
    assert preview.whole_slice and preview.text == (
        f"Turn t00000 of slice {SLICE} — {LABEL}\n"
        f'  your message "{QUESTION}" and its reply (2 turns), its 2 pictures '
        "(images/t00000-1.png, images/t00000-2.png), and the agent's notes on it.\n"
        "  It is the slice's last exchange, so the whole slice goes with it."
    )
    env = make_env(storage=storage)
    whole = env.client.get(f"/api/slices/{SLICE}/forget-preview").json()
    assert whole["whole_slice"] and whole["text"].startswith(f"Slice {SLICE} — {LABEL}\n  2 turns,")
    assert whole["pictures"] == ["images/t00000-1.png", "images/t00000-2.png"]
    r = env.client.delete(f"/api/slices/{SLICE}/turns/t00000", headers=same_origin())
    assert r.status_code == 200 and r.json()["whole_slice"] is True


def test_the_preview_of_odd_exchanges_says_what_it_can(tmp_path: Path) -> None:
    """A message of pictures alone, and a taken-back entry whose words do not read back (edited
    by hand): the preview still says what goes, never `your message ""`."""
    turns = [
        ("user", "Hi."),
        ("agent", "Hello."),
        ("user", "\n\n![b.png](../images/t00001-1.png)"),
        ("agent", "A square."),
    ]
    storage = seed(tmp_path, turns, ["t00001-1.png"], [])
    preview = preview_forget(storage.snapshot(), SLICE, "t00001")
    assert "your message (pictures, no words) and its reply (2 turns), its picture" in preview.text
    agent = tmp_path / paths.agent_md(SLICE).value
    agent.write_text("## Cognition t00007 — 2026-08-11T11:16:00.000Z (replaced)\n\nedited by hand\n")
    preview = preview_forget(storage.snapshot(), SLICE, "t00007")
    assert preview.taken_back and preview.text.endswith(
        "  the exchange (taken back by Answer again or Edit; its words are kept in agent.md)."
    )
