"""The small error vocabulary of the domain: every domain error class lives here.

Adapters map these to HTTP statuses and Step Functions retry names in exactly one place each
(functions/api/errors.py, the step table). Class names are part of the contract: a state
machine `Retry`s on the name, and `domain_errors()` finds every class by importing this module
alone. Each class can be rebuilt from its message (a Step Functions `Catch` carries only the
name and the message); extra fields have defaults. What raises them, and the wording, lives
beside the code that knows (core/llm/errors.py, core/storage/github_errors.py, …).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from core.redact import redact

_T = TypeVar("_T")


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


class ModelUnavailable(ModelTransientError):
    """A transient model failure; `retry_after` is the wait the provider asked for, if any."""

    def __init__(self, message: str, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class ModelTimeout(ModelUnavailable):
    """The provider did not answer within the request's timeout."""


class Unreachable(ModelUnavailable):
    """No connection could be made to the endpoint at all (nothing listens, the name does not resolve)."""


class KeyRefused(ModelError):
    """The provider refused the key (401 / 403)."""


class ModelUnknown(ModelError):
    """The provider does not serve the model (404)."""


class BudgetSpent(TransientError):
    """The backend's request budget is spent until `reset_at` (epoch seconds; 0: not known); the
    message names the limit and the reset. Nothing was written by the request that met it."""

    def __init__(self, message: str, reset_at: float = 0.0) -> None:
        super().__init__(message)
        self.reset_at = reset_at


class BulkReadStopped(BudgetSpent):
    """The memory's archive could not be downloaded and the files it should have brought are too
    many to read one by one within a pass's request budget: the pass stops in words."""


# GitHub asks clients hit by a secondary limit without a retry-after to wait at least a minute.
SECONDARY_LIMIT_WAIT = 60.0


class GitHubRateLimited(TransientError):
    """GitHub throttled us; `retry_after` says how long it asked us to wait (seconds)."""

    def __init__(self, message: str, retry_after: float = SECONDARY_LIMIT_WAIT) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class RateLimitSpent(GitHubRateLimited, BudgetSpent):
    """The token's primary budget (requests an hour) is spent until `reset_at` (epoch seconds)."""

    def __init__(
        self, message: str, retry_after: float = SECONDARY_LIMIT_WAIT, reset_at: float = 0.0
    ) -> None:
        TransientError.__init__(self, message)  # both bases only add attributes
        self.retry_after = retry_after
        self.reset_at = reset_at


class FileTooLarge(TooLarge):
    """A file over its size cap (the message names the file, its size and the cap)."""


@dataclass(frozen=True)
class Damage:
    """One damaged file and what is wrong with it, in words a person can act on."""

    path: str
    problem: str

    def __str__(self) -> str:
        return f"{self.path}: {self.problem}"


class DamagedFile(InvalidInput):
    """A memory file that cannot be read at all (not UTF-8, or over its size cap)."""

    def __init__(self, problem: str, path: str = "") -> None:
        super().__init__(problem)
        self.damage = Damage(path, problem)


def domain_errors() -> dict[str, type[PreviouslyError]]:
    """Every domain error class by name (the names a state machine retries and catches on)."""
    found: dict[str, type[PreviouslyError]] = {}
    pending: list[type[PreviouslyError]] = [PreviouslyError]
    while pending:
        cls = pending.pop()
        found.setdefault(cls.__name__, cls)
        pending.extend(cls.__subclasses__())
    return found


def expand_errors(names: Iterable[str]) -> list[str]:
    """Each name plus the names of its subclasses among the domain errors, in a stable order."""
    by_name = domain_errors()
    result: list[str] = []
    for name in names:
        result.append(name)
        root = by_name.get(name)
        if root is not None:
            result.extend(n for n, c in sorted(by_name.items()) if c is not root and issubclass(c, root))
    return list(dict.fromkeys(result))


def nearest_class(exc: BaseException, table: Mapping[type[Any], _T]) -> _T | None:
    """The value `table` gives the nearest class in `exc`'s MRO, or None when it names none.

    The one way an adapter maps errors to its own vocabulary (an HTTP status, a `turn.error`
    code, a model-check state): the most specific class listed wins, whatever the table's order.
    """
    for cls in type(exc).__mro__:
        if cls in table:
            return table[cls]
    return None
