"""One text policy (issue 29): what the user and the model write comes back byte for byte.

The shared strategy (tests/fakes/texts.py) goes through each writer and back out through the
readers the user sees: a message and a model reply through a whole turn into core.md, read
back by the API's slice view and the slice's Markdown download; the turn's reply as the turn
API reports it. The escape is the file's business: no reader shows its backslashes.
"""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, example, given, settings

from core.clock import FixedClock
from core.storage.memory import InMemoryStorage
from functions.api.app import create_app
from tests.fakes.brain import ANALYZER, Brain, analysis
from tests.fakes.fake_model_server import FakeModelServer, Reply
from tests.fakes.texts import PADDED_REPLY, SAMPLES, TEXTS
from tests.functional.api_env import harness_deps, with_key
from tests.functional.turn_support import Harness, make_harness

pytestmark = pytest.mark.functional

SLOW = settings(
    max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
START = "2026-08-11T11:15:00.000Z"


def _turn(fake: FakeModelServer, message: str, reply: str) -> tuple[Harness, str]:
    h = make_harness(InMemoryStorage(), FixedClock.at(START), fake)
    assert isinstance(h.brain, Brain)
    h.brain.reports[ANALYZER] = analysis(["words"])
    h.brain.main(Reply(text=reply))
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
    h, slice_id = _turn(fake_models, message, reply)
    assert [t.content for t in h.slice(slice_id).turns] == [message, reply]
    assert _api_turns(h, slice_id) == [("user", message), ("agent", reply)]
    client = TestClient(create_app(harness_deps(h)), base_url="http://testserver")
    markdown = client.get(f"/api/slices/{slice_id}/markdown", headers=with_key()).text
    assert message in markdown and reply.rstrip() in markdown  # the download ends its last line once
