"""A server that lists no models (`GET /v1/models` → 404): a model the user names is used, and every
failure says what is true (unreachable, key refused, no listing, model unknown)."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from hypothesis import given, settings
from hypothesis import strategies as st

from core.memory.slice.model import parse_core_md
from functions.api.app import create_app
from functions.compose.local import build_deps
from functions.settings import load_settings
from tests.fakes.brain import Brain
from tests.fakes.fake_model_server import FakeModelServer, Reply
from tests.fakes.fake_model_server import ToolCall as FakeCall
from tests.fakes.live_server import live_server
from tests.functional.api_env import make_env, same_origin
from tests.functional.cli_env import chat_memory, clean_env, run

pytestmark = pytest.mark.functional


@pytest.fixture
def unlisted(fake_models: FakeModelServer, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """The fake server without a listing, OPENAI_BASE_URL + OPENAI_API_KEY at it; the memory folder."""
    memory = chat_memory(monkeypatch, tmp_path)
    fake_models.list_models = False
    monkeypatch.setenv("OPENAI_BASE_URL", fake_models.openai_base_url)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    return memory


def turns_of(memory: Path) -> list[tuple[str, str]]:
    files = sorted(memory.glob("memory/episodic/slices/*/*/*/*/timeline/core.md"))
    assert files, "no slice was written"
    return [(t.role, t.content) for t in parse_core_md(files[-1].read_text(encoding="utf-8")).turns]


def chat_json(memory: Path, message: str, *extra: str) -> dict:
    code, out, _ = run("chat", message, "--memory", str(memory), "--json", *extra)
    data = json.loads(out)
    data["exit"] = code
    return data


def test_without_a_named_model_the_turn_says_what_to_name(
    unlisted: Path, fake_models: FakeModelServer
) -> None:
    data = chat_json(unlisted, "Hello?")
    assert data["exit"] == 3 and data["error"]["code"] == "no_model"
    base = fake_models.openai_base_url
    expected = f"the server at {base} lists no models: name one with --model or PREVIOUSLY_MODEL"
    assert expected in data["error"]["message"]
    assert turns_of(unlisted) == [("user", "Hello?")], "the message is kept"
    code, _, err = run("models")
    assert code == 1 and expected in err


def test_chat_model_answers_a_turn(unlisted: Path, fake_models: FakeModelServer) -> None:
    brain = Brain.install(fake_models)
    brain.main("Hello from my-model.")
    data = chat_json(unlisted, "Hello?", "--model", "my-model")
    assert (data["status"], data["reply"], data["error"]) == ("done", "Hello from my-model.", None)
    assert {r.model for r in fake_models.model_requests()} == {"my-model"}, "the worker is the same model"
    assert turns_of(unlisted) == [("user", "Hello?"), ("agent", "Hello from my-model.")]


def test_previously_model_answers_a_turn(
    unlisted: Path, fake_models: FakeModelServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PREVIOUSLY_MODEL", "env-model")
    monkeypatch.setenv("PREVIOUSLY_WORKER_MODEL", "env-small")
    Brain.install(fake_models).main("Hello from the environment.")
    data = chat_json(unlisted, "Hello?")
    assert data["reply"] == "Hello from the environment."
    main = [r for r in fake_models.model_requests() if not r.forced_tool]
    assert {r.model for r in main} == {"env-model"}
    assert {r.model for r in fake_models.model_requests() if r.forced_tool} == {"env-small"}
    code, out, _ = run("models", "--json")
    payload = json.loads(out)
    assert code == 0 and payload["main"]["source"] == "env" and payload["worker"]["source"] == "env"


def test_the_settings_field_answers_a_turn(unlisted: Path, fake_models: FakeModelServer) -> None:
    settings = load_settings(memory_root=unlisted, storage="local")
    client = TestClient(create_app(build_deps(settings, require_auth=False)), base_url="http://127.0.0.1")
    saved = client.patch(
        "/api/config", json={"model": {"main": "typed-in-settings"}}, headers={"origin": "http://127.0.0.1"}
    )
    assert saved.status_code == 200, saved.text
    models = client.get("/api/models").json()
    assert models["main"] == "typed-in-settings" and models["main_model"]["source"] == "config"
    assert "typed-in-settings" in [m["id"] for m in models["models"]], "the named model is offered"
    assert models["provider_details"][0]["state"] == "no_listing"
    assert client.get("/api/state").json()["setup"] == []
    Brain.install(fake_models).main("Hello from Settings.")
    data = chat_json(unlisted, "Hello?")
    assert data["reply"] == "Hello from Settings."
    assert {r.model for r in fake_models.model_requests()} == {"typed-in-settings"}


def test_the_page_names_the_problem_and_links_the_guide(unlisted: Path, fake_models: FakeModelServer) -> None:
    settings = load_settings(memory_root=unlisted, storage="local")
    client = TestClient(create_app(build_deps(settings, require_auth=False)), base_url="http://127.0.0.1")
    (line,) = client.get("/api/state").json()["setup"]
    assert "lists no models: name one with --model or PREVIOUSLY_MODEL" in line
    guide = client.get("/api/help/models")
    assert guide.status_code == 200 and guide.text.startswith("# Models")
    assert guide.headers["content-type"].startswith("text/plain")


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_an_unreachable_server_is_named(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    memory = chat_memory(monkeypatch, tmp_path)
    base = f"http://127.0.0.1:{_closed_port()}/v1"
    monkeypatch.setenv("OPENAI_BASE_URL", base)
    data = chat_json(memory, "Hello?")
    assert f"cannot reach {base} (connection refused)" in data["error"]["message"]
    data = chat_json(memory, "Again?", "--model", "named")
    assert (
        data["status"] == "error" and f"cannot reach {base} (connection refused)" in data["error"]["message"]
    )
    assert [t for t in turns_of(memory) if t[0] == "user"] == [("user", "Hello?"), ("user", "Again?")]
    code, out, _ = run("models", "--json", "--check", "--model", "named")
    payload = json.loads(out)
    assert code == 1 and payload["providers"][0]["state"] == "unreachable"
    assert payload["check"][0]["state"] == "unreachable"


def test_a_refused_key_says_so(unlisted: Path, fake_models: FakeModelServer) -> None:
    fake_models.enqueue(*[Reply.error(401, "invalid api key")] * 3)
    code, out, _ = run("models", "--json", "--check", "--model", "my-model")
    check = json.loads(out)["check"]
    assert code == 1 and check[0]["state"] == "refused"
    assert "the key was refused (401)" in check[0]["error"] and "OPENAI_API_KEY" in check[0]["error"]


def test_models_check_tells_no_listing_from_an_unknown_model(
    unlisted: Path, fake_models: FakeModelServer
) -> None:
    code, out, _ = run("models", "--json", "--check")
    payload = json.loads(out)
    assert code == 1 and payload["providers"][0]["state"] == "no_listing"
    assert payload["check"][0]["state"] == "no_model"
    fake_models.list_models = True
    fake_models.models = ["listed-one"]
    fake_models.enqueue(Reply.error(404, "model 'ghost' not found"))
    code, out, _ = run("models", "--json", "--check", "--model", "ghost")
    payload = json.loads(out)
    assert code == 1 and payload["check"][0]["state"] == "model_unknown"
    assert payload["check"][0]["listed"] is False and payload["providers"][0]["state"] == "listed"


def test_chat_url_with_a_wrong_key_says_it_was_refused() -> None:
    env = make_env(required=True)
    with live_server(env.client.app) as url:
        code, _, err = run("chat", "hello", "--url", url, "--key", "WRONG")
    assert code == 1 and "the key was refused (401)" in err
    assert env.turns.started == []


def test_info_takes_memory(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    clean_env(monkeypatch)
    monkeypatch.setenv("GROQ_API_KEY", "gsk-test")
    code, out, _ = run("info", "--json", "--memory", str(tmp_path / "elsewhere"))
    data = json.loads(out)
    assert code == 0 and data["memory"] == str(tmp_path / "elsewhere") and data["providers"] == ["groq"]


def test_one_recall_per_question_and_the_calls_are_counted(
    unlisted: Path, fake_models: FakeModelServer
) -> None:
    brain = Brain.install(fake_models)
    brain.reports["recallReport"] = {
        "hits": [],
        "confidence": 0,
        "reasoning": "nothing",
        "recommended_reads": [],
    }
    ask = Reply(tool_calls=[FakeCall("recall", {"query": "Kyoto trip"})])
    again = Reply(tool_calls=[FakeCall("recall", {"query": "kyoto trip?"})])
    brain.main(ask, again, "I found nothing about Kyoto.")
    data = chat_json(unlisted, "What did I plan for Kyoto?", "--model", "my-model")
    assert data["reply"] == "I found nothing about Kyoto."
    assert len(brain.requests["recallReport"]) == 1, "the second recall did not scan again"
    second_result = brain.requests["main"][2].body["messages"][-1]
    assert second_result["role"] == "tool" and second_result["content"].startswith("Note: recall already ran")
    calls = data["model_calls"]
    assert calls["main"] == 3 and calls["count"] == len(fake_models.model_requests())
    assert calls["worker"] == calls["count"] - 3 >= 2, "the analyzer and the recall scan"


def test_the_serve_banner_names_the_model_or_the_problem(
    unlisted: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from functions.server import ServeOptions, describe, prepare

    options = ServeOptions(memory=unlisted)
    lines = describe(prepare(options, load_settings()), options)
    assert any("model: none — the server at" in line and "lists no models" in line for line in lines)
    lines = describe(prepare(options, load_settings(model="cli-model")), options)
    assert "model: cli-model (from env), worker cli-model (from main)" in lines


@settings(max_examples=40, deadline=None)
@given(model_id=st.text(min_size=1, max_size=128).filter(lambda s: s.strip() and s.strip() != "auto"))
def test_any_model_id_typed_in_settings_is_kept_exactly(model_id: str) -> None:
    from core.llm.registry import ModelPrefs
    from core.memory.config_store import read_config

    env = make_env()
    saved = env.client.patch("/api/config", json={"model": {"main": model_id}}, headers=same_origin())
    assert saved.status_code == 200, saved.text
    assert saved.json()["config"]["model"]["main"] == model_id
    assert ModelPrefs.from_config(read_config(env.storage.snapshot())[0].data).main == model_id
