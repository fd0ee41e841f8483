"""How a GitHub request failure is classified and when one is retried.

PyGithub's own retry is off so that this module decides: throttling, 5xx answers, timeouts
and dropped connections are `TransientError` (retried here a few times with jittered backoff,
honouring `retry-after` up to a cap, then raised for the caller's retry); bad credentials,
missing access and missing repositories are `StorageError` naming the setting to fix.
A rejected ref update (422 "not a fast forward", or 409) is a conflict, which the commit
loop handles itself.
"""

from __future__ import annotations

import random
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, TypeVar

import requests
from github import GithubException

from core.clock import Clock, SystemClock
from core.errors import (
    SECONDARY_LIMIT_WAIT,
    GitHubRateLimited,
    PreviouslyError,
    RateLimitSpent,
    StorageError,
    TransientError,
)
from core.retry import SPREAD_JITTER, RetryPolicy, Sleep

T = TypeVar("T")
_FAST_FORWARD = re.compile(r"not a fast.?forward", re.IGNORECASE)


def spent_message(what: str, limit: int | None, reset_at: float, clock: Clock) -> str:
    """Names the limit and when it resets; says that nothing was lost."""
    wait = max(0.0, reset_at - clock.now().timestamp())
    when = datetime.fromtimestamp(reset_at, UTC).strftime("%H:%M UTC")
    size = f"{limit:,} requests an hour" if limit else "requests an hour"
    return (
        f"GitHub's rate limit for this token is spent ({size}; stopped before: {what}). It resets at "
        f"{when}, in about {max(1, round(wait / 60))} min. Nothing was lost: run it again after that "
        "and it resumes where it stopped."
    )


class RefConflict(Exception):
    """The branch moved under us (internal to the commit loop)."""


# Throttling, 5xx answers, timeouts, dropped connections: a few quick tries, then the caller's retry.
REQUEST_RETRY = RetryPolicy(
    ("TransientError",),
    max_attempts=3,
    interval_seconds=0.25,
    max_delay_seconds=4.0,
    jitter=SPREAD_JITTER,
    retry_after_cap=20.0,
    over_cap="give_up",
)
# The branch moved under a commit: rebuild on the new head and try again.
CONFLICT_RETRY = RetryPolicy(
    ("RefConflict",), max_attempts=5, interval_seconds=0.25, max_delay_seconds=4.0, jitter=SPREAD_JITTER
)


@dataclass
class GitHubRetry:
    """How the GitHub backend retries requests and ref updates; `sleep`, `rng` and `clock` are injected."""

    requests: RetryPolicy = REQUEST_RETRY
    conflicts: RetryPolicy = CONFLICT_RETRY
    sleep: Sleep = field(default=time.sleep)
    rng: random.Random = field(default_factory=random.Random)
    clock: Clock = field(default_factory=SystemClock)


@dataclass(frozen=True)
class Target:
    """What we are talking to, for messages that name the setting to fix."""

    repo: str
    branch: str | None


def call(fn: Callable[[], T], what: str, target: Target, retry: GitHubRetry, conflicts: bool = False) -> T:
    """Run one request, retrying transient failures; raises the classified error otherwise."""
    attempt = 1
    while True:
        try:
            return fn()
        except (GithubException, requests.RequestException) as exc:
            if conflicts and is_conflict(exc):
                raise RefConflict(str(exc)) from exc
            err = classify(exc, what, target, retry.clock)
            asked = err.retry_after if isinstance(err, GitHubRateLimited) else None
            wait = retry.requests.wait_after(err, attempt, retry.rng.random() if asked is None else 0.0)
            if wait is None:
                raise err from exc
            retry.sleep(wait)
            attempt += 1


def is_conflict(exc: BaseException) -> bool:
    """A ref update refused because the branch moved (422 not-a-fast-forward, or 409)."""
    if not isinstance(exc, GithubException):
        return False
    return exc.status in (409, 422) or bool(_FAST_FORWARD.search(_message(exc)))


def classify(exc: BaseException, what: str, target: Target, clock: Clock) -> PreviouslyError:
    """Translate a request failure into the domain's error vocabulary."""
    if isinstance(exc, requests.Timeout):
        return TransientError(f"GitHub did not answer in time ({what}); try again.")
    if isinstance(exc, requests.RequestException):
        return TransientError(
            f"Could not reach GitHub ({what}): {exc}. Check the network and GITHUB_API_URL."
        )
    assert isinstance(exc, GithubException)
    status, message = exc.status, _message(exc)
    headers = {str(k).lower(): str(v) for k, v in (exc.headers or {}).items()}
    wait = rate_limit_wait(status, headers, message, clock)
    if wait is not None and headers.get("x-ratelimit-remaining") == "0" and "retry-after" not in headers:
        reset_at = clock.now().timestamp() + wait
        limit = _int(headers.get("x-ratelimit-limit"))
        return RateLimitSpent(spent_message(what, limit, reset_at, clock), wait, reset_at)
    if wait is not None:
        return GitHubRateLimited(
            f"GitHub rate limit reached ({what}); retry in about {round(wait)} s.", retry_after=wait
        )
    if status == 401:
        return StorageError(
            "GitHub rejected the token (401 Bad credentials): set GITHUB_TOKEN to a valid token "
            f"for {target.repo}."
        )
    if status == 403:
        return StorageError(
            f"GitHub refused access ({what}: {message or 'forbidden'}): give GITHUB_TOKEN read and "
            f"write access to the contents of GITHUB_REPO={target.repo}."
        )
    if status == 404:
        return StorageError(
            f"GitHub found nothing for {what}: check GITHUB_REPO={target.repo} (owner/name)"
            f"{branch_hint(target)} and that GITHUB_TOKEN can see that repository."
        )
    if status == 409:
        return StorageError(
            f"GitHub repository {target.repo} cannot be used yet ({message or 'conflict'}); an empty "
            "repository needs a first commit (for example, add a README on github.com)."
        )
    if status >= 500:
        return TransientError(f"GitHub had a server error {status} ({what}); try again.")
    return StorageError(f"GitHub answered {status} ({what}): {message or 'no message'}.")


def rate_limit_wait(status: int, headers: dict[str, str], message: str, clock: Clock) -> float | None:
    """Seconds GitHub asks us to wait when this answer is throttling, else None."""
    if status not in (403, 429):
        return None
    if "retry-after" in headers:
        return _seconds(headers["retry-after"])
    if headers.get("x-ratelimit-remaining") == "0" and "x-ratelimit-reset" in headers:
        return max(0.0, _seconds(headers["x-ratelimit-reset"]) - clock.now().timestamp())
    lowered = message.lower()
    if status == 429 or "rate limit" in lowered or "retry your request again later" in lowered:
        return SECONDARY_LIMIT_WAIT
    return None


def branch_hint(target: Target) -> str:
    """ ", GITHUB_BRANCH=x" when a branch is configured (for 404 messages)."""
    return f", GITHUB_BRANCH={target.branch}" if target.branch else ""


def _seconds(value: str) -> float:
    try:
        return max(0.0, float(value))
    except ValueError:
        return SECONDARY_LIMIT_WAIT


def _int(value: str | None) -> int | None:
    try:
        return int(float(value)) if value is not None else None
    except ValueError:
        return None


def _message(exc: GithubException) -> str:
    data: Any = exc.data
    if isinstance(data, dict):
        return str(data.get("message") or "")
    return str(data or "")
