"""How a failed step reads to the user: an error code from the vocabulary and what to do next."""

from __future__ import annotations

from core.errors import (
    ConflictError,
    ModelError,
    ModelTransientError,
    NoModelConfigured,
    PreviouslyError,
    ReadOnly,
    StorageError,
    TransientError,
    nearest_class,
)

# The turn codes that have advice (a subclass's own `code` does not show); the nearest class decides.
_CODES: dict[type[BaseException], str] = {
    NoModelConfigured: "no_model",
    ModelTransientError: "model_unavailable",
    ModelError: "model_error",
    ConflictError: "conflict",
    TransientError: "storage_unavailable",
    StorageError: "storage_error",
    ReadOnly: "read_only",
}
_ADVICE = {
    "conflict": "Another writer kept changing the memory at the same moment. Send the message again.",
    "model_error": "The model refused or failed. Check the model settings (`previously models`).",
    "model_unavailable": "The model provider is busy or unreachable. Try again in a minute.",
    "storage_unavailable": "The memory storage did not answer. Try again in a minute.",
    "storage_error": "The memory storage refused the request. Check its settings (token, repository).",
    "read_only": "This memory is read-only.",
    "internal": "Something unexpected broke; the details are in the server log. Send the message again.",
}


def failure_code(exc: BaseException) -> str:
    """The `turn.error` code for an exception that ended a turn."""
    code = nearest_class(exc, _CODES)
    if code is not None:
        return code
    return exc.code if isinstance(exc, PreviouslyError) else "internal"


def failure_message(step: str, exc: BaseException, saved_user_message: bool) -> str:
    """A message saying what failed, whether the user's words are safe, and what to do."""
    code = failure_code(exc)
    detail = str(exc).strip() if isinstance(exc, PreviouslyError) else type(exc).__name__
    safe = (
        " Your message is saved in memory."
        if saved_user_message
        else " Your message was not saved; send it again."
    )
    advice = _ADVICE.get(code, "Send the message again.")
    return f"The {step} step failed: {detail}.{safe} {advice}".replace("..", ".")
