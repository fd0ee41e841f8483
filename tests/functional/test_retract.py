"""Taking the last exchange back (regenerate, edit and resend): its words move to agent.md."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.actions.retract import retract_exchange
from core.clock import FixedClock
from core.errors import InvalidInput, NotFound
from core.memory.paths import agent_md, core_md
from core.memory.slice.model import parse_core_md
from core.storage.memory import InMemoryStorage
from tests.fakes.slices import slice_text
from tests.functional.api_env import make_env, same_origin

pytestmark = pytest.mark.functional
SID = "2026-08-10-0900"
CLOCK = "2026-08-10T09:05:00.000Z"


def _storage(reply: str = "Use rye.", status: str = "active") -> InMemoryStorage:
    text = slice_text(
        SID,
        [("user", "Hello"), ("agent", "Hi!"), ("user", "Which flour?"), ("agent", reply)],
        status=status,
    )
    return InMemoryStorage(
        {core_md(SID): text, agent_md(SID): "## Cognition t00000 — x\n\n### Thinking\nhm\n"}
    )


def test_the_last_exchange_moves_to_agent_md_word_for_word() -> None:
    storage = _storage()
    out = retract_exchange(storage, SID, "t00001", FixedClock.at(CLOCK))
    assert out.message == "Which flour?" and out.had_reply
    s = parse_core_md(storage.files[core_md(SID)])
    assert [t.content for t in s.turns] == ["Hello", "Hi!"]
    agent = storage.files[agent_md(SID)]
    assert agent.startswith("## Cognition t00000 — x\n\n### Thinking\nhm\n")
    assert f"## Cognition t00001 — {CLOCK} (replaced)" in agent
    assert "```\nWhich flour?\n```" in agent and "```\nUse rye.\n```" in agent
    assert [m for m, _ in storage.commits] == ["Turn t00001 — taken back to be answered again"]


@settings(max_examples=40, deadline=None)
@given(st.text(st.characters(codec="utf-8", blacklist_characters="\r"), min_size=1, max_size=200))
def test_any_reply_text_survives_in_agent_md(reply: str) -> None:
    storage = _storage(reply=reply.replace("## Turn ", "").strip() or "x")
    before = parse_core_md(storage.files[core_md(SID)]).turns[-1].content
    retract_exchange(storage, SID, "t00001", FixedClock.at(CLOCK))
    assert before in storage.files[agent_md(SID)]


def test_only_the_last_exchange_of_an_open_slice() -> None:
    with pytest.raises(InvalidInput, match="not the last exchange"):
        retract_exchange(_storage(), SID, "t00000", FixedClock.at(CLOCK))
    with pytest.raises(InvalidInput, match="has closed"):
        retract_exchange(_storage(status="closed"), SID, "t00001", FixedClock.at(CLOCK))
    with pytest.raises(NotFound, match="has no turn zzz"):
        retract_exchange(_storage(), SID, "zzz", FixedClock.at(CLOCK))


def test_the_route_answers_the_message_to_send_again() -> None:
    env = make_env(storage=_storage())
    r = env.client.post(f"/api/slices/{SID}/turns/t00001/retract", headers=same_origin())
    assert r.status_code == 200, r.text
    assert r.json() == {
        "slice_id": SID,
        "turn_id": "t00001",
        "message": "Which flour?",
        "had_reply": True,
        "pictures": [],
    }
    r = env.client.post(f"/api/slices/{SID}/turns/t00001/retract", headers=same_origin())
    assert r.status_code == 404


def test_an_exchange_answered_again_can_still_be_forgotten_from_agent_md() -> None:
    from core.actions.forget import forget

    storage = _storage(reply="The secret rye ratio")
    retract_exchange(storage, SID, "t00001", FixedClock.at(CLOCK))
    assert "The secret rye ratio" in storage.files[agent_md(SID)]
    report = forget(storage, SID, FixedClock.at(CLOCK), turn_id="t00001")
    assert not report.whole_slice
    assert "The secret rye ratio" not in storage.files[agent_md(SID)]
    assert storage.files[agent_md(SID)].startswith("## Cognition t00000 — x")
