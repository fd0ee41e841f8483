"""One RetryPolicy (core/retry.py) for model calls, GitHub requests and ref updates, and turn steps."""

from __future__ import annotations

import math
import random

import pytest

from core.errors import GitHubRateLimited, ModelError, ModelUnavailable, TransientError
from core.llm.client import MODEL_RETRY
from core.retry import EQUAL_JITTER, NO_JITTER, SPREAD_JITTER, Jitter, RetryPolicy
from core.storage.github_errors import CONFLICT_RETRY, REQUEST_RETRY, RefConflict
from core.turn.steps import STEP_TABLE

pytestmark = pytest.mark.unit


def test_delays_grow_by_the_rate_up_to_the_ceiling() -> None:
    policy = RetryPolicy(("TransientError",), max_attempts=6, interval_seconds=1.0, max_delay_seconds=5.0)
    assert [policy.wait(n) for n in range(1, 7)] == [1.0, 2.0, 4.0, 5.0, 5.0, None]


@pytest.mark.parametrize(
    ("jitter", "low", "high"), [(NO_JITTER, 1, 1), (EQUAL_JITTER, 0.5, 1), (SPREAD_JITTER, 0.5, 1.5)]
)
def test_jitter_stays_within_its_bounds(jitter: Jitter, low: float, high: float) -> None:
    policy = RetryPolicy(("X",), max_attempts=9, interval_seconds=2.0, jitter=jitter)
    rng = random.Random(4)
    for attempt in range(1, 9):
        nominal = 2.0 * 2 ** (attempt - 1)
        assert low * nominal <= policy.backoff(attempt, rng.random()) <= high * nominal


def test_errors_are_matched_by_name_along_the_mro() -> None:
    assert MODEL_RETRY.covers(ModelUnavailable("busy")) and not MODEL_RETRY.covers(ModelError("bad key"))
    assert REQUEST_RETRY.covers(GitHubRateLimited("slow", 2.0)) and not REQUEST_RETRY.covers(ValueError())
    assert CONFLICT_RETRY.covers(RefConflict("moved"))
    assert MODEL_RETRY.wait_after(ModelError("bad key"), 1) is None


def test_a_suggested_wait_is_capped_or_ends_the_retries() -> None:
    # The model client waits at most the cap; GitHub gives a long wait back to the caller's retry.
    assert MODEL_RETRY.wait_after(ModelUnavailable("busy", retry_after=600.0), 1) == 30.0
    assert MODEL_RETRY.wait_after(ModelUnavailable("busy", retry_after=3.0), 1) == 3.0
    assert REQUEST_RETRY.wait_after(GitHubRateLimited("slow", retry_after=3.0), 1) == 3.0
    assert REQUEST_RETRY.wait_after(GitHubRateLimited("slow", retry_after=60.0), 1) is None
    assert REQUEST_RETRY.wait_after(TransientError("5xx"), REQUEST_RETRY.max_attempts) is None


def test_a_policy_that_cannot_work_is_refused() -> None:
    with pytest.raises(ValueError, match="max_attempts"):
        RetryPolicy(("X",), max_attempts=0)
    with pytest.raises(ValueError, match="jitter"):
        Jitter(1.5, 0.5)


def test_the_step_table_uses_only_what_step_functions_retry_can_express() -> None:
    """infra/workflow.py maps ErrorEquals, MaxAttempts, IntervalSeconds and BackoffRate."""
    for spec in STEP_TABLE.values():
        for rule in spec.retries:
            assert rule.jitter == NO_JITTER and rule.max_delay_seconds == math.inf, spec.name
            assert rule.retry_after_cap == math.inf, spec.name
