"""The code each domain error gets where it ends a turn (`turn.error`), in the API and in `models --check`."""

from __future__ import annotations

import pytest

from core import errors as e
from core.errors import domain_errors
from core.turn.failures import failure_code

pytestmark = pytest.mark.unit

TURN_CODES = {
    "BudgetSpent": "storage_unavailable",
    "BulkReadStopped": "storage_unavailable",
    "ConflictError": "conflict",
    "DamagedFile": "invalid_input",
    "FileTooLarge": "too_large",
    "GitHubRateLimited": "storage_unavailable",
    "InvalidInput": "invalid_input",
    "KeyRefused": "model_error",
    "ModelError": "model_error",
    "ModelTimeout": "model_unavailable",
    "ModelTransientError": "model_unavailable",
    "ModelUnavailable": "model_unavailable",
    "ModelUnknown": "model_error",
    "NoModelConfigured": "no_model",
    "NotFound": "not_found",
    "PathDenied": "path_denied",
    "PreviouslyError": "internal",
    "RateLimitSpent": "storage_unavailable",
    "ReadOnly": "read_only",
    "SliceFormatError": "format_error",
    "SliceIdTaken": "conflict",
    "StorageError": "storage_error",
    "TooLarge": "too_large",
    "TransientError": "storage_unavailable",
    "Unreachable": "model_unavailable",
}


def test_every_domain_error_has_its_turn_code() -> None:
    got = {name: failure_code(cls("x")) for name, cls in domain_errors().items()}
    assert got == TURN_CODES


def test_anything_else_is_internal() -> None:
    assert failure_code(RuntimeError("boom")) == "internal"
    assert failure_code(KeyboardInterrupt()) == "internal"


def test_nearest_class_decides() -> None:
    table: dict[type[BaseException], str] = {e.ModelError: "model", e.PreviouslyError: "any"}
    assert e.nearest_class(e.KeyRefused("x"), table) == "model"
    assert e.nearest_class(e.NotFound("x"), table) == "any"
    assert e.nearest_class(ValueError("x"), table) is None
