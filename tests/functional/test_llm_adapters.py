"""Both adapters, one behavioural suite: the real SDKs against the fake model server."""

from __future__ import annotations

from dataclasses import replace

import pytest

from core.errors import ModelError, ModelTransientError
from core.llm.client import MODEL_RETRY, RetryingClient, complete
from core.llm.registry import Provider, default_client
from core.llm.types import (
    AssistantMessage,
    Finish,
    ModelRequest,
    ReasoningDelta,
    TextDelta,
    ToolCall,
    ToolResult,
    ToolSpec,
    Usage,
    UserMessage,
)
from tests.fakes.fake_model_server import FakeModelServer, Reply
from tests.fakes.fake_model_server import ToolCall as FakeCall
from tests.fakes.fake_model_server import Usage as FakeUsage

pytestmark = pytest.mark.functional

# kind → (provider id, api, model id used in requests)
KINDS = {
    "openai": ("openai", "openai", "gpt-5.5"),
    "deepseek": ("deepseek", "openai", "deepseek-v4-pro"),
    "anthropic": ("anthropic", "anthropic", "claude-sonnet-5"),
}
KINDS_ENV = {"openai": "OPENAI_API_KEY", "deepseek": "DEEPSEEK_API_KEY", "anthropic": "ANTHROPIC_API_KEY"}
WEATHER = ToolSpec(
    "get_weather",
    "Weather for a city.",
    {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
)


class Harness:
    """A retrying client for one adapter kind, with a recorded (never slept) backoff."""

    def __init__(self, kind: str, fake: FakeModelServer) -> None:
        provider_id, api, self.model = KINDS[kind]
        base = fake.anthropic_base_url if api == "anthropic" else fake.openai_base_url
        provider = Provider(provider_id, kind.title(), api, "test-key", base, KINDS_ENV[kind])  # type: ignore[arg-type]
        self.kind, self.fake, self.sleeps = kind, fake, []
        self.client = RetryingClient(
            default_client(provider),
            replace(MODEL_RETRY, max_attempts=3),
            sleep=self.sleeps.append,
            rand=lambda: 0.5,
        )

    def request(self, *messages, **options) -> ModelRequest:
        options.setdefault("timeout", 60.0)
        return ModelRequest(model=self.model, messages=tuple(messages) or (UserMessage("Hi"),), **options)


@pytest.fixture(params=sorted(KINDS))
def h(request: pytest.FixtureRequest, fake_models: FakeModelServer) -> Harness:
    return Harness(request.param, fake_models)


def test_plain_reply(h: Harness) -> None:
    h.fake.enqueue(Reply(text="Hello there, how can I help?", usage=FakeUsage(40, 9, cache_read_tokens=30)))
    result = complete(h.client, h.request(UserMessage("Hello"), system="Be brief.", temperature=0.2))
    assert result.text == "Hello there, how can I help?"
    assert result.finish_reason == "stop"
    assert result.tool_calls == ()
    assert result.usage == Usage(input_tokens=40, output_tokens=9, cache_read_tokens=30, cache_write_tokens=0)
    sent = h.fake.model_requests()[-1]
    assert sent.model == h.model and sent.body["stream"] is True
    assert sent.last_user_text == "Hello"
    assert "test-key" in sent.headers.get("x-api-key", "") + sent.headers.get("authorization", "")


def test_streamed_reply_with_reasoning(h: Harness) -> None:
    h.fake.enqueue(Reply(text="It is four.", reasoning="Two plus two makes four.", chunk_size=3))
    events = list(h.client.stream(h.request(UserMessage("2+2?"), thinking=True, effort="high")))
    kinds = [type(e).__name__ for e in events]
    assert kinds[-2:] == ["Usage", "Finish"]
    first_text = kinds.index("TextDelta")
    assert set(kinds[:first_text]) == {"ReasoningDelta"}, "reasoning streams before the reply"
    assert "".join(e.text for e in events if isinstance(e, ReasoningDelta)) == "Two plus two makes four."
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "It is four."
    assert sum(isinstance(e, TextDelta) for e in events) == 4  # deltas arrive as streamed, not in one piece
    finish = events[-1]
    assert isinstance(finish, Finish)
    assert finish.message.text == "It is four."
    assert [r.text for r in finish.message.reasoning] == ["Two plus two makes four."]
    if h.kind == "anthropic":
        assert finish.message.reasoning[0].signature == "fake-signature"


def test_tool_call_round_trip(h: Harness) -> None:
    h.fake.enqueue(
        Reply(
            reasoning="I need the weather.", tool_calls=[FakeCall("get_weather", {"city": "Lisbon"}, id="c1")]
        ),
        Reply(text="Sunny in Lisbon."),
    )
    ask = UserMessage("Weather in Lisbon?")
    first = complete(h.client, h.request(ask, tools=(WEATHER,), thinking=True))
    assert first.finish_reason == "tool_calls"
    assert first.tool_calls == (ToolCall("c1", "get_weather", {"city": "Lisbon"}, '{"city": "Lisbon"}'),)

    result = ToolResult("c1", "22°C, clear sky")
    second = complete(h.client, h.request(ask, first.message, result, tools=(WEATHER,), thinking=True))
    assert second.text == "Sunny in Lisbon." and second.finish_reason == "stop"

    body = h.fake.model_requests()[-1].body
    if h.kind == "anthropic":
        assistant, answer = body["messages"][1], body["messages"][2]
        assert assistant["content"][0] == {
            "type": "thinking",
            "thinking": "I need the weather.",
            "signature": "fake-signature",
        }
        assert assistant["content"][-1] == {
            "type": "tool_use",
            "id": "c1",
            "name": "get_weather",
            "input": {"city": "Lisbon"},
        }
        assert answer["role"] == "user"
        assert answer["content"][0]["type"] == "tool_result" and answer["content"][0]["tool_use_id"] == "c1"
    else:
        assistant, answer = body["messages"][1], body["messages"][2]
        assert assistant["tool_calls"][0]["function"] == {
            "name": "get_weather",
            "arguments": '{"city": "Lisbon"}',
        }
        assert answer == {"role": "tool", "tool_call_id": "c1", "content": "22°C, clear sky"}
        assert ("reasoning_content" in assistant) is (h.kind == "deepseek")


def test_malformed_tool_arguments_are_surfaced_not_raised(h: Harness) -> None:
    h.fake.enqueue(Reply(tool_calls=[FakeCall("get_weather", '{"city": "Lis', id="c9")]))
    result = complete(h.client, h.request(tools=(WEATHER,)))
    (call,) = result.tool_calls
    assert call.arguments == {} and call.raw_arguments == '{"city": "Lis'
    assert call.error and "not valid JSON" in call.error


def test_length_and_filtered_finishes(h: Harness) -> None:
    h.fake.enqueue(Reply(text="cut sh", finish="length"), Reply(text="", finish="content_filter"))
    assert complete(h.client, h.request()).finish_reason == "length"
    filtered = complete(h.client, h.request())
    assert filtered.finish_reason == "error" and filtered.error


def test_rate_limit_is_retried_honouring_retry_after(h: Harness) -> None:
    h.fake.enqueue(Reply.error(429, "slow down", retry_after=7), Reply.error(503), Reply(text="finally"))
    assert complete(h.client, h.request()).text == "finally"
    assert h.sleeps == [7.0, 0.75]  # the server's wait, then our own backoff (attempt 2, rand 0.5)
    assert len(h.fake.model_requests()) == 3


def test_persistent_server_error_gives_up_as_transient(h: Harness) -> None:
    h.fake.enqueue(*[Reply.error(500, "boom")] * 3)
    with pytest.raises(ModelTransientError, match="HTTP 500"):
        complete(h.client, h.request())
    assert len(h.fake.model_requests()) == 3 and len(h.sleeps) == 2


@pytest.mark.parametrize("status", [401, 403])
def test_bad_credentials_name_the_variable(h: Harness, status: int) -> None:
    h.fake.enqueue(Reply.error(status, "invalid x-api-key"))
    with pytest.raises(ModelError, match=KINDS_ENV[h.kind]) as info:
        complete(h.client, h.request())
    assert not isinstance(info.value, ModelTransientError)
    assert "invalid x-api-key" in str(info.value) and h.sleeps == []


def test_bad_request_carries_the_provider_message(h: Harness) -> None:
    h.fake.enqueue(Reply.error(400, "messages: at least one message is required"))
    with pytest.raises(ModelError, match="at least one message is required"):
        complete(h.client, h.request())
    assert len(h.fake.model_requests()) == 1


def test_malformed_body_is_a_clear_model_error(h: Harness) -> None:
    h.fake.enqueue(Reply.garbage())
    with pytest.raises(ModelError, match="malformed response"):
        complete(h.client, h.request())


def test_disconnect_mid_stream_raises_after_partial_output(h: Harness) -> None:
    h.fake.enqueue(Reply.disconnect("a long answer that gets cut off", after=4), Reply(text="not used"))
    seen: list[object] = []
    with pytest.raises(ModelTransientError, match="connection"):
        for event in h.client.stream(h.request()):
            seen.append(event)
    assert any(isinstance(e, TextDelta) for e in seen), "partial text reached the caller"
    assert h.fake.pending == 1, "no silent retry once output was shown"


def test_disconnect_before_output_is_retried(h: Harness) -> None:
    h.fake.enqueue(Reply.disconnect(after=0), Reply(text="second try"))
    assert complete(h.client, h.request()).text == "second try"


def test_stall_times_out_as_transient(h: Harness) -> None:
    h.fake.enqueue(*[Reply.stall(10)] * 3)
    with pytest.raises(ModelTransientError, match=r"did not answer within 0\.3 s"):
        complete(h.client, h.request(timeout=0.3))


def test_unscripted_request_fails_loudly(h: Harness) -> None:
    with pytest.raises(ModelError, match="no scripted reply"):
        complete(h.client, h.request())


def test_responder_answers_from_the_request(h: Harness) -> None:
    h.fake.responder = lambda req: Reply(text=f"echo:{req.last_user_text}")
    assert complete(h.client, h.request(UserMessage("ping"))).text == "echo:ping"


def test_assistant_history_without_tools_is_sent_back(h: Harness) -> None:
    h.fake.enqueue("second answer")
    history = (UserMessage("one"), AssistantMessage(text="first answer"), UserMessage("two"))
    complete(h.client, h.request(*history))
    messages = h.fake.model_requests()[-1].body["messages"]
    roles = [m["role"] for m in messages]
    assert roles == ["user", "assistant", "user"]


def test_error_inside_the_stream_is_classified(h: Harness) -> None:
    h.fake.enqueue(Reply.error_mid_stream(529, "overloaded right now", after=5), Reply("unused"))
    seen: list[object] = []
    with pytest.raises(ModelTransientError, match="overloaded right now"):
        for event in h.client.stream(h.request()):
            seen.append(event)
    assert any(isinstance(e, TextDelta) for e in seen)
    assert h.fake.pending == 1, "partial output was shown: no silent retry"
    h.fake.reset()
    h.fake.enqueue(Reply.error_mid_stream(400, "context window exceeded", after=1))
    with pytest.raises(ModelError, match="context window exceeded") as info:
        complete(h.client, h.request())
    assert not isinstance(info.value, ModelTransientError)


def test_an_image_reaches_the_wire(h: Harness) -> None:
    from core.llm.types import ImageInput

    pixel = ImageInput("image/png", "iVBORw0KGgo=")
    h.fake.enqueue(Reply(text="A single pixel."))
    assert complete(h.client, h.request(UserMessage("What is this?", (pixel,)))).text == "A single pixel."
    content = h.fake.model_requests()[-1].body["messages"][-1]["content"]
    if h.kind == "anthropic":
        assert content[0]["source"] == {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}
        assert content[1] == {"type": "text", "text": "What is this?"}
    else:  # checked against OpenAI's schema by the fake server as well
        assert content[1] == {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}}
