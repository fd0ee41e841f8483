"""Logging for every entry point: no secret in a log line, and JSON records on Lambda.

`install(settings)` registers the deployment's secret values with core/redact.py and makes every
log record (message, arguments and traceback) pass through `redact` as it is created, so a
provider's error that echoes a key is masked before any handler formats it.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from core.llm.presets import KEY_VARIABLES
from core.redact import redact, register_secrets
from functions.settings import Settings

_installed = False


def secret_values(settings: Settings) -> list[str]:
    """Every secret the settings hold."""
    values: list[str] = []
    for name, field in type(settings).model_fields.items():
        value = getattr(settings, name)
        if hasattr(value, "get_secret_value"):
            values.append(value.get_secret_value())
        elif name == "model_keys":
            values.extend(v.get_secret_value() for v in value.values())
        elif name in ("access_key_hash", "access_key_sha256") and value:
            values.append(str(value))
        del field
    return values


def environment_secrets(environ: Mapping[str, str] | None = None) -> list[str]:
    """The secret settings as the environment spells them, read without validating (for a failure
    that happens before, or instead of, a valid `Settings`)."""
    env = os.environ if environ is None else environ
    values = []
    for name, field in Settings.model_fields.items():
        secret = "SecretStr" in str(field.annotation) or name in ("access_key_hash", "access_key_sha256")
        if secret and field.alias and env.get(field.alias):
            values.append(env[field.alias])
    upper = {k.upper(): v for k, v in env.items()}
    values.extend(upper[var] for var in KEY_VARIABLES if upper.get(var))
    return values


def install(settings: Settings) -> None:
    """Register the settings' secrets and (once per process) redact every log record."""
    register_secrets(secret_values(settings))
    global _installed
    if _installed:
        return
    _installed = True
    previous = logging.getLogRecordFactory()

    def factory(*args: Any, **kwargs: Any) -> logging.LogRecord:
        record = previous(*args, **kwargs)
        return redact_record(record)

    logging.setLogRecordFactory(factory)


def redact_record(record: logging.LogRecord) -> logging.LogRecord:
    """The record with its message, arguments and traceback text redacted (formatted eagerly).

    uvicorn's access formatter unpacks the record's arguments (address, method, path, version,
    status), so an access record keeps them, each string redacted, instead of being formatted."""
    if record.name == "uvicorn.access" and isinstance(record.args, tuple):
        record.args = tuple(redact(a) if isinstance(a, str) else a for a in record.args)
        return record
    try:
        message = record.getMessage()
    except Exception:  # a bad format string: let logging report it as it always does
        return record
    record.msg, record.args = redact(message), None
    if record.exc_info and not record.exc_text:  # the whole chain: causes, contexts, notes
        record.exc_text = redact(logging.Formatter().formatException(record.exc_info))
    if record.stack_info:
        record.stack_info = redact(record.stack_info)
    return record


@lru_cache(maxsize=1)
def lambda_logger() -> Any:
    """Powertools' JSON logger on the `previously` logger, so every `previously.*` log is JSON.

    Core code logs through standard loggers under `previously.`; they propagate into this one,
    whose formatter adds the keys a handler appended (turn id, step, execution id) as fields.
    """
    from aws_lambda_powertools import Logger

    logger = Logger(service="previously", logger_formatter=_redacting_formatter())
    logging.getLogger("previously").propagate = False  # the runtime's root handler would print it again
    return logger


def _redacting_formatter() -> Any:
    """Powertools' JSON formatter, its whole output redacted: it formats the exception, its notes
    and its stack trace itself from `exc_info`, past the record factory's redacted `exc_text`."""
    from aws_lambda_powertools.logging.formatter import LambdaPowertoolsFormatter

    class Redacting(LambdaPowertoolsFormatter):
        def format(self, record: logging.LogRecord) -> str:
            return redact(super().format(record))

    return Redacting()


def step_keys(event: Mapping[str, Any]) -> dict[str, Any]:
    """The correlation fields of a step task's payload: turn id, step, attempt, execution id (and
    the demo persona, when the turn names one)."""
    state = event.get("state") if isinstance(event.get("state"), Mapping) else {}
    keys = {
        "turn_id": state.get("turn_id") if isinstance(state, Mapping) else None,
        "step": event.get("step"),
        "attempt": int(event.get("retry") or 0) + 1,
        "execution_id": event.get("execution"),
        "persona": state.get("persona") if isinstance(state, Mapping) else None,
    }
    return {k: v for k, v in keys.items() if v is not None}


def correlate(context: Any, **keys: Any) -> None:
    """Start this invocation's log fields afresh: the request id and `keys` on every line."""
    log = lambda_logger()
    log.clear_state()
    request_id = getattr(context, "aws_request_id", None)
    log.append_keys(**keys, **({"request_id": request_id} if request_id else {}))
