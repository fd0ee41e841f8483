"""Generate the turn's Step Functions definition from a step table and its flow.

One Task per step, in table order. Each Task carries the step's declared retries (expanded to
the subclasses of the named errors, because Step Functions matches error names exactly while
the in-process runner matches along the class hierarchy). A best-effort step's failure is
caught and the turn goes on; any other step's failure is caught, recorded by the failure task
(a `turn.error` event), and ends the execution as Failed. The tool loop is a Choice after its
head step: run the body while the head asks for it and fewer than `cap` rounds ran.

The definition stays in JSONPath (CDK's default) because moto's interpreter runs it in tests.
Payloads are small: every Task gets `{"step", "state", "retry"}` and returns the next state.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from aws_cdk import Duration
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_stepfunctions as sfn
from aws_cdk import aws_stepfunctions_tasks as tasks
from constructs import Construct

from core.turn.table import RetryRule, StepSpec
from functions.aws.steps import FAILURE_STEP, domain_errors


@dataclass(frozen=True)
class ToolLoop:
    """After `head`, run `body` and return to `head` while the state's `flag` is true, at most `cap` times."""

    head: str
    body: str
    flag: str
    cap: int


@dataclass(frozen=True)
class Flow:
    """The steps in order, and the loop among them, if any."""

    steps: tuple[StepSpec, ...]
    loop: ToolLoop | None = None

    def __post_init__(self) -> None:
        names = [s.name for s in self.steps]
        if len(set(names)) != len(names):
            raise ValueError(f"step names must be unique: {names}")
        if self.loop:
            if {self.loop.head, self.loop.body} - set(names):
                raise ValueError(f"the loop names unknown steps: {self.loop}")
            if names.index(self.loop.body) != names.index(self.loop.head) + 1:
                raise ValueError("the loop body must directly follow its head in the table")
            if self.loop.cap < 1:
                raise ValueError("the loop cap must be at least 1")


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


def step_task(scope: Construct, spec: StepSpec, fn: lambda_.IFunction) -> tasks.LambdaInvoke:
    """The Task for one step: its payload, its retries, its timeout."""
    task = tasks.LambdaInvoke(
        scope,
        f"Task-{spec.name}",
        state_name=spec.name,
        comment=spec.label,
        lambda_function=fn,
        payload=sfn.TaskInput.from_object(
            {
                "step": spec.name,
                "state": sfn.JsonPath.entire_payload,
                "retry": sfn.JsonPath.number_at("$$.State.RetryCount"),
            }
        ),
        payload_response_only=True,
        task_timeout=sfn.Timeout.duration(Duration.seconds(spec.timeout_seconds + 30)),
    )
    for rule in spec.retries:
        _add_retry(task, rule)
    return task


def _add_retry(task: tasks.LambdaInvoke, rule: RetryRule) -> None:
    # RetryRule.max_attempts counts the first try; Step Functions' MaxAttempts counts retries only.
    if rule.max_attempts > 1:
        task.add_retry(
            errors=expand_errors(rule.errors),
            max_attempts=rule.max_attempts - 1,
            interval=Duration.seconds(max(1, round(rule.interval_seconds))),
            backoff_rate=rule.backoff_rate,
        )


def build_definition(
    scope: Construct,
    flow: Flow,
    functions: Mapping[str, lambda_.IFunction],
    on_failure: lambda_.IFunction | None = None,
) -> sfn.IChainable:
    """The whole turn: start → steps (with the loop) → succeed; failures → record → fail."""
    failed = sfn.Fail(scope, "TurnFailed", error_path="$.error.Error", cause_path="$.error.Cause")
    fail_entry: sfn.IChainable = failed
    if on_failure is not None:
        record = tasks.LambdaInvoke(
            scope,
            "Task-record-failure",
            state_name=FAILURE_STEP,
            lambda_function=on_failure,
            payload=sfn.TaskInput.from_object(
                {"step": FAILURE_STEP, "state": sfn.JsonPath.entire_payload, "retry": 0}
            ),
            payload_response_only=True,
            result_path=sfn.JsonPath.DISCARD,
        )
        record.add_catch(failed, errors=["States.ALL"], result_path="$.record_error")
        fail_entry = record.next(failed)
    step_tasks = {spec.name: step_task(scope, spec, functions[spec.name]) for spec in flow.steps}
    done = sfn.Succeed(scope, "TurnDone")
    start = sfn.Pass(
        scope,
        "Start",
        result=sfn.Result.from_object({"rounds": 0, "cap": flow.loop.cap if flow.loop else 0}),
        result_path="$.loop",
    )
    order = [s for s in flow.steps if not (flow.loop and s.name == flow.loop.body)]
    start.next(step_tasks[order[0].name])
    for i, spec in enumerate(order):
        task = step_tasks[spec.name]
        following: sfn.IChainable = step_tasks[order[i + 1].name] if i + 1 < len(order) else done
        if spec.best_effort:
            task.add_catch(following, errors=["States.ALL"], result_path=f"$.skipped_{spec.name}")
        else:
            task.add_catch(fail_entry, errors=["States.ALL"], result_path="$.error")
        if flow.loop and spec.name == flow.loop.head:
            task.next(_loop_choice(scope, flow.loop, step_tasks, following))
        else:
            task.next(following)
    if flow.loop:
        body = flow.steps[[s.name for s in flow.steps].index(flow.loop.body)]
        step_tasks[body.name].add_catch(fail_entry, errors=["States.ALL"], result_path="$.error")
    return start


def _loop_choice(
    scope: Construct, loop: ToolLoop, step_tasks: Mapping[str, tasks.LambdaInvoke], following: sfn.IChainable
) -> sfn.Choice:
    """Another round when the head asked for one and the cap allows it; otherwise move on."""
    count = sfn.Pass(
        scope,
        "CountRound",
        parameters={"rounds.$": "States.MathAdd($.loop.rounds, 1)", "cap.$": "$.loop.cap"},
        result_path="$.loop",
    )
    flag = f"$.{loop.flag}"
    another = sfn.Condition.and_(
        sfn.Condition.is_present(flag),
        sfn.Condition.boolean_equals(flag, True),
        sfn.Condition.number_less_than_json_path("$.loop.rounds", "$.loop.cap"),
    )
    choice = sfn.Choice(scope, f"{loop.head}-more")
    choice.when(another, count.next(step_tasks[loop.body]).next(step_tasks[loop.head]))
    choice.otherwise(following)
    return choice
