"""Logging for every entry point: no secret in a log line, and JSON records on Lambda.

`install(settings)` registers the deployment's secret values with core/redact.py and makes every
log record (message, arguments and traceback) pass through `redact` as it is created, so a
provider's error that echoes a key is masked before any handler formats it.
"""

from __future__ import annotations

import logging
from typing import Any

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
        elif name in ("access_key_hash", "access_key_sha256") and value:
            values.append(str(value))
        del field
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
    """The record with its message, arguments and traceback text redacted (formatted eagerly)."""
    try:
        message = record.getMessage()
    except Exception:  # a bad format string: let logging report it as it always does
        return record
    record.msg, record.args = redact(message), None
    if record.exc_info and not record.exc_text:
        record.exc_text = redact(logging.Formatter().formatException(record.exc_info))
    return record
