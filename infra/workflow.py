"""Generate the turn's Step Functions definition from a step table and its flow.

The flow is the one the in-process runner follows (`core.turn.table.Flow`, validated there):
each step's output names the next step in `next`, and the flow lists what each step may ask
for, its usual successor first ("end" ends the turn). The definition has one Task per step;
after a step with several possible successors, a Choice on `$.next` routes the turn. Each Task
carries the step's declared retries (expanded to the subclasses of the named errors: Step
Functions matches error names exactly, the runner along the class hierarchy). A best-effort
step's failure is caught and the turn goes on to its usual successor; any other failure is
caught, recorded by the failure task (a `turn.error` event) and ends the execution as Failed.
The tool loop's edge (head → body) is also counted by the state machine itself and taken at
most `cap` times, a guard that holds whatever a step says. A fan-out step (the tools of a round)
is a Map state over the list its `FanOut` names, at most `max_concurrency` iterations at once:
each iteration is the step's Task (its own retries and timeout) with `item` in its payload; the
Map hands on the first iteration's output (they agree), and a failure no retry cures is caught
on the Map like any step's.

The definition stays in JSONPath (CDK's default) because moto's interpreter runs it in tests.
Payloads are small: every Task gets `{"step", "state", "retry"}` and returns the next state.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from aws_cdk import Duration
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_stepfunctions as sfn
from aws_cdk import aws_stepfunctions_tasks as tasks
from constructs import Construct

from core.errors import expand_errors
from core.retry import RetryPolicy
from core.turn.table import END, Flow, StepSpec, ToolLoop
from functions.aws.steps import FAILURE_STEP


def step_task(scope: Construct, spec: StepSpec, fn: lambda_.IFunction) -> tasks.LambdaInvoke | sfn.Map:
    """The state for one step: a Task (its payload, retries, timeout), or a Map of such Tasks."""
    if spec.fan_out is None:
        return _invoke(scope, spec, fn, {"state": sfn.JsonPath.entire_payload})
    each = _invoke(
        scope,
        spec,
        fn,
        {"state": sfn.JsonPath.object_at("$.state"), "item": sfn.JsonPath.string_at("$.item")},
        state_name=f"{spec.name}-each",
    )
    fan_out = sfn.Map(
        scope,
        f"Map-{spec.name}",
        state_name=spec.name,
        comment=f"{spec.label}: one iteration per item of $.{spec.fan_out.items}",
        items_path=f"$.{spec.fan_out.items}",
        max_concurrency=spec.fan_out.max_concurrency,
        item_selector={
            "state": sfn.JsonPath.entire_payload,
            "item": sfn.JsonPath.string_at("$$.Map.Item.Value"),
        },
        output_path="$[0]",
    )
    fan_out.item_processor(each)
    return fan_out


def _invoke(
    scope: Construct,
    spec: StepSpec,
    fn: lambda_.IFunction,
    given: dict[str, object],
    state_name: str | None = None,
) -> tasks.LambdaInvoke:
    name = state_name or spec.name
    task = tasks.LambdaInvoke(
        scope,
        f"Task-{name}",
        state_name=name,
        comment=spec.label,
        lambda_function=fn,
        payload=sfn.TaskInput.from_object(
            {
                "step": spec.name,
                **given,
                "retry": sfn.JsonPath.number_at("$$.State.RetryCount"),
                # For the logs: every line of the attempt names its execution (functions/logs.py).
                "execution": sfn.JsonPath.string_at("$$.Execution.Id"),
            }
        ),
        payload_response_only=True,
        task_timeout=sfn.Timeout.duration(Duration.seconds(spec.timeout_seconds + 30)),
    )
    for rule in spec.retries:
        _add_retry(task, rule)
    return task


def _add_retry(task: tasks.LambdaInvoke, rule: RetryPolicy) -> None:
    # RetryPolicy.max_attempts counts the first try; Step Functions' MaxAttempts counts retries only.
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
    """The whole turn: start → steps routed by `next` → succeed; failures → record → fail."""
    fail_entry = _failure_path(scope, on_failure)
    step_tasks = {spec.name: step_task(scope, spec, functions[spec.name]) for spec in flow.steps}
    done = sfn.Succeed(scope, "TurnDone")

    def state_for(name: str) -> sfn.IChainable:
        return done if name == END else step_tasks[name]

    for spec in flow.steps:
        task = step_tasks[spec.name]
        targets = flow.transitions[spec.name]
        if spec.best_effort:
            # Skipped: the turn goes on to the usual successor, as the in-process runner does.
            skipped = _goto(scope, f"{spec.name}-skipped", targets[0], state_for)
            task.add_catch(skipped, errors=["States.ALL"], result_path=f"$.skipped_{spec.name}")
        else:
            task.add_catch(fail_entry, errors=["States.ALL"], result_path="$.error")
        if len(targets) == 1:
            task.next(state_for(targets[0]))
        else:
            task.next(_route(scope, spec.name, targets, flow.loop, state_for))
    start = sfn.Pass(
        scope,
        "Start",
        result=sfn.Result.from_object({"rounds": 0, "cap": flow.loop.cap if flow.loop else 0}),
        result_path="$.loop",
    )
    # Like the in-process runner, the state names its first step.
    begin = sfn.Pass(scope, "Begin", result=sfn.Result.from_string(flow.first), result_path="$.next")
    start.next(begin).next(step_tasks[flow.first])
    return start


def _failure_path(scope: Construct, on_failure: lambda_.IFunction | None) -> sfn.IChainable:
    """Record the failure as a `turn.error` event (best effort), then fail the execution."""
    failed = sfn.Fail(scope, "TurnFailed", error_path="$.error.Error", cause_path="$.error.Cause")
    if on_failure is None:
        return failed
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
    return record.next(failed)


def _goto(
    scope: Construct, id: str, target: str, state_for: Callable[[str], sfn.IChainable]
) -> sfn.IChainable:
    """Go to `target` with `$.next` set to it (a step not named by `next` passes the state through)."""
    if target == END:
        return state_for(END)
    redirect = sfn.Pass(scope, id, result=sfn.Result.from_string(target), result_path="$.next")
    return redirect.next(state_for(target))


def _route(
    scope: Construct,
    name: str,
    targets: tuple[str, ...],
    loop: ToolLoop | None,
    state_for: Callable[[str], sfn.IChainable],
) -> sfn.Choice:
    """A Choice on `$.next` among the step's successors; the loop edge is counted and capped."""
    choice = sfn.Choice(scope, f"{name}-next")
    for target in targets:
        asks = sfn.Condition.and_(
            sfn.Condition.is_present("$.next"), sfn.Condition.string_equals("$.next", target)
        )
        if loop and name == loop.head and target in loop.bodies:
            under_cap = sfn.Condition.number_less_than_json_path("$.loop.rounds", "$.loop.cap")
            count = sfn.Pass(
                scope,
                "CountRound" if target == loop.body else f"CountRound-{target}",
                parameters={"rounds.$": "States.MathAdd($.loop.rounds, 1)", "cap.$": "$.loop.cap"},
                result_path="$.loop",
            )
            choice.when(sfn.Condition.and_(asks, under_cap), count.next(state_for(target)))
            # At the cap the state machine refuses another round, whatever the step asked for.
            capped = f"{name}-cap-reached" if target == loop.body else f"{name}-cap-reached-{target}"
            choice.when(asks, _goto(scope, capped, targets[0], state_for))
        else:
            choice.when(asks, state_for(target))
    choice.otherwise(
        sfn.Fail(
            scope, f"{name}-unexpected-next", error="FlowError", cause=f"{name} asked for an unknown step"
        )
    )
    return choice
