"""One text policy (issue 29): what the user and the model write comes back byte for byte.

The shared strategy (tests/fakes/texts.py) goes through each writer and back out through the
readers the user sees: a message and a model reply through a whole turn into core.md, read
back by the API's slice view and the slice's Markdown download; a note (MCP `remember`) staged
in its file, accepted or appended as a turn; an exchange taken back (Answer again, Edit). The
escape is the file's business: no reader shows its backslashes.
"""

from __future__ import annotations

import os
import re
from datetime import UTC, datetime

import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from core.actions.retract import is_replaced, parse_replaced_body
from core.clock import FixedClock, SequentialIds
from core.errors import InvalidInput
from core.memory.config import UserConfig, merge_config
from core.memory.paths import CARD, core_md
from core.memory.slice.agent_parts import entries_for, read_parts
from core.memory.slice.model import Slice, Turn, parse_core_md, render_core_md
from core.memory.slice.staged_notes import (
    MAX_NOTE_CHARS,
    Remembered,
    accept,
    marked_text,
    read_note,
    remember,
)
from core.memory.slice.view import read_slice_detail
from core.storage.base import WriteBatch
from core.storage.memory import InMemoryStorage
from core.text import js_trim, utf16_len
from functions.api.app import create_app
from tests.fakes.brain import ANALYZER, Brain, analysis
from tests.fakes.fake_model_server import FakeModelServer, Reply
from tests.fakes.texts import PADDED_REPLY, SAMPLES, TEXTS, one_line
from tests.functional.api_env import harness_deps, make_env, same_origin, with_key
from tests.functional.turn_support import Harness, make_harness
from tests.unit.card_samples import CARD_TEXT

pytestmark = pytest.mark.functional

