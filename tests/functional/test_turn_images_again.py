"""Pictures sent again: "answer again" and "edit and resend" take the exchange back
(`POST …/retract` lists its pictures) and send the message with `reattach`, over HTTP or the
WebSocket; the model gets the same picture bytes as the first time (OpenAI and Anthropic wire
formats) and the new turn stores them again under its own id."""

from __future__ import annotations

import base64
from typing import Any

import pytest
from starlette.testclient import TestClient

from core.clock import FixedClock
from core.llm.registry import ModelRegistry, ProviderConfig
from core.media.attach import image_path, turn_text
from core.media.images import Upload, prepare_images
from core.memory.slice.picture_links import split_turn_text
from core.storage.memory import InMemoryStorage
from functions.api.app import create_app
from tests.fakes.fake_model_server import FakeModelServer, RecordedRequest
from tests.fakes.images import jpeg_with_location, png
from tests.functional.api_env import harness_deps as _deps
from tests.functional.api_env import with_key
from tests.functional.turn_support import Harness, make_harness

pytestmark = pytest.mark.functional
SLICE = "2026-08-11-1115"


def sent_images(request: RecordedRequest) -> list[bytes]:
    """The pictures on the request's last user message, in either wire format."""
    last = [m for m in request.body["messages"] if m["role"] == "user"][-1]
    parts = last["content"] if isinstance(last["content"], list) else []
    out = []
    for p in parts:
        if p.get("type") == "image_url":  # OpenAI: a data URL
            out.append(base64.b64decode(p["image_url"]["url"].split(",", 1)[1]))
        elif p.get("type") == "image":  # Anthropic: a base64 source
            out.append(base64.b64decode(p["source"]["data"]))
    return out


def harness(fake: FakeModelServer, api: str) -> Harness:
    h = make_harness(InMemoryStorage(), FixedClock.at("2026-08-11T11:15:00.000Z"), fake)
    if api == "anthropic":
        config = ProviderConfig(anthropic_api_key="k", anthropic_base_url=fake.anthropic_base_url)
        h.deps.models = ModelRegistry(config, clock=h.clock, sleep=lambda _: None)
    return h


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def _first_turn(client: TestClient, h: Harness) -> tuple[str, list[bytes]]:
    body = {
        "message": "What is in these?",
        "attachments": [
            {"name": "trip.jpg", "data": _b64(jpeg_with_location())},
            {"name": "b.png", "data": _b64(png())},
        ],
    }
    r = client.post("/api/turns?wait=20", json=body, headers=with_key())
    view = r.json()
    assert r.status_code == 200 and view["status"] == "done", (r.status_code, view)
    assert h.brain is not None
    return view["turn_id"], sent_images(h.brain.requests["main"][-1])


def _retract(client: TestClient, turn_id: str, reason: str) -> dict[str, Any]:
    path = f"/api/slices/{SLICE}/turns/{turn_id}/retract"
    r = client.post(path, json={"reason": reason}, headers=with_key())
    assert r.status_code == 200, r.text
    return r.json()


@pytest.mark.parametrize("api", ["openai", "anthropic"])
def test_answer_again_over_http_sends_the_same_pictures(fake_models: FakeModelServer, api: str) -> None:
    h = harness(fake_models, api)
    assert h.brain is not None
    h.brain.main("A red square and a blue one.", "Again: two squares.")
    with TestClient(create_app(_deps(h))) as client:
        first_id, first_sent = _first_turn(client, h)
        assert len(first_sent) == 2
        taken = _retract(client, first_id, "regenerate")
        assert taken["message"] == "What is in these?"
        assert [(p["file"], p["name"]) for p in taken["pictures"]] == [
            (f"{first_id}-1.jpg", "trip.jpg"),
            (f"{first_id}-2.png", "b.png"),
        ]
        body = {"message": taken["message"], "reattach": taken["pictures"]}
        view = client.post("/api/turns?wait=20", json=body, headers=with_key()).json()
    assert view["status"] == "done", view
    assert sent_images(h.brain.requests["main"][-1]) == first_sent
    again = [t for t in h.slice(SLICE).turns if t.role == "user"]
    assert [t.turn_id for t in again] == [view["turn_id"]]
    assert split_turn_text(again[0].content, SLICE, view["turn_id"])[0] == "What is in these?"
    for n, ext in ((1, "jpg"), (2, "png")):
        new = h.read_bytes(str(image_path(SLICE, f"{view['turn_id']}-{n}.{ext}")))
        old = h.read_bytes(str(image_path(SLICE, f"{first_id}-{n}.{ext}")))
        assert new is not None and old is not None and new == old


@pytest.mark.parametrize("api", ["openai", "anthropic"])
def test_edit_and_resend_over_the_websocket_carries_the_pictures(
    fake_models: FakeModelServer, api: str
) -> None:
    h = harness(fake_models, api)
    assert h.brain is not None
    h.brain.main("Two squares.", "Yes, both are squares.")
    with TestClient(create_app(_deps(h))) as client:
        first_id, first_sent = _first_turn(client, h)
        taken = _retract(client, first_id, "edit")
        with client.websocket_connect("/api/ws", headers=with_key()) as ws:
            ws.send_json(
                {"action": "turn.start", "message": "Are both squares?", "reattach": taken["pictures"]}
            )
            accepted = ws.receive_json()
            assert accepted["type"] == "turn.accepted", accepted
            while (event := ws.receive_json())["type"] not in ("turn.done", "turn.error"):
                pass
    assert event["type"] == "turn.done", event
    assert sent_images(h.brain.requests["main"][-1]) == first_sent
    [user] = [t for t in h.slice(SLICE).turns if t.role == "user"]
    assert user.content.startswith("Are both squares?\n\n![trip.jpg](../images/")


def test_a_picture_to_send_again_that_is_gone_is_refused_and_nothing_is_written(
    fake_models: FakeModelServer,
) -> None:
    h = harness(fake_models, "openai")
    with TestClient(create_app(_deps(h))) as client:
        body = {"message": "hi", "reattach": [{"slice_id": SLICE, "file": "zz-1.png", "name": "x.png"}]}
        r = client.post("/api/turns", json=body, headers=with_key())
        assert r.status_code == 404 and "no picture" in r.json()["message"]
        too_many = {
            "message": "hi",
            "reattach": [{"slice_id": SLICE, "file": f"zz-{n}.png"} for n in range(1, 6)],
        }
        assert client.post("/api/turns", json=too_many, headers=with_key()).status_code == 400
        bad = {"message": "hi", "reattach": [{"slice_id": SLICE, "file": "../core.md"}]}
        assert client.post("/api/turns", json=bad, headers=with_key()).status_code in (400, 422)
    assert h.storage.commits == []


def test_split_turn_text_inverts_turn_text() -> None:
    pics = tuple(prepare_images([Upload("a [1].png", png()), Upload("b.png", png())]))
    for message in ("words", "words\n\n![x](../images/t1-1.png)", "a\n\nb", ""):
        stored = turn_text(message, "t1", pics)
        words, found = split_turn_text(stored, SLICE, "t1")
        assert words == message and [p.file for p in found] == ["t1-1.png", "t1-2.png"]
        assert split_turn_text(message, SLICE, "t1")[1] == [] or message.endswith(".png)")
