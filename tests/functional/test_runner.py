"""The sub-agent runner: a tool loop that must end in a validated report (through the fake server)."""

from __future__ import annotations

import pytest
from pydantic import BaseModel

from core.agent.runner import ReportSpec, run_subagent
from core.clock import FixedClock
from core.errors import NotFound
from core.llm.registry import BoundModel, ModelRegistry, ProviderConfig
from core.llm.tools import Tool
from core.llm.types import Finish, ReasoningDelta, StreamEvent, TextDelta
from tests.fakes.evolution import tool_results
from tests.fakes.fake_model_server import FakeModelServer, Reply, ToolCall

pytestmark = pytest.mark.functional


class Findings(BaseModel):
    """What the scan found."""

    slice_ids: list[str]
    confidence: float = 0.0


REPORT = ReportSpec("report_findings", Findings)


def read_strand(strand: str) -> str:
    """The slices a strand appears in."""
    if strand != "health":
        raise NotFound(f'No strand "{strand}".')
    return "health: 2026-08-01-0900, 2026-08-03-1400"


TOOLS = [Tool.from_function(read_strand)]


@pytest.fixture(params=["openai", "anthropic"])
def model(request: pytest.FixtureRequest, fake_models: FakeModelServer, clock: FixedClock) -> BoundModel:
    if request.param == "openai":
        config = ProviderConfig(openai_base_url=fake_models.openai_base_url)
    else:
        config = ProviderConfig(anthropic_api_key="k", anthropic_base_url=fake_models.anthropic_base_url)
    return ModelRegistry(config, clock=clock, sleep=lambda _: None).resolve().worker


def test_tool_rounds_then_a_forced_report(fake_models: FakeModelServer, model: BoundModel) -> None:
    fake_models.enqueue(
        Reply(
            reasoning="Look up health.", tool_calls=[ToolCall("read_strand", {"strand": "health"}, id="a1")]
        ),
        Reply(
            tool_calls=[
                ToolCall("read_strand", {"strand": "sleep"}, id="a2"),
                ToolCall("open_file", {}, id="a3"),
            ]
        ),
        Reply(
            tool_calls=[ToolCall("report_findings", {"slice_ids": ["2026-08-01-0900"], "confidence": "0.8"})]
        ),
    )
    events: list[StreamEvent] = []
    result = run_subagent(
        model, system="You scan.", prompt="Find health talks.", report=REPORT, tools=TOOLS, max_steps=3,
        on_event=events.append,
    )  # fmt: skip
    assert result.ok and result.report == Findings(slice_ids=["2026-08-01-0900"], confidence=0.8)
    assert result.steps == 3 and result.usage.input_tokens == 36
    assert any(isinstance(e, ReasoningDelta) for e in events)

    sent = fake_models.model_requests()
    choices = [r.forced_tool for r in sent]
    assert choices == [None, None, "report_findings"], "only the last step is forced"
    results = tool_results(sent[2].body)
    assert results[0] == "health: 2026-08-01-0900, 2026-08-03-1400"
    assert results[1] == 'ERROR: No strand "sleep".'
    assert results[2].startswith("ERROR: there is no tool 'open_file'")


def test_invalid_report_is_sent_back_for_a_retry(fake_models: FakeModelServer, model: BoundModel) -> None:
    fake_models.enqueue(
        Reply(tool_calls=[ToolCall("report_findings", {"confidence": 0.5}, id="r1")]),
        Reply(text='{"slice_ids": []}'),
    )
    result = run_subagent(model, system="S", prompt="P", report=REPORT, max_steps=2, force_report_from=1)
    assert result.ok and result.report == Findings(slice_ids=[])
    (rejection,) = tool_results(fake_models.model_requests()[1].body)
    assert "slice_ids: Field required" in rejection


