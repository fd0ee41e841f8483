"""The card routes: read, edit, delete, undo — over HTTP."""

from __future__ import annotations

import pytest

from core.memory.card.store import CARD_PREV
from core.storage.memory import InMemoryStorage
from tests.functional.api_env import make_env, same_origin
from tests.unit.card_samples import CARD_TEXT

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
    assert env.files()[str(CARD_PREV)] == CARD_TEXT
    assert env.client.post("/api/card/undo", headers=same_origin()).json()["markdown"] == CARD_TEXT
    redo = env.client.post("/api/card/undo", headers=same_origin()).json()["markdown"]
    assert "Training for a 10K" in redo


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
    }
    r = env.client.post("/api/card/undo", headers=same_origin())
    assert r.status_code == 404 and "earlier version" in r.json()["message"]


def test_card_mutations_need_the_same_origin() -> None:
    env = _env()
    r = env.client.delete("/api/card/entries/now/1", headers={"origin": "https://evil.example"})
    assert r.status_code == 403
    assert env.files() == {CARD_PATH: CARD_TEXT}