SLOW = settings(
    max_examples=int(os.environ.get("TP_EXAMPLES", "12")),  # more for a long local run
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
START = "2026-08-11T11:15:00.000Z"
NOTE_CLOCK = FixedClock.at("2026-08-11T11:20:00.000Z")


def _turn(fake: FakeModelServer, message: str, reply: str, reasoning: str = "") -> tuple[Harness, str]:
    h = make_harness(InMemoryStorage(), FixedClock.at(START), fake)
    assert isinstance(h.brain, Brain)
    h.brain.reports[ANALYZER] = analysis(["words"])
    h.brain.main(Reply(text=reply, reasoning=reasoning))
    state = h.turn(message)
    assert state.status == "done", state.events[-1]
    assert state.slice_id is not None
    return h, state.slice_id


def _api_turns(h: Harness, slice_id: str) -> list[tuple[str, str]]:
    client = TestClient(create_app(harness_deps(h)), base_url="http://testserver")
    view = client.get(f"/api/slices/{slice_id}", headers=with_key())
    assert view.status_code == 200, view.text
    return [(t["role"], t["content"]) for t in view.json()["turns"]]


def test_a_padded_model_reply_is_stored_as_the_model_wrote_it(fake_models: FakeModelServer) -> None:
    h, slice_id = _turn(fake_models, "Say something padded.", PADDED_REPLY)
    assert [t.content for t in h.slice(slice_id).turns] == ["Say something padded.", PADDED_REPLY]
    assert _api_turns(h, slice_id) == [("user", "Say something padded."), ("agent", PADDED_REPLY)]


@SLOW
@given(message=TEXTS, reply=TEXTS)
@example(message=PADDED_REPLY, reply=PADDED_REPLY)
@example(message=SAMPLES[2], reply=SAMPLES[3])
@example(message=SAMPLES[-1], reply=SAMPLES[5])
def test_message_and_reply_come_back_byte_for_byte(
    fake_models: FakeModelServer, message: str, reply: str
) -> None:
    h, slice_id = _turn(fake_models, message, reply, reasoning=message)
    assert [t.content for t in h.slice(slice_id).turns] == [message, reply]
    assert _api_turns(h, slice_id) == [("user", message), ("agent", reply)]
    client = TestClient(create_app(harness_deps(h)), base_url="http://testserver")
    markdown = client.get(f"/api/slices/{slice_id}/markdown", headers=with_key()).text
    assert message in markdown and reply.rstrip() in markdown  # the download ends its last line once
    state = client.get("/api/state?tz=UTC", headers=with_key()).json()
    assert [t["content"] for t in state["active_turns"]] == [message, reply]
    # agent.md logs the reasoning one paragraph per line; its escape never shows
    cognition = client.get(f"/api/slices/{slice_id}", headers=with_key()).json()["turns"][-1]["cognition"]
    paragraphs = [js_trim(p) for p in re.split(r"\n{2,}", message) if js_trim(p)]
    assert all(p in cognition for p in paragraphs), (paragraphs, cognition)
    assert cognition.count("#\\# Cognition") == message.count("#\\# Cognition")


def _open_slice(storage: InMemoryStorage) -> str:
    """An open slice (one message) the notes can join."""
    turn = Turn("abc123", START, "user", "Hello.")
    s = Slice(slice_id="2026-08-11-1115", start=START, timezone="UTC", turns=[turn])
    storage.files[core_md(s.slice_id)] = render_core_md(s)
    return s.slice_id


def _config(mode: str) -> UserConfig:
    return UserConfig(merge_config({"mcpRemember": mode}))


def _too_long_for_a_note(storage: InMemoryStorage, text: str) -> bool:
    """A note over its cap is refused, saying so, and nothing is written."""
    if utf16_len(text) <= MAX_NOTE_CHARS:
        return False
    before = dict(storage.files)
    with pytest.raises(InvalidInput, match="the limit is"):
        remember(WriteBatch.open(storage), text, "MCP", _config("stage"), datetime.now(UTC), SequentialIds())
    assert storage.files == before
    return True


def _remember(text: str, mode: str) -> tuple[InMemoryStorage, str, Remembered | None]:
    """An open slice, and `text` sent to `remember` in `mode` (None: refused as over the cap)."""
    storage = InMemoryStorage()
    slice_id = _open_slice(storage)
    if _too_long_for_a_note(storage, text):
        return storage, slice_id, None
    batch = WriteBatch.open(storage)
    done = remember(batch, text, "MCP", _config(mode), NOTE_CLOCK.now(), SequentialIds())
    batch.commit("note")
    return storage, slice_id, done


@SLOW
@given(text=TEXTS)
@example(text=PADDED_REPLY)
@example(text=SAMPLES[2])
def test_a_staged_note_is_kept_and_accepted_byte_for_byte(text: str) -> None:
    storage, slice_id, staged = _remember(text, "stage")
    if staged is None:
        return
    assert staged.note is not None
    assert read_note(storage.snapshot(), staged.note.note_id).text == text
    batch = WriteBatch.open(storage)
    accept(batch, staged.note.note_id, _config("stage"), NOTE_CLOCK.now(), SequentialIds())
    batch.commit("accept")
    assert parse_core_md(storage.files[core_md(slice_id)]).turns[-1].content == marked_text(text, "MCP")
    view = make_env(storage=storage, clock=NOTE_CLOCK).client.get(
        f"/api/slices/{slice_id}", headers=with_key()
    )
    assert view.json()["turns"][-1]["content"] == marked_text(text, "MCP")


@SLOW
@given(text=TEXTS)
@example(text=SAMPLES[2])
def test_an_appended_note_reads_back_byte_for_byte(text: str) -> None:
    storage, slice_id, done = _remember(text, "append")
    if done is None:
        return
    assert (done.outcome, done.slice_id) == ("appended", slice_id)
    turns = read_slice_detail(storage.snapshot(), slice_id).slice.turns
    assert [t.content for t in turns] == ["Hello.", marked_text(text, "MCP")]


@SLOW
@given(message=TEXTS, reply=TEXTS)
@example(message=PADDED_REPLY, reply=SAMPLES[4])
@example(message=SAMPLES[-1], reply=SAMPLES[3])
def test_a_taken_back_exchange_comes_back_byte_for_byte(
    fake_models: FakeModelServer, message: str, reply: str
) -> None:
    """Answer again / Edit: the message the page gets back to resend or edit, and the words kept in
    agent.md (what forget's preview lists), are the exchange exactly."""
    h, slice_id = _turn(fake_models, message, reply)
    client = TestClient(create_app(harness_deps(h)), base_url="http://testserver")
    turn_id = h.slice(slice_id).turns[-1].turn_id
    taken = client.post(
        f"/api/slices/{slice_id}/turns/{turn_id}/retract", headers={**with_key(), **same_origin()}
    )
    assert taken.status_code == 200, taken.text
    assert taken.json()["message"] == message
    entries = entries_for(read_parts(h.storage.snapshot(), slice_id), str(turn_id))
    replaced = [e for e in entries if is_replaced(e.label)]
    assert [parse_replaced_body(e.body) for e in replaced] == [[("user", message), ("agent", reply)]]


def _api_over(storage: InMemoryStorage) -> TestClient:
    return make_env(storage=storage, clock=FixedClock.at("2026-08-11T11:20:00.000Z")).client


@SLOW
@given(summary=TEXTS, focus=one_line(TEXTS), item=one_line(TEXTS))
@example(summary=PADDED_REPLY, focus=" padded focus ", item="\ufeff- [ ] a loop ")
def test_a_slice_edit_keeps_the_words_as_typed(summary: str, focus: str, item: str) -> None:
    """The marks the user types (PATCH /api/slices/{id}) are stored and read back exactly, or
    refused whole with a reason (over a cap): the slice is then untouched."""
    storage = InMemoryStorage()
    slice_id = _open_slice(storage)
    before = storage.files[core_md(slice_id)]
    body = {"summary": summary, "focus": focus, "open_loops": [item], "decisions": [item]}
    sent = _api_over(storage).patch(
        f"/api/slices/{slice_id}", json=body, headers={**with_key(), **same_origin()}
    )
    if sent.status_code != 200:
        assert sent.status_code in (400, 422), sent.text
        assert storage.files[core_md(slice_id)] == before
        return
    focus = focus if js_trim(focus) else ""  # nothing but blank space clears a mark
    stored = parse_core_md(storage.files[core_md(slice_id)])
    assert (stored.summary, stored.focus, stored.open_loops, stored.decisions) == (
        summary,
        focus,
        [item],
        [item],
    )
    view = _api_over(storage).get(f"/api/slices/{slice_id}", headers=with_key()).json()
    assert (view["summary"], view["focus"], view["open_loops"], view["decisions"]) == (
        summary,
        focus,
        [item],
        [item],
    )
    assert [t["content"] for t in view["turns"]] == ["Hello."]


CARD_SECTIONS = ["identity", "past", "anchor", "now", "horizon", "self_model"]


@SLOW
@given(text=one_line(TEXTS), section=st.sampled_from(CARD_SECTIONS))
@example(text="padded entry ", section="now")
@example(text="a <!-- comment --> inside", section="anchor")
@example(text="## Now", section="self_model")
@example(text="## Turn abcDEF — 2026-01-01T00:00:00.000Z (agent)", section="past")  # a heading: refused
def test_a_card_edit_is_kept_exactly_or_refused(text: str, section: str) -> None:
    """An entry the user edits (PATCH /api/card/entries/…) reads back exactly as typed — from
    the card file and from GET /api/card — or is refused with a reason and the card is untouched."""
    storage = InMemoryStorage.from_texts({str(CARD): CARD_TEXT})
    client = _api_over(storage)
    sent = client.patch(f"/api/card/entries/{section}/1", json={"text": text}, headers=same_origin())
    if sent.status_code != 200:
        assert sent.status_code in (400, 404, 409, 422), sent.text
        assert storage.files[CARD] == CARD_TEXT
        return
    got = next(e["text"] for e in client.get("/api/card").json()["entries"] if e["section"] == section)
    assert got == text


@SLOW
@given(texts=st.lists(TEXTS, min_size=4, max_size=4))
@example(texts=[PADDED_REPLY, SAMPLES[2], SAMPLES[4], SAMPLES[5]])
def test_forgetting_an_exchange_keeps_every_other_word(texts: list[str]) -> None:
    """DELETE /api/slices/{id}/turns/{turn}: the other exchanges read back byte for byte."""
    storage = InMemoryStorage()
    roles = ["user", "agent", "user", "agent"]
    turns = [
        Turn(f"t{i // 2}aaaa", START, role, text)
        for i, (role, text) in enumerate(zip(roles, texts, strict=True))
    ]
    turns.append(Turn("t9aaaa", START, "user", "Still open."))
    s = Slice(slice_id="2026-08-11-1115", start=START, timezone="UTC", turns=turns)
    storage.files[core_md(s.slice_id)] = render_core_md(s)
    client = _api_over(storage)
    gone = client.delete(f"/api/slices/{s.slice_id}/turns/t0aaaa", headers={**with_key(), **same_origin()})
    assert gone.status_code == 200, gone.text
    view = client.get(f"/api/slices/{s.slice_id}", headers=with_key()).json()
    assert [t["content"] for t in view["turns"]] == [texts[2], texts[3], "Still open."]


@SLOW
@given(texts=st.lists(TEXTS, min_size=1, max_size=3))
@example(texts=[PADDED_REPLY, SAMPLES[2]])
def test_flushed_turns_read_back_byte_for_byte(texts: list[str]) -> None:
    """POST /api/episodic/flush into an open slice: every flushed text reads back exactly."""
    storage = InMemoryStorage()
    slice_id = _open_slice(storage)
    client = _api_over(storage)
    turns = [
        {"role": ("user", "agent")[i % 2], "content": t, "timestamp": f"2026-08-11T11:1{i}:00.000Z"}
        for i, t in enumerate(texts)
    ]
    sent = client.post(
        "/api/episodic/flush",
        json={"sliceId": slice_id, "turns": turns},
        headers={**with_key(), **same_origin()},
    )
    assert sent.status_code == 200, sent.text
    view = client.get(f"/api/slices/{slice_id}", headers=with_key()).json()
    assert [t["content"] for t in view["turns"]] == ["Hello.", *texts]
