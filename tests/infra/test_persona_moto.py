"""The demo's personas on the synthesized state machine: a turn started on Jia's page runs as Jia.

moto runs the real definition; every task calls the real step Lambda entry, the turn is started
and read through the real HTTP API and WebSocket Lambda entries, all with `STORAGE=demo` as a
demo deployment runs them. The persona travels in the execution input; each step builds that
persona's memory overlay and S3 run store from it, so the turn answers from Jia's memory, its
events land under her own prefix, and the other personas' pages never see it.
"""

from __future__ import annotations

import json
import shutil
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import boto3
import pytest

from core.memory.paths import core_md
from core.memory.slice.model import parse_core_md
from core.turn.steps import STEP_TABLE
from functions.compose import aws as compose
from functions.handlers import steps as steps_handler
from infra.turn_workflow import function_id
from tests.fakes.aws_events import http_event
from tests.fakes.brain import Brain
from tests.fakes.fake_model_server import FakeModelServer, Reply
from tests.infra.conftest import FULL, Synth
from tests.infra.sfn_harness import REGION, MotoStateMachine, moto_state_machine, pushed_messages

pytestmark = [pytest.mark.infra, pytest.mark.xdist_group("cdk")]
CALLBACK = "https://abc123.execute-api.us-east-1.amazonaws.com/live"
HOST = "abc123.execute-api.us-east-1.amazonaws.com"
ORIGIN = f"https://{HOST}"
KEY = {"x-access-key": "open sesame", "content-type": "application/json", "origin": ORIGIN}
# The browser these tests drive: every request carries its demo visitor cookie.
VISITOR = "c0ffee" + "0" * 26
VISITOR_JAR = f"previously_visitor={VISITOR}"
BUCKET = "runs"


def _http(
    method: str, path: str, query: str = "", headers: dict[str, str] | None = None, body: str = ""
) -> Any:
    """One request through the HTTP API's Lambda entry (payload 2.0): (status, JSON body)."""
    from functions.handlers.api import handler

    sent = {**KEY, **(headers or {})}
    sent["cookie"] = "; ".join(c for c in (VISITOR_JAR, sent.get("cookie")) if c)
    event = http_event(
        method,
        path,
        sent,
        body,
        host=HOST,
        query=query,
    )
    answer = handler(event, None)
    return answer["statusCode"], json.loads(answer["body"] or "null")


@dataclass
class DemoOnAws:
    machine: MotoStateMachine
    brain: Brain

    def start(self, message: str, query: str = "", headers: dict[str, str] | None = None) -> str:
        body = json.dumps({"message": message, "timezone": "America/Vancouver"})
        status, started = _http("POST", "/api/turns", query, headers, body)
        assert status == 202, started
        return str(started["turn_id"])

    def finish(self, turn_id: str, query: str, timeout: float = 120) -> dict[str, Any]:
        """Wait for the turn as its page reads it and for the execution (`after` runs on)."""
        deadline = time.monotonic() + timeout
        while True:
            status, view = _http("GET", f"/api/turns/{turn_id}", query)
            assert status == 200, view
            if view["status"] != "running" and self.execution(turn_id)["status"] != "RUNNING":
                return dict(_http("GET", f"/api/turns/{turn_id}", query)[1])  # with what `after` added
            assert time.monotonic() < deadline, "the turn did not finish"
            time.sleep(0.05)

    def execution(self, turn_id: str) -> dict[str, Any]:
        arn = self.machine.arn.replace(":stateMachine:", ":execution:") + ":" + turn_id
        return dict(self.machine.client.describe_execution(executionArn=arn))


def fresh_containers() -> None:
    """Forget every cached build of the functions: the next request is a new container's."""
    from functions.handlers import api, ws

    compose.reset()
    api._adapter.cache_clear()
    ws._routes.cache_clear()


