"""The Lambda entry points, called as Lambda calls them: the API (Mangum), WebSocket auth, maintenance."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from moto import mock_aws

from functions.aws.turns import StepFunctionsTurns
from functions.compose import aws as compose
from tests.fakes.aws_events import API_HOST, http_event

pytestmark = pytest.mark.functional
ROOT = Path(__file__).resolve().parents[2]
SITE = "d111111abcdef8.cloudfront.net"


@pytest.fixture
def aws_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Path]:
    memory = tmp_path / "memory-root"
    (memory / "memory").mkdir(parents=True)
    env = {
        "AWS_DEFAULT_REGION": "us-east-1",
        "RUN_BUCKET": "runs",
        "STATE_MACHINE_ARN": "arn:aws:states:us-east-1:123456789012:stateMachine:turn",
        "WS_CALLBACK_URL": "https://abc.execute-api.us-east-1.amazonaws.com/live",
        "STORAGE": "local",
        "PREVIOUSLY_MEMORY": str(memory),
        "PREVIOUSLY_ACCESS_KEY": "open sesame",
        "PREVIOUSLY_SESSION_SECRET": "s" * 32,
        # As the stack sets them: behind CloudFront, answering to the distribution's name (and,
        # for the events below that skip CloudFront, to the API's own).
        "PREVIOUSLY_BEHIND_CLOUDFRONT": "true",
        "PREVIOUSLY_PUBLIC_HOSTS": f"{SITE},{API_HOST}",
    }
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    for name in (
        "PREVIOUSLY_SECRET_ARN",
        "ANTHROPIC_API_KEY",
        "OPENAI_API_KEY",
        "DEEPSEEK_API_KEY",
        "GITHUB_TOKEN",
    ):
        monkeypatch.delenv(name, raising=False)
    reset_entries()
    with mock_aws():
        yield memory
    reset_entries()


def reset_entries() -> None:
    """Forget what the Lambda entries built (each container builds it once; each test is a new one)."""
    from functions.handlers import api, ws

    compose.reset()
    api._adapter.cache_clear()
    ws._routes.cache_clear()


def test_the_api_and_websocket_cold_start_loads_no_model_sdk_and_no_cdk(aws_env: Path) -> None:
    # A fresh interpreter, as a Lambda cold start: serve one request on each entry, then look.
    script = (
        "import json, sys\n"
        "from functions.handlers.api import handler\n"
        "from functions.handlers.ws import handler as ws\n"
        f"event = json.loads({json.dumps(json.dumps(http_event('GET', '/api/health')))})\n"
        "r = handler(event, None)\n"
        "ws({'requestContext': {'routeKey': '$connect', 'connectionId': 'c='}, 'headers': {}}, None)\n"
        "heavy = ('anthropic', 'openai', 'aws_cdk', 'constructs', 'jsii', 'typer', 'uvicorn')\n"
        "sdks = [m for m in heavy if m in sys.modules]\n"
        "print(json.dumps({'status': r['statusCode'], 'sdks': sdks}))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=ROOT,
        env=dict(os.environ),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.strip().splitlines()[-1]) == {"status": 200, "sdks": []}


def test_data_routes_need_the_key(aws_env: Path) -> None:
    from functions.handlers.api import handler

    assert handler(http_event("GET", "/api/timeline"), None)["statusCode"] == 401
    ok = handler(http_event("GET", "/api/timeline", {"x-access-key": "open sesame"}), None)
    assert ok["statusCode"] == 200, ok


KEY = {"x-access-key": "open sesame", "content-type": "application/json"}


def state_machine() -> tuple[Any, str]:
    """A state machine in moto that stays RUNNING (moto does not execute it), and the run bucket."""
    import boto3

    sfn = boto3.client("stepfunctions", region_name="us-east-1")
    definition = json.dumps({"StartAt": "Wait", "States": {"Wait": {"Type": "Pass", "End": True}}})
    arn = sfn.create_state_machine(
        name="turn", definition=definition, roleArn="arn:aws:iam::123456789012:role/x"
    )["stateMachineArn"]
    os.environ["STATE_MACHINE_ARN"] = arn
    boto3.client("s3", region_name="us-east-1").create_bucket(Bucket="runs")
    reset_entries()
    return sfn, arn


def start_turn() -> str:
    from functions.handlers.api import handler

    body = json.dumps({"message": "Hello from a script", "timezone": "Europe/Lisbon"})
    started = handler(http_event("POST", "/api/turns", KEY, body), None)
    assert started["statusCode"] == 202, started
    return str(json.loads(started["body"])["turn_id"])


def read_turn(turn_id: str) -> dict[str, Any]:
    from functions.handlers.api import handler

    read = handler(http_event("GET", f"/api/turns/{turn_id}", KEY), None)
    assert read["statusCode"] == 200, read
    return dict(json.loads(read["body"]))


def test_a_scripted_turn_starts_an_execution_and_reads_back(aws_env: Path) -> None:
    sfn, arn = state_machine()
    turn_id = start_turn()
    (execution,) = sfn.list_executions(stateMachineArn=arn)["executions"]
    assert execution["name"] == turn_id
    assert json.loads(execution_input(sfn, execution["executionArn"])) == {
        "turn_id": turn_id,
        "connection_id": None,
    }
    view = read_turn(turn_id)
    assert (view["turn_id"], view["status"]) == (turn_id, "running")


def execution_input(sfn: Any, arn: str) -> str:
    return str(sfn.describe_execution(executionArn=arn)["input"])


def test_a_dead_execution_reads_as_an_error_through_the_api(aws_env: Path) -> None:
    sfn, arn = state_machine()
    turn_id = start_turn()
    sfn.stop_execution(executionArn=arn.replace(":stateMachine:", ":execution:") + ":" + turn_id)
    view = read_turn(turn_id)
    assert view["status"] == "error"
    assert [e["type"] for e in view["events"]] == ["turn.error"]
    assert "send it again" in view["events"][0]["message"]


def test_cancel_through_the_api_sets_the_flag_the_steps_poll(aws_env: Path) -> None:
    from functions.handlers.api import handler

    state_machine()
    turn_id = start_turn()
    cancelled = handler(http_event("POST", f"/api/turns/{turn_id}/cancel", KEY), None)
    assert cancelled["statusCode"] in (200, 202), cancelled
    assert compose.run_store().get(turn_id, "cancel") is True
    missing = handler(http_event("POST", "/api/turns/nope/cancel", KEY), None)
    assert missing["statusCode"] == 404


def test_a_browser_signs_in_through_cloudfront_and_its_cookie_opens_the_data_routes(aws_env: Path) -> None:
    from functions.handlers.api import handler

    # As CloudFront forwards it: the viewer's host in x-forwarded-host, API Gateway's own Host.
    browser = {
        "origin": f"https://{SITE}",
        "x-forwarded-host": SITE,
        "x-forwarded-proto": "https",
        "content-type": "application/json",
    }
    wrong = handler(http_event("POST", "/api/auth/sign-in", browser, json.dumps({"key": "nope"})), None)
    assert wrong["statusCode"] == 401
    cross = {**browser, "origin": "https://evil.example"}
    assert handler(http_event("POST", "/api/auth/sign-in", cross, '{"key": "open sesame"}'), None)[
        "statusCode"
    ] in (401, 403)
    signed = handler(http_event("POST", "/api/auth/sign-in", browser, '{"key": "open sesame"}'), None)
    assert signed["statusCode"] == 200, signed
    (cookie,) = signed["cookies"]
    assert "HttpOnly" in cookie and "Secure" in cookie and "SameSite=strict" in cookie
    # Payload 2.0 carries the browser's cookies in their own field.
    event = {**http_event("GET", "/api/timeline", browser), "cookies": [cookie.split(";")[0]]}
    assert handler(event, None)["statusCode"] == 200
    assert handler(http_event("GET", "/api/timeline", browser), None)["statusCode"] == 401


def ws_connect(headers: dict[str, str]) -> int:
    from functions.handlers.ws import handler

    event = {"requestContext": {"routeKey": "$connect", "connectionId": "c="}, "headers": headers}
    return int(handler(event, None)["statusCode"])


def test_websocket_connect_takes_the_session_cookie_from_the_same_origin(aws_env: Path) -> None:
    sessions = compose.api_deps(compose.secret_key()).security.sessions
    assert sessions is not None
    cookie = f"previously_session={sessions.issue()}"
    same_site = {
        "Origin": f"https://{SITE}",
        "X-Forwarded-Host": SITE,
        "Host": "abc.execute-api.us-east-1.amazonaws.com",
    }
    assert ws_connect({**same_site, "Cookie": cookie}) == 200
    assert ws_connect(same_site) == 401
    assert ws_connect({**same_site, "Cookie": "previously_session=forged"}) == 401
    assert ws_connect({"Origin": "https://evil.example", "X-Forwarded-Host": SITE, "Cookie": cookie}) == 403
    assert ws_connect({"x-access-key": "open sesame"}) == 200


def test_the_maintenance_handler_closes_an_expired_slice_and_reports(aws_env: Path) -> None:
    from core.memory.paths import core_md
    from core.memory.slice.model import parse_core_md
    from functions.handlers.maintain import handler
    from tests.fakes.slices import slice_text

    old = "2026-08-11-0900"
    path = aws_env / str(core_md(old))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(slice_text(old, [("user", "Plan the trip."), ("agent", "Gladly.")], status="active"))
    report = handler({"source": "aws.events", "detail-type": "Scheduled Event"}, None)
    assert [c["slice_id"] for c in report["closed"]] == [old]
    assert json.loads(json.dumps(report)) == report
    closed = parse_core_md(path.read_text(encoding="utf-8"))
    assert closed.status == "closed" and [t.content for t in closed.turns] == ["Plan the trip.", "Gladly."]
    assert handler({"source": "aws.events"}, None)["closed"] == []


def test_the_maintenance_handler_recovers_a_lost_turn_from_the_s3_run_store(aws_env: Path) -> None:
    """A turn whose Lambda died after accepting the message: past its deadline, the scheduled pass
    ends it and saves the message, reading the run bucket the turn steps wrote."""
    import boto3

    from core.memory.paths import MEMORY
    from core.memory.slice.model import parse_core_md
    from core.storage.local import LocalStorage
    from core.turn.recovery import ACCEPTED_KEY, DEADLINE_KEY
    from core.turn.runstore import status_of
    from core.turn.runtime import REQUEST_KEY
    from core.turn.service import TurnInput
    from core.turn.sink import RunStoreSinks
    from functions.handlers.maintain import handler

    boto3.client("s3", region_name="us-east-1").create_bucket(Bucket="runs")
    runs = compose.run_store()
    runs.put("sf1", REQUEST_KEY, TurnInput("Kept through a dead Lambda.", timezone="UTC").to_json())
    runs.put("sf1", ACCEPTED_KEY, "2026-08-11T09:00:00.000Z")
    runs.put("sf1", DEADLINE_KEY, "2026-08-11T09:30:00.000Z")
    RunStoreSinks(runs)("sf1", "save", 1).emit("step.started", label="Saving your message")

    report = handler({"source": "aws.events", "detail-type": "Scheduled Event"}, None)

    assert report["recovered"] == {"ended": ["sf1"], "saved": ["sf1"], "failed": []}
    assert status_of(compose.run_store().events("sf1")) == "interrupted"
    snap = LocalStorage(aws_env).snapshot()
    texts = [snap.read(p) or "" for p in snap.list(MEMORY) if p.name == "core.md"]
    assert [t.content for text in texts for t in parse_core_md(text).turns] == ["Kept through a dead Lambda."]


def test_a_demo_websocket_honours_the_persona_through_persona_deps(
    aws_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import boto3

    from functions.handlers import ws

    monkeypatch.setenv("STORAGE", "demo")
    monkeypatch.delenv("PREVIOUSLY_MEMORY")
    reset_entries()
    boto3.client("s3", region_name="us-east-1").create_bucket(Bucket="runs")
    key = {"x-access-key": "open sesame"}

    def connect(headers: dict[str, str], query: dict[str, str] | None = None) -> int:
        event = {"requestContext": {"routeKey": "$connect", "connectionId": "c="}, "headers": headers}
        if query is not None:
            event["queryStringParameters"] = query
        return int(ws.handler(event, None)["statusCode"])

    deps = compose.api_deps(compose.secret_key())
    assert deps.cast is not None
    routes = ws._routes(compose.secret_key())
    assert connect(key, {"persona": "zed"}) == 400
    assert connect({**key, "Cookie": "previously_persona=jia"}) == 200
    # A connection without a visitor cookie still gets an overlay of its own, never the persona's.
    persona, visitor = compose.run_store().connection_choice("c=")
    assert persona == "jia" and visitor is not None and deps.visitors is not None
    own = deps.visitors.get("jia", visitor, create=False)
    assert own is not None and routes.target("c=").turns is own.turns is not deps.cast.deps["jia"].turns
    mine = "b" * 32
    assert connect({**key, "Cookie": f"previously_visitor={mine}"}, {"persona": "nell"}) == 200
    # The default persona's visitors start turns on Step Functions, as outside the demo.
    target = routes.target("c=").turns
    assert isinstance(target, StepFunctionsTurns) and target is deps.visitors.get("nell", mine, False).turns  # type: ignore[union-attr]
    ws.handler({"requestContext": {"routeKey": "$disconnect", "connectionId": "c="}}, None)
    assert compose.run_store().connection_note("c=") is None


class RecordingLambda:
    """The Lambda client the API uses to start an evolve-now run: records each async invoke."""

    def __init__(self) -> None:
        self.invokes: list[dict[str, Any]] = []

    def invoke(self, **kwargs: Any) -> dict[str, Any]:
        self.invokes.append(kwargs)
        return {"StatusCode": 202}


def test_evolve_now_answers_202_and_runs_in_the_maintenance_function(
    aws_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from functions.aws import evolve
    from functions.handlers.api import handler as api
    from functions.handlers.maintain import handler as maintain

    state_machine()
    monkeypatch.setenv("EVOLVE_FUNCTION", "previously-maintain")
    fake = RecordingLambda()
    real = compose.boto_client
    monkeypatch.setattr(
        compose, "boto_client", lambda service, **kw: fake if service == "lambda" else real(service, **kw)
    )
    reset_entries()
    headers = {**KEY, "origin": "https://abc.execute-api.us-east-1.amazonaws.com"}
    started = api(http_event("POST", "/api/evolution/run", headers), None)
    assert started["statusCode"] == 202, started
    run = json.loads(started["body"])
    (call,) = fake.invokes
    assert (call["FunctionName"], call["InvocationType"]) == ("previously-maintain", "Event")
    assert json.loads(call["Payload"]) == evolve.evolve_event(run["run_id"])
    again = api(http_event("POST", "/api/evolution/run", headers), None)
    assert again["statusCode"] == 409, again
    ended = maintain(json.loads(call["Payload"]), None)
    assert (
        ended["status"] == "done"
        and ended["report"]["message"] == "There is no conversation yet to learn from."
    )
    read = api(http_event("GET", f"/api/evolution/run/{run['run_id']}", KEY), None)
    assert read["statusCode"] == 200 and json.loads(read["body"])["status"] == "done"
    assert maintain(json.loads(call["Payload"]), None)["status"] == "done", "a retried invoke runs nothing"


def test_without_an_evolve_function_the_route_says_it_is_not_offered(aws_env: Path) -> None:
    from functions.handlers.api import handler as api

    state_machine()
    headers = {**KEY, "origin": "https://abc.execute-api.us-east-1.amazonaws.com"}
    assert api(http_event("POST", "/api/evolution/run", headers), None)["statusCode"] == 404


def test_behind_cloudfront_a_request_without_its_origin_secret_is_refused(
    aws_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Straight at the execute-api endpoint, forged viewer and forwarded headers pick nothing:
    without the secret CloudFront adds, the HTTP API and the WebSocket `$connect` refuse."""
    from functions.handlers.api import handler

    monkeypatch.setenv("PREVIOUSLY_ORIGIN_SECRET", "o" * 48)
    reset_entries()
    forged = {"cloudfront-viewer-address": "192.0.2.1:443", "x-forwarded-host": SITE, "x-access-key": "x"}
    for headers in (forged, {**forged, "x-previously-origin": "guessed"}):
        refused = handler(http_event("GET", "/api/timeline", headers), None)
        assert refused["statusCode"] == 403 and "CloudFront" in json.loads(refused["body"])["message"]
        assert ws_connect({**headers, "x-access-key": "open sesame"}) == 403
    via = {"x-previously-origin": "o" * 48, "x-forwarded-host": SITE, "x-access-key": "open sesame"}
    assert handler(http_event("GET", "/api/timeline", via), None)["statusCode"] == 200
    assert ws_connect(via) == 200