def test_no_report_is_an_error_not_an_exception(fake_models: FakeModelServer, model: BoundModel) -> None:
    fake_models.enqueue(Reply(text="I could not find anything, sorry."))
    result = run_subagent(model, system="S", prompt="P", report=REPORT)
    assert not result.ok and result.report is None
    assert result.text == "I could not find anything, sorry."
    assert result.error == "the model finished without a report"


def test_plain_text_step_gets_a_nudge(fake_models: FakeModelServer, model: BoundModel) -> None:
    fake_models.enqueue(
        Reply(text="Let me think."), Reply(tool_calls=[ToolCall("report_findings", {"slice_ids": []})])
    )
    result = run_subagent(model, system="S", prompt="P", report=REPORT, tools=TOOLS, max_steps=2)
    assert result.ok
    assert "Now call report_findings" in fake_models.model_requests()[1].last_user_text


def test_permanent_and_timeout_failures(fake_models: FakeModelServer, model: BoundModel) -> None:
    fake_models.enqueue(Reply.error(401, "bad key"))
    denied = run_subagent(model, system="S", prompt="P", report=REPORT)
    assert not denied.ok and not denied.timed_out and "bad key" in (denied.error or "")
    fake_models.enqueue(Reply.stall(10))
    slow = run_subagent(model, system="S", prompt="P", report=REPORT, budget_seconds=0.3)
    assert not slow.ok and slow.timed_out


def test_budget_spent_before_a_step(fake_models: FakeModelServer, model: BoundModel) -> None:
    now = [0.0]

    def slow_step(event: StreamEvent) -> None:
        if isinstance(event, Finish):
            now[0] += 100.0  # the first round took longer than the whole budget

    fake_models.enqueue(Reply(tool_calls=[ToolCall("read_strand", {"strand": "health"})]))
    result = run_subagent(
        model, system="S", prompt="P", report=REPORT, tools=TOOLS, max_steps=3, budget_seconds=30,
        on_event=slow_step, monotonic=lambda: now[0],
    )  # fmt: skip
    assert result.timed_out and result.steps == 1 and result.error == "timed out after 30 s"


def test_events_reach_the_callback_in_order(fake_models: FakeModelServer, model: BoundModel) -> None:
    fake_models.enqueue(Reply(text='{"slice_ids": ["x"]}', chunk_size=4))
    texts: list[str] = []
    run_subagent(
        model, system="S", prompt="P", report=REPORT,
        on_event=lambda e: texts.append(e.text) if isinstance(e, TextDelta) else None,
    )  # fmt: skip
    assert "".join(texts) == '{"slice_ids": ["x"]}' and len(texts) > 1


def test_calls_sent_with_the_report_still_run(fake_models: FakeModelServer, model: BoundModel) -> None:
    seen: list[str] = []

    def note(text: str) -> str:
        """Write something down."""
        seen.append(text)
        return "noted"

    fake_models.enqueue(
        Reply(
            tool_calls=[ToolCall("note", {"text": "keep me"}), ToolCall("report_findings", {"slice_ids": []})]
        )
    )
    result = run_subagent(
        model, system="S", prompt="P", report=REPORT, tools=[Tool.from_function(note)], max_steps=3
    )
    assert result.ok and result.steps == 1
    assert seen == ["keep me"], "an edit made in the reporting message is not lost"


def test_a_worker_that_talks_is_forced_to_report_on_the_next_step(
    fake_models: FakeModelServer, model: BoundModel
) -> None:
    fake_models.enqueue(
        Reply(text="Here is what I found: nothing much."),
        Reply(tool_calls=[ToolCall("report_findings", {"slice_ids": ["2026-08-01-0900"]})]),
    )
    result = run_subagent(model, system="S", prompt="P", report=REPORT, tools=TOOLS, max_steps=8)
    assert result.ok and result.steps == 2, "one extra call, not the whole step budget"
    first, second = fake_models.model_requests()
    assert first.forced_tool is None and second.forced_tool == "report_findings"
