"""The shape of the step table: the turn as named steps with declared retries, and its flow.

Both runners read the same table — the in-process runner (CLI, local server, tests) and the
Step Functions definition generated from it (infra/) — so they cannot drift. A step is a
function of a small JSON input and the injected dependencies, returning a small JSON output
(ids, paths, shas; never whole histories — Step Functions caps a payload at 256 KB). The
output's `next` names the step to run; `Flow` lists what each step may ask for (its usual
successor first: a best-effort step that fails goes there) and is checked once, here.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from core.retry import RetryPolicy

StepInput = dict[str, Any]
StepOutput = dict[str, Any]
END = "end"


@dataclass(frozen=True)
class FanOut:
    """A step run once per item of the state's list `items`, up to `max_concurrency` at once.

    Each item is its own run of the step (`item` in its input), with the step's retries and
    timeout: a failing item is retried alone. The items' outputs agree on what comes next; the
    first is handed on. On AWS this is a Map state (ItemsPath = `items`); in process, threads.
    """

    items: str
    max_concurrency: int


@dataclass(frozen=True)
class StepSpec:
    """One named step: what runs, its human label, how it retries, whether failure may be ignored."""

    name: str
    label: str
    run: Callable[[StepInput, Any], StepOutput]
    retries: tuple[RetryPolicy, ...] = ()
    best_effort: bool = False
    timeout_seconds: int = 300
    fan_out: FanOut | None = None

    def retry_for(self, exc: BaseException) -> RetryPolicy | None:
        """The rule that covers `exc` (matched by class name along its MRO), if any."""
        return next((r for r in self.retries if r.covers(exc)), None)


@dataclass(frozen=True)
class ToolLoop:
    """The edges head → body (and head → each of `also`), taken at most `cap` times per turn."""

    head: str
    body: str
    cap: int
    also: tuple[str, ...] = ()

    @property
    def bodies(self) -> tuple[str, ...]:
        return (self.body, *self.also)


@dataclass(frozen=True)
class Flow:
    """The step table, what each step may be followed by (usual successor first), the first step.

    Validated on construction: unique names, every step in the flow, no unknown targets, a loop
    edge that exists. The in-process runner refuses a step asking for anything else.
    """

    steps: tuple[StepSpec, ...]
    transitions: Mapping[str, tuple[str, ...]]
    first: str
    loop: ToolLoop | None = None

    def __post_init__(self) -> None:
        names = [s.name for s in self.steps]
        if len(set(names)) != len(names):
            raise ValueError(f"step names must be unique: {names}")
        if set(self.transitions) != set(names) or self.first not in names:
            raise ValueError(f"the flow must name every step once and start at one: {dict(self.transitions)}")
        for name, targets in self.transitions.items():
            unknown = set(targets) - {*names, END}
            if not targets or unknown:
                raise ValueError(f"step {name} leads to unknown steps {sorted(unknown)}")
        if self.loop:
            for body in self.loop.bodies:
                if body not in self.transitions.get(self.loop.head, ()):
                    raise ValueError(f"the loop edge {self.loop.head} → {body} is not in the flow")
            if self.loop.cap < 1:
                raise ValueError("the loop cap must be at least 1")

    def spec(self, name: str) -> StepSpec:
        return next(s for s in self.steps if s.name == name)

    @property
    def table(self) -> dict[str, StepSpec]:
        """The steps by name."""
        return {s.name: s for s in self.steps}

    def successor(self, name: str) -> str:
        """The usual successor of a step (where a skipped best-effort step goes)."""
        return self.transitions[name][0]

    def allows(self, name: str, target: str) -> bool:
        return target in (*self.transitions[name], END)
