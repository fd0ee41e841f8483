"""The small error vocabulary of the domain.

Adapters map these to HTTP statuses and Step Functions retry names in exactly one place each
(functions/api/errors.py, the step table). Class names are part of the contract: a state
machine `Retry`s on the name.
"""

from __future__ import annotations

from core.redact import redact


class PreviouslyError(Exception):
    """Base of every domain error. Its message never carries a secret (core/redact.py)."""

    code = "internal"

    def __init__(self, *args: object) -> None:
        super().__init__(*(redact(a) if isinstance(a, str) else a for a in args))


class NotFound(PreviouslyError):
    """A slice, file or entry that does not exist."""

    code = "not_found"


class InvalidInput(PreviouslyError):
    """Input that cannot be accepted as given; the message says what to fix."""

    code = "invalid_input"


class PathDenied(InvalidInput):
    """A path outside the writable memory, or one that tries to escape it."""

    code = "path_denied"


class TooLarge(InvalidInput):
    """A file or payload over its size cap."""

    code = "too_large"


class ReadOnly(PreviouslyError):
    """A write against read-only memory (demo mode)."""

    code = "read_only"


class ConflictError(PreviouslyError):
    """Another writer moved the memory repository and merging did not settle it."""

    code = "conflict"


class TransientError(PreviouslyError):
    """Worth retrying as is: throttling, a 5xx, a timeout, a dropped connection."""

    code = "transient"


class StorageError(PreviouslyError):
    """The storage backend failed in a way retrying will not fix (bad token, missing repo)."""

    code = "storage_error"


class ModelError(PreviouslyError):
    """A model call failed permanently (auth, invalid request); the message names the fix."""

    code = "model_error"


class ModelTransientError(TransientError):
    """A model call failed in a way worth retrying (rate limit, 5xx, timeout)."""

    code = "model_transient"


class NoModelConfigured(PreviouslyError):
    """No model provider is configured; the memory pipeline still runs without one."""

    code = "no_model"


class SliceFormatError(InvalidInput):
    """A memory file that cannot be read as its format says (broken YAML frontmatter, …).

    Such a file is never rewritten: the message names the file line so a person can fix it.
    """

    code = "format_error"


class SliceIdTaken(ConflictError):
    """A new slice's directory already holds another slice; the caller picks the next free id."""

    code = "slice_id_taken"
