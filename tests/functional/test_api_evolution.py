"""The evolution routes: the view, rejecting a hypothesis, editing a playbook, undo — and bad input."""

from __future__ import annotations

import pytest

from core.memory.evolution.fitness import Fitness, Score, Signal, render_fitness
from core.memory.evolution.paths import DIRECTION_MD, FITNESS_JSON, playbook_md
from core.storage.memory import InMemoryStorage
from tests.fakes.evolution import DIRECTION_REF, direction_text
from tests.functional.api_env import ApiEnv, make_env, same_origin

pytestmark = pytest.mark.functional
REF = DIRECTION_REF
DIRECTION = direction_text("2026-08-20", "2026-08-01")  # h2 has expired by the clock's 2026-08-11
LEDGER = render_fitness(
    Fitness(
        scores=[Score("2026-08-01-0900", "recall", -1, "you already told me", "t")],
        signals=[Signal("stop", "t")],
    )
)


def _env() -> ApiEnv:
    files = {
        str(DIRECTION_MD): DIRECTION,
        str(FITNESS_JSON): LEDGER,
        str(playbook_md("recall")): "By date.\n",
    }
    return make_env(storage=InMemoryStorage.from_texts(files))


def test_the_view_shows_everything_with_its_evidence() -> None:
    data = _env().client.get("/api/evolution").json()
    assert data["portrait"] == [{"text": "Thinks aloud before deciding", "refs": [REF]}]
    assert [(h["id"], h["expired"]) for h in data["hypotheses"]] == [("h1", False), ("h2", True)]
    assert data["scores"][0]["evidence"] == "you already told me" and data["signals"][0]["kind"] == "stop"
    books = {b["agent"]: b for b in data["playbooks"]}
    assert books["recall"] == {"agent": "recall", "text": "By date.\n", "can_undo": False}
    assert books["search"]["text"] is None and data["can_undo_direction"] is False


def test_reject_a_hypothesis_then_undo() -> None:
    env = _env()
    r = env.client.post("/api/evolution/hypotheses/h1/reject", headers=same_origin())
    assert r.status_code == 200
    data = r.json()
    assert [h["id"] for h in data["hypotheses"]] == ["h2"]
    assert data["rejected"] == [{"claim": "Wants the short answer first", "on": "2026-08-11"}]
    assert (
        data["can_undo_direction"] is True and data["portrait"][0]["text"] == "Thinks aloud before deciding"
    )
    back = env.client.post("/api/evolution/undo/direction", headers=same_origin())
    assert back.status_code == 200 and env.files()[str(DIRECTION_MD)] == DIRECTION


def test_edit_a_playbook_then_undo() -> None:
    env = _env()
    r = env.client.put(
        "/api/evolution/playbooks/recall", json={"text": "  Dates first.  "}, headers=same_origin()
    )
    assert r.status_code == 200 and env.files()[str(playbook_md("recall"))] == "Dates first.\n"
    env.client.post("/api/evolution/undo/recall", headers=same_origin())
    assert env.files()[str(playbook_md("recall"))] == "By date.\n"


@pytest.mark.parametrize(
    ("method", "url", "body", "status", "words"),
    [
        ("post", "/api/evolution/hypotheses/h9/reject", None, 404, "no hypothesis 'h9'"),
        ("post", "/api/evolution/hypotheses/zz/reject", None, 400, "hypothesis_id"),
        ("put", "/api/evolution/playbooks/recall", {"text": "   "}, 400, "cannot be empty"),
        ("put", "/api/evolution/playbooks/recall", {"text": "x" * 1300}, 400, "the limit is 1200"),
        ("put", "/api/evolution/playbooks/mail", {"text": "hi"}, 400, "agent: Input should be"),
        ("post", "/api/evolution/undo/search", None, 404, "no earlier version"),
    ],
)
def test_bad_requests_change_nothing(
    method: str, url: str, body: dict | None, status: int, words: str
) -> None:
    env = _env()
    before = dict(env.files())
    kwargs = {"json": body} if body is not None else {}
    r = getattr(env.client, method)(url, headers=same_origin(), **kwargs)
    assert r.status_code == status, r.text
    assert words in r.text
    assert env.files() == before


def test_a_damaged_ledger_is_named_and_left_alone() -> None:
    env = make_env(storage=InMemoryStorage.from_texts({str(FITNESS_JSON): "{oops"}))
    data = env.client.get("/api/evolution").json()
    assert "not valid JSON" in data["fitness_error"] and data["scores"] == []
    assert env.files()[str(FITNESS_JSON)] == "{oops"


def test_an_empty_memory_has_an_empty_layer() -> None:
    data = make_env().client.get("/api/evolution").json()
    assert (data["portrait"], data["hypotheses"], data["scores"]) == ([], [], [])
    assert [b["text"] for b in data["playbooks"]] == [None, None, None]
