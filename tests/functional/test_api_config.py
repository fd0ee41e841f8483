"""`GET/PATCH /api/config`: defaults, deep merge, validation, unknown fields, concurrent saves."""

from __future__ import annotations

import json

import pytest

from core.memory.config_store import queue_config_patch
from core.memory.paths import CONFIG_JSON
from core.storage.base import WriteBatch
from core.storage.memory import InMemoryStorage
from tests.functional.api_env import make_env, same_origin

pytestmark = pytest.mark.functional


def test_defaults_without_a_file() -> None:
    data = make_env().client.get("/api/config").json()
    assert data["config"]["slicing"] == {"maxSliceMinutes": 30, "maxTurnsPerSlice": 50}
    assert data["problems"] == []


def test_patch_deep_merges_and_saves_the_original_shape() -> None:
    env = make_env()
    r = env.client.patch(
        "/api/config", json={"slicing": {"maxSliceMinutes": 45}, "locale": "zh"}, headers=same_origin()
    )
    assert r.status_code == 200
    config = r.json()["config"]
    assert config["slicing"] == {"maxSliceMinutes": 45, "maxTurnsPerSlice": 50} and config["locale"] == "zh"
    saved = env.files()[str(CONFIG_JSON)]
    assert list(json.loads(saved)) == ["slicing", "model", "worker", "onboarded", "datasource", "locale"]
    assert env.storage.commits[-1][0] == "Update memory/user/config.json"  # type: ignore[attr-defined]
    r = env.client.patch("/api/config", json={"model": {"thinking": False}}, headers=same_origin())
    assert r.json()["config"]["slicing"]["maxSliceMinutes"] == 45


@pytest.mark.parametrize(
    ("body", "needle"),
    [
        ({"slicing": {"maxSliceMinutes": 500}}, "5 to 120"),
        ({"slicing": {"maxSliceMinutes": 2}}, "5 to 120"),
        ({"slicing": {"maxTurns": 5}}, "maxTurns"),
        ({"theme": "dark"}, "theme"),
        ({"model": {"effort": "max"}}, "effort"),
        ({"locale": "fr"}, "locale"),
        ({"slicing": "fast"}, "slicing"),
    ],
)
def test_bad_settings_are_refused_and_nothing_is_written(body: dict, needle: str) -> None:  # type: ignore[type-arg]
    env = make_env()
    r = env.client.patch("/api/config", json=body, headers=same_origin())
    assert r.status_code == 400, r.text
    assert needle in r.json()["message"]
    assert env.files() == {}


def test_a_broken_file_reads_as_defaults_with_a_problem() -> None:
    storage = InMemoryStorage.from_texts({str(CONFIG_JSON): '{"slicing": {"maxSliceMinutes": 999}}'})
    data = make_env(storage=storage).client.get("/api/config").json()
    assert data["config"]["slicing"]["maxSliceMinutes"] == 120
    assert any("maxSliceMinutes" in p for p in data["problems"])


def test_two_saves_at_once_both_survive() -> None:
    storage = InMemoryStorage()
    first = WriteBatch.open(storage)
    queue_config_patch(first, {"locale": "zh"})
    second = WriteBatch.open(storage)
    queue_config_patch(second, {"slicing": {"maxTurnsPerSlice": 20}})
    second.commit("a")
    first.commit("b")
    saved = json.loads(storage.files[CONFIG_JSON])
    assert saved["locale"] == "zh" and saved["slicing"]["maxTurnsPerSlice"] == 20


def test_state_uses_the_configured_locale() -> None:
    storage = InMemoryStorage.from_texts(
        {
            str(CONFIG_JSON): '{"locale": "zh"}',
            "memory/episodic/slices/2026/08/10/0900/timeline/core.md": (
                '---\nslice_id: "2026-08-10-0900"\nfocus: 搬家\nstatus: closed\n---\n'
            ),
        }
    )
    env = make_env(storage=storage)
    assert env.client.get("/api/state").json()["suggestions"][0]["label"] == "继续：搬家"
    assert env.client.get("/api/state?locale=en").json()["suggestions"][0]["label"] == "Continue: 搬家"
