"""The pure parts of the model layer: request validation, retries, assembly, tools, parsing."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from dataclasses import replace
from typing import Annotated, Literal

import pytest
from pydantic import BaseModel, Field

from core.agent.runner import json_object_in
from core.errors import (
    InvalidInput,
    KeyRefused,
    ModelError,
    ModelTransientError,
    ModelUnavailable,
    ModelUnknown,
)
from core.llm import errors
from core.llm.assembly import parse_arguments
from core.llm.client import MODEL_RETRY, RetryingClient, complete
from core.llm.tools import Tool, json_schema, spec_from_model
from core.llm.types import (
    AssistantMessage,
    Finish,
    ModelRequest,
    StreamEvent,
    TextDelta,
    ToolCall,
    ToolSpec,
    Usage,
    UserMessage,
)

pytestmark = pytest.mark.unit

HI = (UserMessage("hi"),)


def test_request_rejects_unknown_tool_choice_and_effort() -> None:
    tool = ToolSpec("lookup", "Find things.", {"type": "object", "properties": {}})
    ModelRequest("m", HI, tools=(tool,), tool_choice="lookup")
    with pytest.raises(InvalidInput, match="names no tool"):
        ModelRequest("m", HI, tools=(tool,), tool_choice="search")
    with pytest.raises(InvalidInput, match="needs at least one tool"):
        ModelRequest("m", HI, tool_choice="required")
    with pytest.raises(InvalidInput, match="effort"):
        ModelRequest("m", HI, effort="extreme")  # type: ignore[arg-type]


def test_backoff_grows_with_jitter_and_honours_retry_after() -> None:
    policy = replace(
        MODEL_RETRY, interval_seconds=1.0, max_delay_seconds=5.0, retry_after_cap=20.0, max_attempts=9
    )
    assert [policy.wait(n, 0.0) for n in (1, 2, 3, 4)] == [0.5, 1.0, 2.0, 2.5]
    assert [policy.wait(n, 0.999) for n in (1, 4)] == pytest.approx([0.9995, 4.9975])
    assert policy.wait(1, 0.3, retry_after=7.0) == 7.0
    assert policy.wait(1, 0.3, retry_after=600.0) == 20.0
    assert policy.wait(9, 0.3) is None


class Scripted:
    """A client double that fails or answers as scripted (one entry per attempt)."""

    def __init__(self, *script: Exception | list[StreamEvent]) -> None:
        self.script = list(script)
        self.requests: list[ModelRequest] = []

    def stream(self, request: ModelRequest) -> Iterator[StreamEvent]:
        self.requests.append(request)
        step = self.script.pop(0)
        if isinstance(step, Exception):
            raise step
        for event in step:
            if isinstance(event, Exception):
                raise event
            yield event


DONE: list[StreamEvent] = [TextDelta("ok"), Usage(1, 1), Finish("stop", AssistantMessage("ok"))]


def test_retrying_client_gives_each_attempt_the_time_left() -> None:
    now = [0.0]
    sleeps: list[float] = []

    def sleep(s: float) -> None:
        sleeps.append(s)
        now[0] += s

    inner = Scripted(ModelUnavailable("busy", retry_after=2.0), DONE)
    client = RetryingClient(inner, sleep=sleep, rand=lambda: 0.0, monotonic=lambda: now[0])
    assert complete(client, ModelRequest("m", HI, timeout=10.0)).text == "ok"
    assert sleeps == [2.0]
    assert [r.timeout for r in inner.requests] == [10.0, 8.0]


def test_retrying_client_stops_when_the_time_is_spent() -> None:
    inner = Scripted(ModelUnavailable("busy", retry_after=30.0), DONE)
    client = RetryingClient(inner, sleep=lambda s: None, monotonic=lambda: 0.0)
    with pytest.raises(ModelTransientError, match="busy"):
        complete(client, ModelRequest("m", HI, timeout=10.0))
    assert len(inner.requests) == 1


def test_retrying_client_never_retries_permanent_errors() -> None:
    inner = Scripted(ModelError("bad key"), DONE)
    with pytest.raises(ModelError, match="bad key"):
        complete(RetryingClient(inner, sleep=lambda s: None), ModelRequest("m", HI))
    assert len(inner.requests) == 1


def test_complete_requires_a_finish() -> None:
    with pytest.raises(ModelError, match="without finishing"):
        complete(Scripted([TextDelta("half")]), ModelRequest("m", HI))


def test_error_classification() -> None:
    kw = {"provider": "DeepSeek", "env_var": "DEEPSEEK_API_KEY", "model": "deepseek-v4-pro"}
    busy = errors.from_status(429, "slow", headers={"Retry-After": "3"}, **kw)
    assert isinstance(busy, ModelUnavailable) and busy.retry_after == 3.0
    ms = errors.from_status(529, "overloaded", headers={"retry-after-ms": "1500"}, **kw)
    assert isinstance(ms, ModelTransientError) and ms.retry_after == 1.5
    auth = errors.from_status(401, "bad key", **kw)
    assert type(auth) is KeyRefused and "DEEPSEEK_API_KEY" in str(auth)
    assert "the key was refused (401)" in str(auth) and isinstance(auth, ModelError)
    bad = errors.from_status(400, "tools[0]: name too long", **kw)
    assert type(bad) is ModelError and "tools[0]: name too long" in str(bad)
    assert isinstance(errors.from_status(404, "no such model", **kw), ModelUnknown)
    assert errors.retry_after_seconds({"retry-after": "Wed, 21 Oct 2026 07:28:00 GMT"}) is None


@pytest.mark.parametrize(
    ("raw", "args", "ok"),
    [
        ('{"a": 1}', {"a": 1}, True),
        ("", {}, True),
        ({"a": 2}, {"a": 2}, True),
        ('{"a": ', {}, False),
        ("[1, 2]", {}, False),
    ],
)
def test_parse_arguments(raw: str | dict, args: dict, ok: bool) -> None:
    parsed, error = parse_arguments(raw)
    assert parsed == args and (error is None) is ok


def weather(
    city: Annotated[str, Field(description="City name")], unit: Literal["c", "f"] = "c", days: int = 1
) -> dict[str, object]:
    """Forecast for a city."""
    return {"city": city, "unit": unit, "days": days}


def test_tool_from_typed_function() -> None:
    tool = Tool.from_function(weather)
    assert tool.spec.name == "weather" and tool.spec.description == "Forecast for a city."
    assert tool.spec.parameters == {
        "type": "object",
        "properties": {
            "city": {"type": "string", "description": "City name"},
            "unit": {"type": "string", "enum": ["c", "f"], "default": "c"},
            "days": {"type": "integer", "default": 1},
        },
        "required": ["city"],
    }
    ok = tool.run(ToolCall("c1", "weather", {"city": "Oslo", "days": "3"}))
    assert ok.content == '{"city": "Oslo", "unit": "c", "days": 3}' and not ok.is_error
    bad = tool.run(ToolCall("c2", "weather", {"unit": "k"}))
    assert bad.is_error and bad.call_id == "c2"
    assert bad.content.startswith("ERROR: invalid arguments for weather: city: Field required; unit:")
    broken = tool.run(ToolCall("c3", "weather", {}, '{"ci', error="not valid JSON"))
    assert broken.is_error and "not valid JSON" in broken.content


def test_tool_needs_a_docstring() -> None:
    def nameless(x: int) -> int:
        return x

    with pytest.raises(TypeError, match="docstring"):
        Tool.from_function(nameless)


class Inner(BaseModel):
    title: str
    score: float = 0.0


class Outer(BaseModel):
    """Something with a nested part."""

    items: list[Inner]


def test_schema_inlines_refs_and_keeps_a_property_named_title() -> None:
    schema = json_schema(Outer)
    item = schema["properties"]["items"]["items"]
    assert "$defs" not in schema and "$ref" not in str(schema)
    assert item["properties"]["title"] == {"type": "string"}
    assert spec_from_model(Outer, "outer").description == "Something with a nested part."


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ('```json\n{"a": 1}\n```', {"a": 1}),
        ('Sure! {"a": {"b": 2}} hope that helps', {"a": {"b": 2}}),
        ('{broken} then {"ok": true}', {"ok": True}),
        ("no json here", None),
        ("[1, 2]", None),
    ],
)
def test_json_object_in_text(text: str, found: dict | None) -> None:
    assert json_object_in(text) == found


def test_importing_the_model_layer_loads_no_sdk() -> None:
    code = (
        "import sys, core.llm.types, core.llm.client, core.llm.registry, core.llm.tools, "
        "core.agent.workers.analyzer, core.agent.runner; "
        "print(sorted(m for m in ('openai', 'anthropic') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
