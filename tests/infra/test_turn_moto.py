"""A real turn on the synthesized state machine: moto runs it, each task calls the real Lambda entry.

The step functions' handler (functions.handlers.steps) builds its dependencies from the
environment exactly as on AWS — settings, the S3 run store, the WebSocket push client — with a
local memory folder and the fake model server standing in for GitHub and the provider. The turn
is started and read through the Step Functions turn service, as the API and WebSocket do.
"""

from __future__ import annotations

import dataclasses
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import boto3
import pytest

from core.memory.paths import STRANDS_DIR, core_md
from core.memory.slice.model import parse_core_md
from core.storage.local import LocalStorage
from core.turn.service import TurnInput, TurnState
from core.turn.steps import STEP_TABLE
from functions.aws.turns import StepFunctionsTurns
from functions.compose import aws as compose
from functions.handlers import steps as steps_handler
from infra.turn_workflow import function_id
from tests.fakes.brain import Brain
from tests.fakes.fake_model_server import FakeModelServer, Reply, ToolCall
from tests.infra.conftest import FULL, Synth
from tests.infra.sfn_harness import REGION, moto_state_machine, pushed_messages

pytestmark = [pytest.mark.infra, pytest.mark.xdist_group("cdk")]
CALLBACK = "https://abc123.execute-api.us-east-1.amazonaws.com/live"
CONNECTION = "Q29ubmVjdGlvbg="


@dataclass
class AwsTurn:
    turns: StepFunctionsTurns
    brain: Brain
    memory: Path
    handlers: dict[str, Callable[[dict[str, Any]], Any]]

    def run(self, message: str, timeout: float = 120) -> TurnState:
        turn_id = self.turns.start(TurnInput(message, timezone="Europe/Berlin", connection_id=CONNECTION))
        deadline = time.monotonic() + timeout
        # The turn is over for the client at turn.done; the execution still runs `after`: wait for both.
        while self.turns.state(turn_id).status == "running" or self.execution(turn_id) == "RUNNING":
            assert time.monotonic() < deadline, "the turn did not finish"
            time.sleep(0.05)
        return self.turns.state(turn_id)

    def execution(self, turn_id: str) -> str:
        arn = self.turns.state_machine_arn.replace(":stateMachine:", ":execution:") + ":" + turn_id
        return str(self.turns.client.describe_execution(executionArn=arn)["status"])

    def pushed(self) -> list[dict[str, Any]]:
        return pushed_messages(CONNECTION)

    def crash(self, step: str, seen: list[str] | None = None) -> None:
        """Make that step's Lambda fail as one out of memory does; each call's step goes to `seen`."""

        def crash(event: dict[str, Any]) -> Any:
            if seen is not None:
                seen.append(event["step"])
            raise RuntimeError(f"the {step} Lambda ran out of memory")

        self.handlers[f"Workflow{function_id(step)}"] = crash


