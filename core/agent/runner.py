"""The sub-agent runner: a short tool loop on one model that ends in a validated report.

Used by the turn analyzer (one forced step) and by the bounded sub-agents (recall scan, strand
consolidation, card evolution). It never raises for model trouble: the result says what went
wrong (`ok`, `timed_out`, `error`) so the caller can take its deterministic fallback.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from pydantic import BaseModel, ValidationError

from core.errors import ModelError, ModelTimeout, PreviouslyError, TransientError
from core.llm.registry import BoundModel
from core.llm.tools import Tool, describe_errors, rejection, spec_from_model
from core.llm.types import (
    AssistantMessage,
    Finish,
    Message,
    ModelRequest,
    StreamEvent,
    ToolCall,
    ToolResult,
    Usage,
    UserMessage,
)

R = TypeVar("R", bound=BaseModel)
BACKSTOP_SECONDS = 3.0
_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.DOTALL)


@dataclass(frozen=True)
class ReportSpec(Generic[R]):
    """The tool the sub-agent must finish with, and the model validating its arguments."""

    name: str
    schema: type[R]
    description: str = ""


@dataclass
class RunResult(Generic[R]):
    """How a run ended: the validated report, or why there is none."""

    ok: bool
    report: R | None = None
    text: str = ""
    steps: int = 0
    usage: Usage = field(default_factory=Usage)
    timed_out: bool = False
    error: str | None = None


@dataclass
class _Budget:
    seconds: float
    monotonic: Callable[[], float]
    start: float = 0.0

    def __post_init__(self) -> None:
        self.start = self.monotonic()

    def remaining(self) -> float:
        return self.seconds - (self.monotonic() - self.start)


class _OverBudget(Exception):
    pass


def run_subagent(
    model: BoundModel,
    *,
    system: str,
    prompt: str,
    report: ReportSpec[R],
    tools: Sequence[Tool] = (),
    max_steps: int = 1,
    force_report_from: int | None = None,
    budget_seconds: float = 30.0,
    temperature: float | None = 0.1,
    on_event: Callable[[StreamEvent], None] | None = None,
    monotonic: Callable[[], float] = time.monotonic,
) -> RunResult[R]:
    """Run up to `max_steps` model rounds; the last (or from `force_report_from`) must report.

    A step that answers in prose instead of calling a tool makes the next step a forced report:
    a worker that talks instead of reporting costs one extra call, never the whole step budget.
    """
    budget = _Budget(budget_seconds, monotonic)
    by_name = {t.spec.name: t for t in tools}
    specs = (
        *(t.spec for t in tools),
        spec_from_model(report.schema, report.name, report.description or None),
    )
    messages: list[Message] = [UserMessage(prompt)]
    result: RunResult[R] = RunResult(ok=False)
    talked = False  # the previous step answered in prose: this one must report
    try:
        for step in range(1, max_steps + 1):
            forced = (
                talked or step == max_steps or (force_report_from is not None and step >= force_report_from)
            )
            if budget.remaining() <= 0:
                raise _OverBudget
            request = model.request(
                messages,
                system=system,
                tools=specs,
                tool_choice=report.name if forced else "auto",
                temperature=temperature,
                timeout=max(budget.remaining(), 1.0),
            )
            finish = _consume(model, request, budget, on_event, result)
            result.steps = step
            messages.append(finish.message)
            found = _report_from(finish.message, report, result)
            if found is not None or step == max_steps:
                # Calls sent alongside the report still run: their effects (a card edit) must not
                # vanish just because the model reported in the same breath.
                _answer_calls(_besides(finish.message.tool_calls, report), by_name, report, None)
                return _finish(result, found, finish)
            messages += _answer_calls(finish.message.tool_calls, by_name, report, result.error)
            if not finish.message.tool_calls:
                messages.append(UserMessage(f"Now call {report.name} with your findings."))
                talked = True
    except _OverBudget:
        result.timed_out, result.error = True, f"timed out after {budget_seconds:g} s"
    except TransientError as exc:
        result.timed_out, result.error = isinstance(exc, ModelTimeout), str(exc)
    except PreviouslyError as exc:
        result.error = str(exc)
    return result


def _consume(
    model: BoundModel,
    request: ModelRequest,
    budget: _Budget,
    on_event: Callable[[StreamEvent], None] | None,
    result: RunResult[Any],
) -> Finish:
    finish: Finish | None = None
    for event in model.client.stream(request):
        if budget.remaining() < -BACKSTOP_SECONDS:
            raise _OverBudget  # a reply trickling in forever must not hold the turn hostage
        if on_event is not None:
            on_event(event)
        if isinstance(event, Usage):
            result.usage = result.usage + event
        elif isinstance(event, Finish):
            finish = event
    if finish is None:
        raise ModelError("the model stream ended without finishing")
    return finish


def _report_from(message: AssistantMessage, report: ReportSpec[R], result: RunResult[R]) -> R | None:
    """The validated report in a message: its report tool call, or JSON written as text."""
    result.text = message.text
    for call in message.tool_calls:
        if call.name == report.name and not call.error:
            parsed = _validate(report, call.arguments, result)
            if parsed is not None:
                return parsed
    candidate = json_object_in(message.text)
    return _validate(report, candidate, result) if candidate is not None else None


def _validate(report: ReportSpec[R], data: Any, result: RunResult[R]) -> R | None:
    try:
        return report.schema.model_validate(data)
    except ValidationError as exc:
        result.error = describe_errors(exc)
        return None


def _finish(result: RunResult[R], found: R | None, finish: Finish) -> RunResult[R]:
    if found is not None:
        result.ok, result.report, result.error = True, found, None
    elif result.error is None:
        result.error = finish.error or "the model finished without a report"
    return result


def _besides(calls: Sequence[ToolCall], report: ReportSpec[Any]) -> list[ToolCall]:
    return [c for c in calls if c.name != report.name]


def _answer_calls(
    calls: Sequence[ToolCall], tools: dict[str, Tool], report: ReportSpec[Any], problem: str | None
) -> list[Message]:
    out: list[Message] = []
    for call in calls:
        tool = tools.get(call.name)
        if call.name == report.name:
            why = call.error or problem or "the report did not match its schema"
            out.append(ToolResult(call.id, rejection(report.name, why), is_error=True))
        elif tool is None:
            known = ", ".join(sorted(tools)) or "none besides the report"
            out.append(
                ToolResult(call.id, f"ERROR: there is no tool {call.name!r} (tools: {known}).", is_error=True)
            )
        else:
            out.append(tool.run(call))
    return out


def json_object_in(text: str) -> dict[str, Any] | None:
    """The first JSON object in free text (fenced or bare), for models that answer in prose."""
    if not text or "{" not in text:
        return None
    candidates = [m.group(1) for m in _FENCE.finditer(text)] + [text]
    decoder = json.JSONDecoder()
    for candidate in candidates:
        start = candidate.find("{")
        while start != -1:
            try:
                value, _ = decoder.raw_decode(candidate, start)
            except json.JSONDecodeError:
                start = candidate.find("{", start + 1)
                continue
            if isinstance(value, dict):
                return value
            start = candidate.find("{", start + 1)
    return None
