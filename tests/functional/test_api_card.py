"""The card routes: read, edit, delete, undo, redo, history, restore — over HTTP."""

from __future__ import annotations

import pytest

from core.storage.memory import InMemoryStorage
from tests.functional.api_env import make_env, same_origin
from tests.unit.card_samples import CARD_TEXT, previous_card

pytestmark = pytest.mark.functional
CARD_PATH = "memory/episodic/current-previously.md"


def _env():  # type: ignore[no-untyped-def]
    return make_env(storage=InMemoryStorage.from_texts({CARD_PATH: CARD_TEXT}))


def test_get_lists_entries_numbered_and_flagged() -> None:
    data = _env().client.get("/api/card?tz=Europe/London").json()
    assert data["markdown"] == CARD_TEXT and data["can_undo"] is False
    addresses = [(e["section"], e["n"], e["flag"]) for e in data["entries"]]
    assert ("now", 2, "stale") in addresses  # since 2026-08-01, ten days before the fixed clock
    assert ("horizon", 2, "overdue") in addresses
    assert ("now", 1, None) in addresses


def test_edit_then_undo_then_redo() -> None:
    env = _env()
    r = env.client.patch(
        "/api/card/entries/now/1", json={"text": "Training for a 10K"}, headers=same_origin()
    )
    assert r.status_code == 200
    data = r.json()
    assert data["can_undo"] is True
    assert next(e["text"] for e in data["entries"] if e["section"] == "now") == "Training for a 10K"
    assert previous_card(env.storage.snapshot()) == CARD_TEXT
    undone = env.client.post("/api/card/undo", headers=same_origin()).json()
    assert undone["markdown"] == CARD_TEXT and undone["can_undo"] is False and undone["can_redo"] is True
    redo = env.client.post("/api/card/redo", headers=same_origin()).json()
    assert "Training for a 10K" in redo["markdown"] and redo["can_redo"] is False


def test_delete_one_entry() -> None:
    env = _env()
    r = env.client.delete("/api/card/entries/self_model/1", headers=same_origin())
    assert r.status_code == 200
    assert "Lead with empathy" not in r.json()["markdown"]
    assert "Training for a 5K" in r.json()["markdown"]


def test_section_aliases_are_accepted() -> None:
    env = _env()
    r = env.client.patch("/api/card/entries/Self-model/1", json={"text": "Be brief"}, headers=same_origin())
    assert r.status_code == 200 and "- Be brief" in r.json()["markdown"]


def test_empty_memory_card_and_undo() -> None:
    env = make_env()
    assert env.client.get("/api/card").json() == {
        "markdown": "",
        "entries": [],
        "updated": None,
        "can_undo": False,
        "can_redo": False,
    }
    r = env.client.post("/api/card/undo", headers=same_origin())
    assert r.status_code == 404 and "earlier version" in r.json()["message"]


def test_card_mutations_need_the_same_origin() -> None:
    env = _env()
    r = env.client.delete("/api/card/entries/now/1", headers={"origin": "https://evil.example"})
    assert r.status_code == 403
    assert env.files() == {CARD_PATH: CARD_TEXT}


def _edit(env, text: str) -> None:  # type: ignore[no-untyped-def]
    r = env.client.patch("/api/card/entries/now/1", json={"text": text}, headers=same_origin())
    assert r.status_code == 200, r.text


def _now_1(data: dict) -> str:  # type: ignore[type-arg]
    return next(e["text"] for e in data["entries"] if e["section"] == "now")


def test_undo_twice_goes_two_changes_back_and_redo_steps_forward() -> None:
    env = _env()
    _edit(env, "Training for a 10K")
    _edit(env, "Training for a half marathon")
    steps = [env.client.post("/api/card/undo", headers=same_origin()).json() for _ in range(2)]
    assert [_now_1(s) for s in steps] == ["Training for a 10K", "Training for a 5K"]
    assert steps[-1]["markdown"] == CARD_TEXT
    assert env.client.post("/api/card/undo", headers=same_origin()).status_code == 404
    again = env.client.post("/api/card/redo", headers=same_origin()).json()
    assert _now_1(again) == "Training for a 10K" and again["can_redo"] is True


def test_history_lists_versions_newest_first_and_restore_is_undoable() -> None:
    env = _env()
    _edit(env, "Training for a 10K")
    _edit(env, "Training for a half marathon")
    data = env.client.get("/api/card/history").json()
    assert data["total"] == 2 and data["can_undo"] and not data["can_redo"]
    live, second, first = data["versions"]
    assert live["id"] is None and live["by"] == "user" and live["at"] == "2026-08-11T11:15:00.000Z"
    assert (live["added"], live["removed"]) == (1, 1) and "half marathon" not in str(second)
    assert live["sample"] == {"type": "added", "text": "Training for a half marathon"}
    assert first["by"] is None and first["added"] is None and data["undo_to"] == second["id"]
    r = env.client.post(f"/api/card/history/{first['id']}/restore", headers=same_origin())
    assert r.status_code == 200 and r.json()["markdown"] == CARD_TEXT and r.json()["can_undo"]
    after = env.client.get("/api/card/history?limit=1").json()
    assert after["total"] == 3 and len(after["versions"]) == 2 and after["versions"][0]["by"] == "restore"
    undone = env.client.post("/api/card/undo", headers=same_origin()).json()
    assert _now_1(undone) == "Training for a half marathon"


def test_restore_refuses_unknown_or_malformed_versions_and_writes_nothing() -> None:
    env = _env()
    before = env.files()
    missing = env.client.post(
        "/api/card/history/000009-20260811T111500Z-user-0a1b2c3d/restore", headers=same_origin()
    )
    assert missing.status_code == 404 and "GET /api/card/history" in missing.json()["message"]
    for bad in ("..%2Fcurrent", "x" * 70, "000001-2026-user-zz"):
        assert env.client.post(f"/api/card/history/{bad}/restore", headers=same_origin()).status_code in (
            400,
            404,
            422,
        )
    assert env.client.get("/api/card/history?limit=0").status_code in (400, 422)
    assert env.client.post("/api/card/redo", headers=same_origin()).status_code == 404
    assert env.files() == before


def test_history_routes_need_the_same_origin() -> None:
    env = _env()
    _edit(env, "Training for a 10K")
    before = env.files()
    for path in ("/api/card/redo", "/api/card/undo"):
        assert env.client.post(path, headers={"origin": "https://evil.example"}).status_code == 403
    assert env.files() == before
