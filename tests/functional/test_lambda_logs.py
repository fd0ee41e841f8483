"""On Lambda every `previously.*` log line is one JSON object whose fields name the turn."""

from __future__ import annotations

import io
import json
import logging
from collections.abc import Iterator
from types import SimpleNamespace

import pytest

from functions.logs import correlate, lambda_logger, step_keys

pytestmark = pytest.mark.functional


class _Captured:
    def __init__(self) -> None:
        self.stream = io.StringIO()

    def lines(self) -> list[dict]:
        return [json.loads(line) for line in self.stream.getvalue().splitlines() if line.startswith("{")]


@pytest.fixture
def out() -> Iterator[_Captured]:
    """What the Lambda logger writes, through its own JSON formatter, into a buffer."""
    lambda_logger()
    app = logging.getLogger("previously")
    original = list(app.handlers)
    captured = _Captured()
    handler = logging.StreamHandler(captured.stream)
    handler.setFormatter(original[0].formatter)
    app.handlers = [handler]
    yield captured
    app.handlers = original


def test_core_logs_are_json_with_the_turn_and_execution_as_fields(out: _Captured) -> None:
    lambda_logger()
    event = {"step": "respond", "state": {"turn_id": "abcDEF"}, "retry": 1, "execution": "arn:exec:1"}
    correlate(SimpleNamespace(aws_request_id="req-1"), **step_keys(event))
    logging.getLogger("previously.turn").warning("best-effort step skipped")
    (line,) = out.lines()
    assert line["message"] == "best-effort step skipped" and line["level"] == "WARNING"
    assert (line["turn_id"], line["step"], line["attempt"], line["execution_id"]) == (
        "abcDEF",
        "respond",
        2,
        "arn:exec:1",
    )
    assert line["request_id"] == "req-1" and line["service"] == "previously"


def test_keys_do_not_leak_into_the_next_invocation(out: _Captured) -> None:
    correlate(None, turn_id="first")
    correlate(None)
    logging.getLogger("previously.maintain").info("maintenance pass")
    (line,) = out.lines()
    assert "turn_id" not in line


def test_step_keys_tolerate_a_bad_payload() -> None:
    assert step_keys({"state": "nope"}) == {"attempt": 1}


def test_a_failing_step_logs_its_turn_and_step_as_fields(out: _Captured) -> None:
    from core.turn.deps import TurnDeps

    log = logging.getLogger("previously.turn")
    correlate(None, execution_id="arn:exec:2")
    log.error("turn %s: step %s failed", "t1", "respond", extra={"turn_id": "t1", "step": "respond"})
    (line,) = out.lines()
    assert (line["turn_id"], line["step"], line["execution_id"]) == ("t1", "respond", "arn:exec:2")
    assert TurnDeps.__dataclass_fields__["log"].default_factory().name == "previously.turn"  # type: ignore[misc]


class _EchoingUpstream(Exception):
    """Like PyGithub's errors: the text comes from an attribute, not from the arguments."""

    def __init__(self, data: dict) -> None:
        super().__init__(401)
        self.data = data

    def __str__(self) -> str:
        return f"401 {json.dumps(self.data)}"


def test_an_exception_chain_that_echoes_a_secret_is_logged_redacted(out: _Captured) -> None:
    from core.errors import StorageError
    from core.redact import register_secrets

    secret = "plain-looking-secret-1234"
    register_secrets([secret])
    try:
        try:
            raise _EchoingUpstream({"message": "Bad credentials", "echo": f"token {secret}"})
        except _EchoingUpstream as upstream:
            upstream.add_note(f"sent with {secret}")
            raise StorageError("GitHub rejected the token: set GITHUB_TOKEN") from upstream
    except StorageError:
        logging.getLogger("previously.maintain").exception("pass failed %s", secret)
    (line,) = out.lines()
    assert secret not in json.dumps(line)
    assert "[redacted]" in line["exception"] and "GitHub rejected the token" in line["exception"]
