"""Malformed, oversized and unknown-field bodies: a clear 4xx, and nothing is written or started."""

from __future__ import annotations

import json

import pytest

from core.storage.memory import InMemoryStorage
from tests.functional.api_env import make_env, same_origin
from tests.unit.card_samples import CARD_TEXT

pytestmark = pytest.mark.functional

CARD_PATH = "memory/episodic/current-previously.md"
MUTATIONS = [
    ("POST", "/api/turns", {"message": "hi"}),
    (
        "POST",
        "/api/episodic/flush",
        {
            "sliceId": "2026-08-11-1115",
            "turns": [{"role": "user", "content": "x", "timestamp": "2026-08-11T11:15:00Z"}],
        },
    ),
    ("PATCH", "/api/card/entries/now/1", {"text": "Training for a 10K"}),
    ("POST", "/api/auth/sign-in", {"key": "k"}),
]


def _env():  # type: ignore[no-untyped-def]
    return make_env(storage=InMemoryStorage.from_texts({CARD_PATH: CARD_TEXT}))


def _nothing_happened(env) -> None:  # type: ignore[no-untyped-def]
    assert env.files() == {CARD_PATH: CARD_TEXT}
    assert env.storage.commits == []
    assert env.turns.started == []


# The flush body is the original's, and its clients add fields of their own: those are ignored
# (tests/conformance/test_flush_vectors.py); every other request refuses a field it does not know.
STRICT = [m for m in MUTATIONS if m[1] != "/api/episodic/flush"]


@pytest.mark.parametrize(("method", "path", "body"), STRICT)
def test_unknown_fields_are_refused(method: str, path: str, body: dict) -> None:  # type: ignore[type-arg]
    env = _env()
    r = env.client.request(method, path, json={**body, "surprise": True}, headers=same_origin())
    assert r.status_code == 400
    assert r.json()["error"] == "invalid_request" and "surprise" in r.json()["message"]
    _nothing_happened(env)


@pytest.mark.parametrize(("method", "path", "body"), MUTATIONS)
@pytest.mark.parametrize("raw", [b"{", b"[]", b"null", b'"text"', b"\xff\xfe"])
def test_malformed_bodies_are_refused(method: str, path: str, body: dict, raw: bytes) -> None:  # type: ignore[type-arg]
    env = _env()
    headers = {**same_origin(), "content-type": "application/json"}
    r = env.client.request(method, path, content=raw, headers=headers)
    assert r.status_code == 400, r.text
    assert set(r.json()) == {"error", "message"}
    _nothing_happened(env)


@pytest.mark.parametrize(("method", "path", "body"), MUTATIONS)
def test_oversized_bodies_are_refused_with_413(method: str, path: str, body: dict) -> None:  # type: ignore[type-arg]
    env = _env()
    big = b'{"message": "' + b"x" * (6 * 1024 * 1024) + b'"}'
    r = env.client.request(
        method, path, content=big, headers={**same_origin(), "content-type": "application/json"}
    )
    assert r.status_code == 413 and r.json()["error"] == "too_large"
    _nothing_happened(env)


def test_a_body_without_content_length_is_still_capped() -> None:
    env = _env()

    def chunks():  # type: ignore[no-untyped-def]
        for _ in range(60):  # past /api/turns' own cap (a message may carry pictures)
            yield b"x" * (100 * 1024)

    r = env.client.post(
        "/api/turns", content=chunks(), headers={**same_origin(), "content-type": "application/json"}
    )
    assert r.status_code == 413
    _nothing_happened(env)


@pytest.mark.parametrize(
    "body",
    [
        {"message": ""},
        {"message": "x" * 100_001},
        {"message": "hi", "effort": "extreme"},
        {"message": "hi", "client": {"slice_id": "../../etc"}},
        {"message": "hi", "client": {"agent_turns_seen": -1}},
        {"message": 5},
        {"message": "hi", "timezone": "x" * 65},
    ],
)
def test_turn_requests_out_of_range_are_refused(body: dict) -> None:  # type: ignore[type-arg]
    env = _env()
    r = env.client.post("/api/turns", json=body, headers=same_origin())
    assert r.status_code == 400
    _nothing_happened(env)


@pytest.mark.parametrize(
    ("method", "path", "body", "status"),
    [
        ("PATCH", "/api/card/entries/nowish/1", {"text": "x"}, 400),
        ("PATCH", "/api/card/entries/now/0", {"text": "x"}, 400),
        ("PATCH", "/api/card/entries/now/99", {"text": "x"}, 404),
        ("PATCH", "/api/card/entries/now/1", {"text": "a\nb"}, 400),
        ("PATCH", "/api/card/entries/now/1", {"text": "x" * 301}, 400),
        ("DELETE", "/api/card/entries/horizon/9", None, 404),
        ("DELETE", "/api/card/entries/..%2F..%2Fx/1", None, 404),
    ],
)
def test_bad_card_edits_change_nothing(method: str, path: str, body: dict | None, status: int) -> None:  # type: ignore[type-arg]
    env = _env()
    r = env.client.request(method, path, json=body, headers=same_origin())
    assert r.status_code == status, r.text
    assert r.json()["message"]
    _nothing_happened(env)


def test_form_encoded_body_is_refused() -> None:
    env = _env()
    r = env.client.post("/api/turns", data={"message": "hi"}, headers=same_origin())
    assert r.status_code == 415 and r.json()["error"] == "unsupported_media_type"
    _nothing_happened(env)


@pytest.mark.parametrize(
    "body",
    [
        {"onboarded": 0},
        {"onboarded": "true"},
        {"model": {"thinking": 1}},
        {"slicing": {"maxSliceMinutes": "45"}},
        {"slicing": {"maxTurnsPerSlice": 7.5}},
    ],
)
def test_config_types_are_strict(body: dict) -> None:
    env = make_env(required=False)
    r = env.client.patch("/api/config", json=body, headers=same_origin())
    assert r.status_code == 400, r.text
    assert "Invalid request" in r.json()["message"]


def test_the_openapi_document_states_the_enforced_constraints() -> None:
    doc = make_env(required=False).client.get("/openapi.json").json()
    schemas = doc["components"]["schemas"]
    slicing = schemas["SlicingPatch"]["properties"]
    minutes, turns = json.dumps(slicing["maxSliceMinutes"]), json.dumps(slicing["maxTurnsPerSlice"])
    assert '"minimum": 5' in minutes and '"maximum": 120' in minutes and '"maximum": 100' in turns
    assert "pattern" in schemas["TurnRequest"]["properties"]["timezone"]
    onboarded = json.dumps(schemas["ConfigPatch"]["properties"]["onboarded"])
    assert "boolean" in onboarded and "integer" not in onboarded


def test_a_timezone_that_is_not_a_zone_name_is_refused() -> None:
    env = make_env(required=False)
    for tz in ("../../etc", "Not A Zone", "Europe/Nowhere"):
        r = env.client.post("/api/turns", json={"message": "hi", "timezone": tz}, headers=same_origin())
        assert r.status_code == 400, (tz, r.text)


@pytest.mark.parametrize("path", ["/api/turns", "/api/slices/2026-08-11-1115", "/api/config", "/api/card"])
def test_options_answers_with_allow_even_when_sign_in_is_required(path: str) -> None:
    env = make_env(required=True)
    r = env.client.options(path)
    assert r.status_code == 204, r.text
    allow = {m.strip() for m in r.headers["allow"].split(",")}
    assert "OPTIONS" in allow and len(allow) > 1
    assert env.client.options("/api/no-such-route").status_code == 404
