"""No secret in error text, the run store or the log, even when a provider echoes one back."""

from __future__ import annotations

import json
import logging

import pytest

from core.clock import FixedClock
from core.errors import ModelError
from core.redact import MASK, redact, register_secrets
from core.storage.memory import InMemoryStorage
from core.turn.runstore import MemoryRunStore
from functions.logs import install, redact_record
from functions.settings import load_settings
from tests.fakes.fake_model_server import FakeModelServer, Reply
from tests.functional.turn_support import make_harness

pytestmark = pytest.mark.functional

KEY = "sk-proj-Echoed0123456789abcdefABCDEF"


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        ("Incorrect API key provided: sk-proj-abcdefghijklmnopqrstuvwx.", "Incorrect API key provided:"),
        ("received header Authorization: Bearer abcdefghijklmnopqrstuvwxyz012345", "Authorization:"),
        ('{"headers": {"x-api-key": "sk-ant-api03-abcdefghijklmnop"}}', '"x-api-key": "'),
        ("token ghp_abcdefghijklmnopqrstuvwxyz0123456789 expired", "expired"),
        ("url ...?key=AIzaSyA-abcdefghijklmnopqrstuvwxyz12345", "url"),
    ],
)
def test_key_shapes_are_masked_and_the_rest_kept(text: str, kept: str) -> None:
    out = redact(text)
    assert MASK in out and kept in out
    assert "abcdefghijklmnop" not in out


def test_ordinary_text_is_untouched() -> None:
    for text in ("The model refused: too many tokens in the prompt.", "Set OPENAI_API_KEY and retry.", ""):
        assert redact(text) == text


def test_registered_values_are_masked_in_domain_errors() -> None:
    register_secrets(["plain-secret-value-42", None, "short"])
    err = ModelError("provider said: bad key plain-secret-value-42 (401)")
    assert "plain-secret-value-42" not in str(err) and MASK in str(err)
    assert "short" in redact("short")  # too short to be a secret: never masked


def test_load_settings_registers_every_secret(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DEEPSEEK_API_KEY", "deepseek-value-not-key-shaped")
    load_settings()
    assert redact("echo deepseek-value-not-key-shaped") == f"echo {MASK}"


def test_log_records_and_tracebacks_are_redacted() -> None:
    try:
        raise RuntimeError(f"upstream: Authorization: Bearer {KEY}")
    except RuntimeError:
        import sys

        record = logging.LogRecord("x", logging.ERROR, __file__, 1, "failed with %s", (KEY,), sys.exc_info())
    redact_record(record)
    line = logging.Formatter().format(record)
    assert KEY not in line and MASK in line and "RuntimeError" in line


def test_installed_logging_redacts_what_any_logger_writes(caplog: pytest.LogCaptureFixture) -> None:
    install(load_settings())
    with caplog.at_level(logging.INFO):
        logging.getLogger("httpx").info(
            "HTTP Request: POST https://x/v1 headers=%s", {"authorization": f"Bearer {KEY}"}
        )
    assert KEY not in caplog.text and MASK in caplog.text


def test_a_provider_that_echoes_the_authorization_header_leaks_nothing(
    fake_models: FakeModelServer,
) -> None:
    clock = FixedClock.at("2026-08-11T11:15:00.000Z")
    h = make_harness(InMemoryStorage(), clock, fake_models)
    fake_models.responder = lambda r: Reply.error(
        401, f"Invalid credentials. You sent: Authorization: Bearer {KEY} (x-api-key: {KEY})"
    )
    state = h.turn("Hello?")
    assert state.status == "error"
    assert isinstance(h.runs, MemoryRunStore)
    stored = json.dumps(state.events) + json.dumps(
        list(h.runs._values.values()), default=str
    )  # events, step values
    assert KEY not in stored
    error = next(e for e in state.events if e["type"] == "turn.error")
    assert MASK in error["message"] or "refused" in error["message"].lower()


def test_uvicorn_access_records_stay_formattable_and_are_redacted() -> None:
    """uvicorn's access formatter unpacks the record's arguments: they stay, each redacted."""
    from uvicorn.logging import AccessFormatter

    register_secrets(["hunter2-access-secret"])
    record = logging.LogRecord(
        "uvicorn.access",
        logging.INFO,
        __file__,
        1,
        '%s - "%s %s HTTP/%s" %d',
        ("127.0.0.1:5000", "GET", "/api/state?key=hunter2-access-secret", "1.1", 200),
        None,
    )
    line = AccessFormatter("%(message)s", use_colors=False).format(redact_record(record))
    assert line == f'127.0.0.1:5000 - "GET /api/state?key={MASK} HTTP/1.1" 200'


def test_the_api_error_path_answers_and_logs_without_the_secret(caplog: pytest.LogCaptureFixture) -> None:
    from fastapi import FastAPI, HTTPException
    from fastapi.testclient import TestClient

    from functions.api import errors
    from functions.api.errors import ApiError

    secret = "api-path-secret-0987654321"
    install(load_settings())
    register_secrets([secret])
    app = FastAPI()
    errors.install(app)

    @app.get("/detail")
    def detail() -> None:
        raise HTTPException(status_code=400, detail=f"upstream said: key {secret}")

    @app.get("/refusal")
    def refusal() -> None:
        raise ApiError(403, "forbidden", f"not with {secret}")

    @app.get("/boom")
    def boom() -> None:
        try:
            raise ValueError(f"echoed {secret}")
        except ValueError as exc:
            raise RuntimeError("wrapped") from exc

    client = TestClient(app, raise_server_exceptions=False)
    with caplog.at_level(logging.ERROR, logger="previously.api"):
        answers = [client.get(path) for path in ("/detail", "/refusal", "/boom")]
    assert [a.status_code for a in answers] == [400, 403, 500]
    assert all(secret not in a.text for a in answers) and MASK in answers[0].text
    assert "wrapped" in caplog.text and secret not in caplog.text