@pytest.fixture
def aws_turn(
    synth: Synth, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, fake_models: FakeModelServer
) -> Iterator[AwsTurn]:
    memory = tmp_path / "memory-root"
    env = {
        "AWS_DEFAULT_REGION": REGION,
        "RUN_BUCKET": "runs",
        "WS_CALLBACK_URL": CALLBACK,
        "STORAGE": "local",
        "PREVIOUSLY_MEMORY": str(memory),
        "OPENAI_BASE_URL": fake_models.openai_base_url,
        "OPENAI_API_KEY": "test-key",
    }
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    for name in ("PREVIOUSLY_SECRET_ARN", "ANTHROPIC_API_KEY", "DEEPSEEK_API_KEY", "GITHUB_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    handlers = {f"Workflow{function_id(name)}": _task for name in [*STEP_TABLE, "record_failure"]}
    compose.reset()
    try:
        with moto_state_machine(synth.templates[FULL], handlers, monkeypatch, "Workflow") as machine:
            boto3.client("s3", region_name=REGION).create_bucket(Bucket="runs")
            monkeypatch.setenv("STATE_MACHINE_ARN", machine.arn)
            yield AwsTurn(compose.turns(), Brain.install(fake_models), memory, handlers)
    finally:
        compose.reset()


def _task(event: dict[str, Any]) -> Any:
    return steps_handler.handler(event, None)


def _types(state: TurnState) -> list[str]:
    return [f"{e['type']}@{e['step']}" for e in state.events]


def test_a_turn_with_a_tool_round_runs_on_the_state_machine(aws_turn: AwsTurn) -> None:
    aws_turn.brain.main(
        Reply(tool_calls=[ToolCall("currentTime", {})]),
        Reply(text="Nothing about gardens yet — tell me about yours!", reasoning="Checked memory."),
    )
    state = aws_turn.run("Do you remember my garden?")
    assert state.status == "done", _types(state)
    assert state.reply == "Nothing about gardens yet — tell me about yours!"
    assert [e["seq"] for e in state.events] == list(range(1, len(state.events) + 1))
    steps = [e["step"] for e in state.events if e["type"] == "step.started"]
    assert steps == ["save", "analyze", "respond", "tools", "respond", "finalize", "after"]
    assert "turn.done@finalize" in _types(state)
    # What the browser was pushed is what the run store holds.
    assert aws_turn.pushed() == state.events
    text = LocalStorage(aws_turn.memory).snapshot().read(core_md(str(state.slice_id)))
    assert text is not None
    assert [t.role for t in parse_core_md(text).turns] == ["user", "agent"]


def test_a_transient_model_failure_mid_stream_retries_the_step(aws_turn: AwsTurn) -> None:
    aws_turn.brain.main(
        Reply(text="Hello there, half a", status=500, error_after=2),
        Reply(text="Hello there, whole answer."),
    )
    state = aws_turn.run("Hi!")
    assert state.status == "done", _types(state)
    attempts = [e["attempt"] for e in state.events if e["type"] == "step.started" and e["step"] == "respond"]
    assert attempts == [1, 2]
    assert state.reply == "Hello there, whole answer."
    assert [e["seq"] for e in state.events] == list(range(1, len(state.events) + 1))
    text = LocalStorage(aws_turn.memory).snapshot().read(core_md(str(state.slice_id))) or ""
    assert [t.content for t in parse_core_md(text).turns if t.role == "agent"] == [
        "Hello there, whole answer."
    ]


def test_a_model_that_stays_down_ends_the_turn_with_an_error_event(aws_turn: AwsTurn) -> None:
    aws_turn.brain.main(*[Reply(text="Hello there, half a", status=500, error_after=2) for _ in range(3)])
    state = aws_turn.run("Hi!")
    assert state.status == "error", _types(state)
    last = state.events[-1]
    assert (last["type"], last["step"], last["code"]) == ("turn.error", "respond", "model_unavailable")
    assert "Your message is saved" in last["message"]
    attempts = [e["attempt"] for e in state.events if e["type"] == "step.started" and e["step"] == "respond"]
    assert attempts == [1, 2, 3]
    assert aws_turn.pushed()[-1] == last


def test_a_browser_that_went_away_never_fails_a_step(
    aws_turn: AwsTurn, monkeypatch: pytest.MonkeyPatch
) -> None:
    from moto.apigatewaymanagementapi.models import ApiGatewayManagementApiBackend
    from moto.core.exceptions import JsonRESTError

    class Gone(JsonRESTError):
        code = 410

    attempts: list[str] = []

    def gone(self: Any, data: bytes, connection_id: str) -> None:
        attempts.append(connection_id)
        raise Gone("GoneException", "The connection is gone.")

    monkeypatch.setattr(ApiGatewayManagementApiBackend, "post_to_connection", gone)
    aws_turn.brain.main(Reply(text="Still here, and saved."))
    state = aws_turn.run("Hello? (closing the tab now)")
    assert state.status == "done", _types(state)
    assert state.reply == "Still here, and saved."
    # Each step's Lambda learns once that the client is gone, then stops pushing.
    steps = [e for e in state.events if e["type"] == "step.started"]
    assert 0 < len(attempts) <= len(steps) < len(state.events)
    text = LocalStorage(aws_turn.memory).snapshot().read(core_md(str(state.slice_id))) or ""
    assert [t.content for t in parse_core_md(text).turns] == [
        "Hello? (closing the tab now)",
        "Still here, and saved.",
    ]


def test_a_crashing_after_step_is_caught_and_the_turn_stays_done(aws_turn: AwsTurn) -> None:
    aws_turn.crash("after")
    aws_turn.brain.main(Reply(text="Noted."))
    state = aws_turn.run("Remember that I like figs.")
    assert state.status == "done", _types(state)
    assert state.reply == "Noted."
    assert not [e for e in state.events if e["type"] == "turn.error"]
    execution = aws_turn.execution(state.turn_id)
    assert execution == "SUCCEEDED"


def test_stop_pressed_while_saving_ends_the_turn_interrupted(aws_turn: AwsTurn) -> None:
    def prepare_then_stop(event: dict[str, Any]) -> Any:
        out = _task(event)
        aws_turn.turns.cancel(event["state"]["turn_id"])  # the stop button, through the S3 flag
        return out

    aws_turn.handlers[f"Workflow{function_id('save')}"] = prepare_then_stop
    aws_turn.brain.main(Reply(text="This should never be asked for."))
    state = aws_turn.run("Tell me a long story.")
    assert state.status == "interrupted", _types(state)
    assert aws_turn.brain.requests.get("main", []) == []
    text = LocalStorage(aws_turn.memory).snapshot().read(core_md(str(state.slice_id))) or ""
    assert [t.content for t in parse_core_md(text).turns if t.role == "user"] == ["Tell me a long story."]


def test_a_failing_recall_is_retried_alone(aws_turn: AwsTurn) -> None:
    from core.errors import ModelTransientError

    invocations: list[int] = []

    def flaky_recall(event: dict[str, Any]) -> Any:
        invocations.append(int(event.get("retry") or 0))
        if len(invocations) == 1:
            raise ModelTransientError("the worker is overloaded")
        return _task(event)

    aws_turn.handlers[f"Workflow{function_id('recall')}"] = flaky_recall
    aws_turn.brain.main(
        Reply(tool_calls=[ToolCall("recall", {"query": "figs"}, id="r1")]), Reply(text="No figs yet.")
    )
    state = aws_turn.run("What do I like to eat?")
    assert state.status == "done", _types(state)
    assert state.reply == "No figs yet."
    assert invocations == [0, 1], "the recall state's own Retry ran it again"
    steps = [e["step"] for e in state.events if e["type"] == "step.started"]
    assert steps.count("respond") == 2, "respond is not run again for a failing recall"
    assert [e["call_id"] for e in state.events if e["type"] == "recall.hits"] == ["r1"]


def _old_slice(root: Path, began: datetime | None = None) -> tuple[str, Path]:
    """An active slice begun two hours ago under `root` (the next turn closes it): id, core.md."""
    from core.clock import SystemClock, iso
    from core.memory.slice.model import Turn, new_slice, render_core_md
    from core.memory.slice.slicer import minute_id

    began = began or SystemClock().now() - timedelta(hours=2)
    old = new_slice(minute_id(began), iso(began), "UTC", Turn("o1", iso(began), "user", "Earlier today."))
    path = root / str(core_md(old.slice_id))
    path.parent.mkdir(parents=True)
    path.write_text(render_core_md(old), encoding="utf-8")
    return old.slice_id, path


def _local_turn(aws_turn: AwsTurn, root: Path, runs_dir: Path, message: str) -> TurnState:
    """The same turn through the in-process runner, over a memory folder of its own."""
    from core.clock import RandomIds, SystemClock
    from core.turn.local_service import LocalTurnService
    from core.turn.runstore_fs import FolderRunStore
    from core.turn.sink import RunStoreSinks

    runs = FolderRunStore(runs_dir)
    deps = dataclasses.replace(
        compose.turn_deps(compose.secret_key()),
        storage=LocalStorage(root),
        run_store=runs,
        ids=RandomIds(),
        clock=SystemClock(),
        sink_for=RunStoreSinks(runs),
    )
    return LocalTurnService(deps).run(TurnInput(message, timezone="Europe/Berlin"), timeout=60)


def _slice_files(root: Path, slice_id: str) -> dict[str, str]:
    folder = (root / str(core_md(slice_id))).parent
    return {str(p.relative_to(folder)): p.read_text(encoding="utf-8") for p in sorted(folder.rglob("*"))}


def test_a_failing_strands_pass_is_retried_alone_and_closes_as_in_process(
    aws_turn: AwsTurn, tmp_path: Path
) -> None:
    from core.errors import TransientError

    began = datetime.now(UTC).replace(second=0, microsecond=0) - timedelta(hours=2)
    old_id, _ = _old_slice(aws_turn.memory, began)
    invoked: dict[str, int] = {}

    def counting(name: str) -> Callable[[dict[str, Any]], Any]:
        def run(event: dict[str, Any]) -> Any:
            invoked[name] = invoked.get(name, 0) + 1
            if name == "strands" and invoked[name] == 1:
                raise TransientError("GitHub answered 502")
            return _task(event)

        return run

    for name in ("close", "strands", "catalog", "index"):
        aws_turn.handlers[f"Workflow{function_id(name)}"] = counting(name)
    aws_turn.brain.main(Reply(text="Welcome back."))
    machine = aws_turn.run("Back again.")
    assert machine.status == "done", _types(machine)
    assert invoked == {"close": 1, "strands": 2, "catalog": 1, "index": 1}, "only strands ran again"
    steps = [(e["step"], e["attempt"]) for e in machine.events if e["type"] == "step.started"]
    # The first strands attempt died before saying anything; its retry is attempt 2.
    # The close passes run after the reply: finalize (turn.done), then close … evolve, then after.
    names = [s for s, _ in steps]
    passes = ["close", "strands", "catalog", "index", "evolve"]
    assert [n for n in names if n in passes] == passes
    assert names.index("finalize") < names.index("close") and names[-1] == "after"
    assert ("strands", 2) in steps

    local_root = tmp_path / "local-memory"
    _old_slice(local_root, began)
    aws_turn.brain.main(Reply(text="Welcome back."))
    local = _local_turn(aws_turn, local_root, tmp_path / "local-runs", "Back again.")
    assert local.status == "done"
    assert _slice_files(local_root, old_id) == _slice_files(aws_turn.memory, old_id)
    # The strands alike (the catalog's pending entries also hold the new slice's times).
    assert _strand_files(local_root) == _strand_files(aws_turn.memory)


def _strand_files(root: Path) -> dict[str, str]:
    return {p.name: p.read_text(encoding="utf-8") for p in sorted((root / STRANDS_DIR.value).glob("*.json"))}


def test_a_failing_close_pass_is_caught_while_the_turn_still_answers(aws_turn: AwsTurn) -> None:
    old_id, path = _old_slice(aws_turn.memory)
    aws_turn.crash("close")
    aws_turn.brain.main(Reply(text="Welcome back."))
    state = aws_turn.run("Back again.")
    assert state.status == "done", _types(state)
    assert state.reply == "Welcome back."
    started = next(e for e in state.events if e["type"] == "turn.started")
    assert started["slice_closed"] == old_id and state.slice_id != old_id
    closed = parse_core_md(path.read_text(encoding="utf-8"))
    assert (closed.status, closed.marked_by) == ("closed", "fallback"), "save's deterministic close holds"


def test_a_close_pass_that_keeps_failing_is_caught_and_the_later_passes_run(aws_turn: AwsTurn) -> None:
    _old_slice(aws_turn.memory)
    invoked: list[str] = []
    aws_turn.crash("catalog", invoked)
    aws_turn.brain.main(Reply(text="Welcome back."))
    state = aws_turn.run("Back again.")
    assert state.status == "done", _types(state)
    assert state.reply == "Welcome back." and invoked == ["catalog"]
    steps = [e["step"] for e in state.events if e["type"] == "step.started"]
    assert "index" in steps and "evolve" in steps, "the passes after the caught one still run"
    assert aws_turn.execution(state.turn_id) == "SUCCEEDED"


def _answered(aws_turn: AwsTurn, request: int = 1) -> list[str]:
    messages = aws_turn.brain.requests["main"][request].body["messages"]
    return [str(m.get("tool_call_id")) for m in messages if m.get("role") == "tool"]


def _gap_free(state: TurnState) -> bool:
    return [e["seq"] for e in state.events] == list(range(1, len(state.events) + 1))


def test_tool_calls_of_a_round_run_in_parallel_as_map_iterations(aws_turn: AwsTurn) -> None:
    both_in = threading.Barrier(2, timeout=30)
    items: list[int] = []

    def meet_then_run(event: dict[str, Any]) -> Any:
        items.append(int(event["item"]))
        both_in.wait()  # passes only while both iterations are inside their own Lambda at once
        return _task(event)

    aws_turn.handlers[f"Workflow{function_id('tools')}"] = meet_then_run
    calls = [ToolCall("currentTime", {}, id="a"), ToolCall("currentTime", {}, id="b")]
    aws_turn.brain.main(Reply(tool_calls=calls), Reply(text="It is now."))
    state = aws_turn.run("What time is it, twice?")
    assert state.status == "done", _types(state)
    assert sorted(items) == [0, 1], "one Lambda invocation per call"
    assert _gap_free(state), "parallel iterations share one gap-free sequence"
    for call_id in ("a", "b"):
        assert [e["state"] for e in state.events if e.get("call_id") == call_id] == ["running", "completed"]
    assert _answered(aws_turn) == ["a", "b"], "results reach respond in call order"
    # Each iteration pushes its own events, so the two calls' pushes may interleave out of seq
    # order; the page takes a skipped seq when it arrives late (web/app/lib/seq.js).
    assert sorted(aws_turn.pushed(), key=lambda e: e["seq"]) == state.events


def test_a_failing_tool_call_is_retried_alone(aws_turn: AwsTurn) -> None:
    from core.errors import TransientError

    seen: list[tuple[int, int]] = []  # (item, retry)

    def flaky_second_call(event: dict[str, Any]) -> Any:
        seen.append((int(event["item"]), int(event.get("retry") or 0)))
        if (int(event["item"]), int(event.get("retry") or 0)) == (1, 0):
            raise TransientError("GitHub answered 502 while committing the tool's write")
        return _task(event)

    aws_turn.handlers[f"Workflow{function_id('tools')}"] = flaky_second_call
    calls = [ToolCall("currentTime", {}, id=f"c{i}") for i in range(3)]
    aws_turn.brain.main(Reply(tool_calls=calls), Reply(text="Three times now."))
    state = aws_turn.run("What time is it, three times?")
    assert state.status == "done", _types(state)
    assert sorted(seen) == [(0, 0), (1, 0), (1, 1), (2, 0)], "only the failing call ran again"
    steps = [e["step"] for e in state.events if e["type"] == "step.started"]
    assert steps.count("respond") == 2, "respond is not run again for a failing tool call"
    assert _answered(aws_turn) == ["c0", "c1", "c2"]
    assert _gap_free(state)


def test_the_in_process_runner_writes_the_same_files_and_events(aws_turn: AwsTurn, tmp_path: Path) -> None:
    from core.clock import RandomIds, SystemClock
    from core.turn.local_service import LocalTurnService
    from core.turn.runstore_fs import FolderRunStore
    from core.turn.sink import RunStoreSinks

    script = [Reply(tool_calls=[ToolCall("currentTime", {}, id="c1")]), Reply(text="Noon, more or less.")]
    aws_turn.brain.main(*script)
    machine = aws_turn.run("What time is it?")
    local_root = tmp_path / "local-memory"
    runs = FolderRunStore(tmp_path / "local-runs")
    deps = dataclasses.replace(
        compose.turn_deps(compose.secret_key()),
        storage=LocalStorage(local_root),
        run_store=runs,
        ids=RandomIds(),
        clock=SystemClock(),
        sink_for=RunStoreSinks(runs),
    )
    aws_turn.brain.main(*script)
    local = LocalTurnService(deps).run(TurnInput("What time is it?", timezone="Europe/Berlin"), timeout=60)

    def shape(state: TurnState) -> list[tuple[str, str]]:
        streamed = ("text.delta", "reasoning.delta")  # batched by timing: their count may differ
        return [(e["type"], e["step"]) for e in state.events if e["type"] not in streamed]

    assert shape(local) == shape(machine) and local.reply == machine.reply

    def files(root: Path, state: TurnState) -> tuple[list[str], list[tuple[str, str]]]:
        where = str(state.slice_id).replace("-", "/")
        found = [p for p in sorted((root / "memory").rglob("*")) if p.is_file()]
        paths = sorted(str(p.relative_to(root)).replace(where, "<slice>") for p in found)
        text = (root / str(core_md(str(state.slice_id)))).read_text(encoding="utf-8")
        return paths, [(t.role, t.content) for t in parse_core_md(text).turns]

    assert files(local_root, local) == files(aws_turn.memory, machine)
