"""The shape of the step table: the turn as named steps with declared retries.

Both runners read the same table — the in-process runner (CLI, local server, tests) and the
Step Functions definition generated from it (infra/) — so they cannot drift. A step is a
function of a small JSON input and the injected dependencies, returning a small JSON output
(ids, paths, shas; never whole histories — Step Functions caps a payload at 256 KB).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

StepInput = dict[str, Any]
StepOutput = dict[str, Any]


@dataclass(frozen=True)
class RetryRule:
    """Retry a step when it raises one of `errors` (exception class names)."""

    errors: tuple[str, ...]
    max_attempts: int = 3
    interval_seconds: float = 1.0
    backoff_rate: float = 2.0


@dataclass(frozen=True)
class StepSpec:
    """One named step: what runs, its human label, how it retries, whether failure may be ignored."""

    name: str
    label: str
    run: Callable[[StepInput, Any], StepOutput]
    retries: tuple[RetryRule, ...] = ()
    best_effort: bool = False
    timeout_seconds: int = 300

    def retry_for(self, exc: BaseException) -> RetryRule | None:
        """The rule that covers `exc` (matched by class name along its MRO), if any."""
        names = {cls.__name__ for cls in type(exc).__mro__}
        return next((r for r in self.retries if names.intersection(r.errors)), None)