@contextmanager
def demo_on_aws(
    template: dict[str, Any],
    task: Callable[[dict[str, Any]], Any],
    env: dict[str, str],
    monkeypatch: pytest.MonkeyPatch,
    fake_models: FakeModelServer,
) -> Iterator[DemoOnAws]:
    """A demo stack's state machine under moto, its steps run by `task`, the functions' settings
    `env` (the secret's and memory's own variables unset), from fresh containers."""
    for name in ("PREVIOUSLY_SECRET_ARN", "PREVIOUSLY_MEMORY", "ANTHROPIC_API_KEY", "GITHUB_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("PREVIOUSLY_PUBLIC_HOSTS", HOST)  # the host the API events name
    handlers = {f"Workflow{function_id(name)}": task for name in [*STEP_TABLE, "record_failure"]}
    fresh_containers()
    try:
        with moto_state_machine(template, handlers, monkeypatch, "Workflow") as machine:
            boto3.client("s3", region_name=REGION).create_bucket(Bucket=BUCKET)
            monkeypatch.setenv("STATE_MACHINE_ARN", machine.arn)
            yield DemoOnAws(machine, Brain.install(fake_models))
    finally:
        fresh_containers()


@pytest.fixture
def demo(synth: Synth, monkeypatch: pytest.MonkeyPatch, fake_models: FakeModelServer) -> Iterator[DemoOnAws]:
    env = {
        "AWS_DEFAULT_REGION": REGION,
        "RUN_BUCKET": BUCKET,
        "WS_CALLBACK_URL": CALLBACK,
        "STORAGE": "demo",
        "PREVIOUSLY_ACCESS_KEY": "open sesame",
        "PREVIOUSLY_SESSION_SECRET": "s" * 32,
        "OPENAI_BASE_URL": fake_models.openai_base_url,
        "OPENAI_API_KEY": "test-key",
    }
    with demo_on_aws(synth.templates[FULL], _task, env, monkeypatch, fake_models) as on_aws:
        yield on_aws


def _task(event: dict[str, Any]) -> Any:
    return steps_handler.handler(event, None)


def _stored_turns() -> set[str]:
    """The S3 prefixes of every turn folder in the bucket ("runs/<id>", "personas/jia/runs/<id>")."""
    listing = boto3.client("s3", region_name=REGION).list_objects_v2(Bucket=BUCKET)
    keys = [str(o["Key"]) for o in listing.get("Contents", [])]
    return {key.rsplit("/events", 1)[0] for key in keys if "/events" in key}


def _slice_turns(storage: Any, slice_id: str) -> list[tuple[str, str]]:
    text = storage.snapshot().read(core_md(slice_id))
    return [] if text is None else [(t.role, t.content) for t in parse_core_md(text).turns]


def test_a_turn_started_on_jias_page_answers_from_her_memory_and_only_she_sees_it(demo: DemoOnAws) -> None:
    demo.brain.main(Reply(text="Jia, how was the night shift?"))
    turn_id = demo.start("Home from the ICU at last.", query="persona=jia")
    view = demo.finish(turn_id, "persona=jia")
    assert view["status"] == "done", [e["type"] for e in view["events"]]
    assert view["reply"] == "Jia, how was the night shift?"
    assert [e["seq"] for e in view["events"]] == list(range(1, len(view["events"]) + 1))
    assert json.loads(demo.execution(turn_id)["input"])["persona"] == "jia"
    assert json.loads(demo.execution(turn_id)["input"])["visitor"] == VISITOR

    (prompt,) = demo.brain.system_prompts()
    assert "Wen Jia" in prompt and "Nell Marchetti" not in prompt, "answered from Jia's card"
    key = compose.secret_key()
    slice_id = str(view["slice_id"])
    wrote = [("user", "Home from the ICU at last."), ("agent", "Jia, how was the night shift?")]
    assert _slice_turns(compose.visitor_turn_deps(key, "jia", VISITOR).storage, slice_id) == wrote
    assert _slice_turns(compose.persona_turn_deps(key, "jia").storage, slice_id) == [], "others see none"
    assert _slice_turns(compose.turn_deps(key).storage, slice_id) == [], "Nell's memory is untouched"

    assert _stored_turns() == {f"personas/jia/runs/{turn_id}"}
    for elsewhere in ("", "persona=nell", "persona=xiaowen"):
        status, _ = _http("GET", f"/api/turns/{turn_id}", elsewhere)
        assert status == 404, elsewhere
    assert _http("POST", f"/api/turns/{turn_id}/cancel")[0] == 404, "nor can another page stop it"
    status, by_cookie = _http("GET", f"/api/turns/{turn_id}", headers={"cookie": "previously_persona=jia"})
    assert status == 200 and by_cookie["events"] == view["events"], "the picker's cookie reads it too"


def test_the_default_persona_runs_as_before(demo: DemoOnAws) -> None:
    demo.brain.main(Reply(text="Hello Nell."))
    turn_id = demo.start("Back from the studio.")
    view = demo.finish(turn_id, "")
    assert view["status"] == "done" and view["reply"] == "Hello Nell."
    assert json.loads(demo.execution(turn_id)["input"]) == {
        "turn_id": turn_id,
        "connection_id": None,
        "visitor": VISITOR,
    }
    (prompt,) = demo.brain.system_prompts()
    assert "Nell Marchetti" in prompt and "Wen Jia" not in prompt
    assert _stored_turns() == {f"runs/{turn_id}"}
    assert _http("GET", f"/api/turns/{turn_id}", "persona=nell")[0] == 200
    assert _http("GET", f"/api/turns/{turn_id}", "persona=jia")[0] == 404


def test_a_websocket_on_jias_page_is_pushed_her_turn(demo: DemoOnAws) -> None:
    from functions.handlers import ws

    connection = "SmlhJ3MgcGFnZQ="
    connect = {"routeKey": "$connect", "connectionId": connection}
    opened = ws.handler(
        {
            "requestContext": connect,
            "headers": {**KEY, "host": HOST, "cookie": VISITOR_JAR},
            "queryStringParameters": {"persona": "jia"},
        },
        None,
    )
    assert opened["statusCode"] == 200
    demo.brain.main(Reply(text="Good morning, Jia."))
    body = json.dumps({"action": "turn.start", "message": "Morning!", "timezone": "America/Vancouver"})
    ws.handler({"requestContext": {"routeKey": "turn.start", "connectionId": connection}, "body": body}, None)
    (accepted,) = [m for m in pushed_messages(connection) if m["type"] == "turn.accepted"]
    view = demo.finish(accepted["turn_id"], "persona=jia")
    assert view["status"] == "done" and view["reply"] == "Good morning, Jia."
    events = [m for m in pushed_messages(connection) if m["type"] != "turn.accepted"]
    assert sorted(events, key=lambda e: e["seq"]) == view["events"], "pushed what Jia's store holds"
    assert _stored_turns() == {f"personas/jia/runs/{accepted['turn_id']}"}


def test_an_execution_naming_a_persona_the_demo_lacks_fails_with_a_clear_error(demo: DemoOnAws) -> None:
    execution = demo.machine.run({"turn_id": "tZed01", "connection_id": None, "persona": "zed"})
    assert (execution.status, execution.error) == ("FAILED", "InvalidInput")
    message = json.loads(str(execution.cause))["errorMessage"]
    assert 'demo persona "zed"' in message and "its personas: nell, jia, xiaowen" in message
    assert demo.brain.requests.get("main", []) == []
    assert _stored_turns() == set(), "nothing was written for any persona"


def test_steps_that_do_not_offer_the_persona_end_its_turn_with_that_error_on_its_page(
    demo: DemoOnAws, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Steps shipped without the persona (a deployment half rolled out): Jia's page reads a
    turn.error naming the persona, her message is not lost to another persona's memory."""
    import functions.compose.demo

    assert _http("GET", "/api/demo/personas")[0] == 200  # the API's container is up and knows Jia
    only_nell = tmp_path / "sample"
    shutil.copytree(functions.compose.demo.SAMPLE_ROOT, only_nell, ignore=shutil.ignore_patterns("personas"))
    monkeypatch.setattr(functions.compose.demo, "SAMPLE_ROOT", only_nell)  # the steps' copy lacks her
    demo.brain.main(Reply(text="Never asked for."))
    turn_id = demo.start("Are you there?", query="persona=jia")
    view = demo.finish(turn_id, "persona=jia")
    assert view["status"] == "error"
    end = view["events"][-1]
    assert (end["type"], end["code"]) == ("turn.error", "invalid_input")
    assert 'demo persona "jia"' in end["message"] and "Your message was not saved" in end["message"]
    assert demo.brain.requests.get("main", []) == []
    assert compose.turn_deps(compose.secret_key()).storage.overlay_paths == [], "nothing went to Nell"
