"""The fake model server itself: script files, standalone mode, listings, the echo responder."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from core.llm.client import complete
from core.llm.registry import ModelRegistry, ProviderConfig
from core.llm.types import UserMessage
from tests.conftest import REPO_ROOT
from tests.fakes.fake_model_server import FakeModelServer, Reply, ToolCall, echo_responder

pytestmark = pytest.mark.functional


def get_json(url: str, **headers: str) -> dict:
    with urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=5) as resp:
        return json.loads(resp.read())


def test_model_listing_in_both_shapes(fake_models: FakeModelServer) -> None:
    fake_models.models = ["a", "b"]
    openai_shape = get_json(f"{fake_models.openai_base_url}/models")
    assert openai_shape["object"] == "list" and [m["id"] for m in openai_shape["data"]] == ["a", "b"]
    anthropic_shape = get_json(f"{fake_models.url}/v1/models", **{"anthropic-version": "2023-06-01"})
    assert anthropic_shape["first_id"] == "a" and anthropic_shape["data"][1]["type"] == "model"


def test_reply_script_round_trips_and_rejects_unknown_keys() -> None:
    reply = Reply(text="hi", tool_calls=[ToolCall("t", {"x": 1})], retry_after=2.0)
    assert Reply.from_json(json.loads(json.dumps(reply.to_json()))) == reply
    with pytest.raises(TypeError):
        Reply.from_json({"txt": "typo"})


def test_echo_responder_calls_a_forced_tool(fake_models: FakeModelServer, clock) -> None:
    fake_models.responder = echo_responder
    bound = (
        ModelRegistry(ProviderConfig(openai_base_url=fake_models.openai_base_url), clock=clock).resolve().main
    )
    assert complete(bound.client, bound.request([UserMessage("ping")])).text == "(fake model) You said: ping"
    fake_models.reset()
    assert fake_models.requests == [] and fake_models.responder is None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_standalone_mode_serves_a_script_then_echoes(tmp_path: Path) -> None:
    script = tmp_path / "replies.json"
    script.write_text(json.dumps([{"text": "scripted hello", "reasoning": "warming up"}]), encoding="utf-8")
    port = free_port()
    cmd = [
        sys.executable,
        "-m",
        "tests.fakes.fake_model_server",
        "--port",
        str(port),
        "--script",
        str(script),
    ]
    proc = subprocess.Popen([*cmd, "--echo"], cwd=REPO_ROOT, stdout=subprocess.PIPE, text=True)
    try:
        banner = proc.stdout.readline() if proc.stdout else ""
        assert f"127.0.0.1:{port}" in banner
        base = f"http://127.0.0.1:{port}/v1"
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                get_json(f"{base}/models")
                break
            except OSError:
                time.sleep(0.05)
        body = json.dumps({"model": "m", "messages": [{"role": "user", "content": "hi"}]}).encode()
        answers = []
        for _ in range(2):
            req = urllib.request.Request(
                f"{base}/chat/completions", body, {"content-type": "application/json"}
            )
            with urllib.request.urlopen(req, timeout=5) as resp:
                answers.append(json.loads(resp.read())["choices"][0]["message"])
        assert answers[0]["content"] == "scripted hello" and answers[0]["reasoning_content"] == "warming up"
        assert answers[1]["content"] == "(fake model) You said: hi"
    finally:
        proc.terminate()
        proc.wait(timeout=10)
