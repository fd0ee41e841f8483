"""The turn analyzer through the fake model server: good, sloppy, malformed and failing outputs."""

from __future__ import annotations

import json

import pytest

from core.agent.workers.analyzer import (
    FALLBACK_EVOLVE_REASON,
    REPORT_TOOL,
    SILENT_EVOLVE_REASON,
    AnalyzerInput,
    CloseMarking,
    ClosingSlice,
    EmotionalSignal,
    Intent,
    MemoryUpdate,
    NewTag,
    analyze_turn,
)
from core.clock import FixedClock
from core.llm.registry import BoundModel, ModelRegistry, ProviderConfig
from core.memory.slice.model import Turn
from tests.fakes.fake_model_server import FakeModelServer, Reply, ToolCall

pytestmark = pytest.mark.functional

STRANDS = ["health", "apartment hunt", "rust"]
TURNS = [
    Turn(f"t{i}", f"2026-08-11T10:{i:02d}:00.000Z", "user" if i % 2 == 0 else "agent", f"message {i}")
    for i in range(4)
]


def worker(fake: FakeModelServer, clock: FixedClock, wire: str = "openai") -> BoundModel:
    if wire == "openai":
        config = ProviderConfig(openai_base_url=fake.openai_base_url)
    else:
        config = ProviderConfig(anthropic_api_key="test-key", anthropic_base_url=fake.anthropic_base_url)
    registry = ModelRegistry(config, clock=clock, sleep=lambda _: None)
    return registry.resolve().worker


def report(**fields: object) -> Reply:
    return Reply(tool_calls=[ToolCall(REPORT_TOOL, dict(fields))])


GOOD = {
    "message_tags": {"reuse": ["health"], "create": [{"tag": "marathon", "reason": "training plan"}]},
    "semantic_hint": {"strands": ["health"], "reason": "running"},
    "intent": {"type": "chat", "reason": "sharing news"},
    "memory_worthy": True,
    "emotional_signal": {"intensity": "light", "register": "excited", "note": "proud"},
}


@pytest.mark.parametrize("wire", ["openai", "anthropic"])
def test_good_report(fake_models: FakeModelServer, clock: FixedClock, wire: str) -> None:
    fake_models.enqueue(report(**GOOD))
    inp = AnalyzerInput("I signed up for a marathon in October!", STRANDS)
    result = analyze_turn(inp, worker(fake_models, clock, wire))
    assert result.source == "model" and result.error is None
    assert result.reuse_tags == ("health",)
    assert result.new_tags == (NewTag("marathon", "training plan"),)
    assert result.tags == ("health", "marathon")
    assert result.hint_strands == ("health",)
    assert result.intent == Intent("chat", "sharing news")
    assert result.emotional == EmotionalSignal("light", "excited", "proud")
    assert result.memory_worthy and result.memory_update is None
    assert result.evolve_card is None and result.marking is None, "nothing closes this turn"

    body = fake_models.model_requests()[-1].body
    user_text = fake_models.model_requests()[-1].last_user_text
    assert "I signed up for a marathon in October!" in user_text
    assert "Existing topics: health, apartment hunt, rust" in user_text
    if wire == "openai":
        assert body["tool_choice"] == {"type": "function", "function": {"name": REPORT_TOOL}}
        assert body["temperature"] == 0.1
        assert body["messages"][0]["role"] == "system"
    else:
        assert body["model"] == "claude-haiku-4-5", "the cheap tier of the provider"
        assert body["tool_choice"] == {"type": "tool", "name": REPORT_TOOL}
        assert body["thinking"] == {"type": "disabled"}
        assert isinstance(body["system"], str) and "memory" in body["system"]


def test_closing_slice_is_marked_and_judged(fake_models: FakeModelServer, clock: FixedClock) -> None:
    head = "Compared three flats near the river and decided to visit the cheapest one on Saturday morning"
    long_summary = head + " early with Sam"
    fake_models.enqueue(
        report(
            **GOOD,
            closed_marking={
                "focus": " Flat search ",
                "summary": long_summary,
                "tags": ["apartment hunt", "budget", "", "Budget", "a", "b", "c", "d"],
                "tone": "Positive",
            },
            evolve_card={"worth": "false", "reason": "nothing new about the user"},
        )
    )
    closing = ClosingSlice("2026-08-11-1000", TURNS, tags=["apartment hunt"])
    result = analyze_turn(AnalyzerInput("Hi again", STRANDS, closing), worker(fake_models, clock))
    assert result.marking == CloseMarking(
        focus="Flat search",
        summary=head + "…",
        tags=("apartment hunt", "budget", "a", "b", "c", "d"),
        tone="positive",
    )
    assert len(result.marking.summary) <= 100
    assert result.evolve_card is not None and result.evolve_card.worth is False
    prompt = fake_models.model_requests()[-1].last_user_text
    assert "2026-08-11-1000 is closing" in prompt
    assert "user: message 0\nagent: message 1" in prompt
    assert "Its tags so far: apartment hunt" in prompt


def test_closing_without_judgment_defaults_to_evolve(fake_models: FakeModelServer, clock: FixedClock) -> None:
    fake_models.enqueue(report(**GOOD))
    closing = ClosingSlice("2026-08-11-1000", TURNS)
    result = analyze_turn(AnalyzerInput("hello", STRANDS, closing), worker(fake_models, clock))
    assert result.evolve_card is not None and result.evolve_card.worth is True
    assert result.evolve_card.reason == SILENT_EVOLVE_REASON
    assert result.marking is None


def test_merge_first_tags(fake_models: FakeModelServer, clock: FixedClock) -> None:
    fake_models.enqueue(
        report(
            message_tags={
                "reuse": ["Health ", "rust", "rust", "gardening", "", "apartment  hunt"],
                "create": [{"tag": "RUST", "reason": "dup"}, {"tag": "x1"}, {"tag": "x2"}, {"tag": "x3"}],
            },
            memory_worthy=True,
        )
    )
    result = analyze_turn(AnalyzerInput("…", STRANDS), worker(fake_models, clock))
    assert result.reuse_tags == ("health", "rust", "apartment hunt"), "existing names are used verbatim"
    assert result.new_tags == (NewTag("gardening"), NewTag("x1"), NewTag("x2")), "at most 3 new tags"


def test_trivial_turn_gets_no_tags(fake_models: FakeModelServer, clock: FixedClock) -> None:
    fake_models.enqueue(report(**{**GOOD, "memory_worthy": False}))
    result = analyze_turn(AnalyzerInput("thanks!", STRANDS), worker(fake_models, clock))
    assert result.memory_worthy is False
    assert result.tags == () and result.source == "model"


def test_explicit_memory_request(fake_models: FakeModelServer, clock: FixedClock) -> None:
    update = {"content": "Prefers answers without emoji.", "section": "Self-Model"}
    fake_models.enqueue(report(**GOOD, memory_update=update))
    result = analyze_turn(AnalyzerInput("From now on, no emoji please.", STRANDS), worker(fake_models, clock))
    assert result.memory_update == MemoryUpdate("Prefers answers without emoji.", "self_model")


def test_sloppy_output_is_tolerated(fake_models: FakeModelServer, clock: FixedClock) -> None:
    sloppy = {
        "message_tags": json.dumps({"reuse": "health, rust", "create": ["2026 plans"]}),
        "memory_worthy": "1",
        "intent": {"type": "Code-Debug", "confidence": 0.9},
        "emotional_signal": {"intensity": "STRONG"},
        "semantic_hint": {"strands": [42, None, "rust"]},
        "memory_update": "",
        "unexpected": {"whatever": True},
    }
    fake_models.enqueue(report(**sloppy))
    result = analyze_turn(AnalyzerInput("why does this panic?", STRANDS), worker(fake_models, clock))
    assert result.source == "model"
    assert result.reuse_tags == ("health", "rust")
    assert result.new_tags == (NewTag("2026 plans"),)
    assert result.intent == Intent("code_debug")
    assert result.emotional == EmotionalSignal("strong", "neutral", "")
    assert result.hint_strands == ("42", "rust")
    assert result.memory_update is None


def test_report_written_as_text(fake_models: FakeModelServer, clock: FixedClock) -> None:
    fake_models.enqueue(Reply(text=f"Here is my report:\n```json\n{json.dumps(GOOD)}\n```"))
    result = analyze_turn(AnalyzerInput("marathon!", STRANDS), worker(fake_models, clock))
    assert result.source == "model" and result.tags == ("health", "marathon")


@pytest.mark.parametrize(
    "reply",
    [
        Reply(tool_calls=[ToolCall(REPORT_TOOL, '{"message_tags": {"reuse": ["hea')]),
        report(verdict="looks fine"),
        report(message_tags=5, memory_worthy=True),
        Reply(text="I think this message is about health."),
    ],
    ids=["broken-json", "no-known-field", "wrong-type", "prose-only"],
)
def test_malformed_output_falls_back(fake_models: FakeModelServer, clock: FixedClock, reply: Reply) -> None:
    fake_models.enqueue(reply)
    closing = ClosingSlice("2026-08-11-1000", TURNS)
    result = analyze_turn(AnalyzerInput("hello", STRANDS, closing), worker(fake_models, clock))
    assert result.source == "fallback" and result.error
    assert result.memory_worthy is True and result.tags == ()
    assert result.evolve_card is not None and result.evolve_card.reason == FALLBACK_EVOLVE_REASON
    assert result.marking is None and result.intent is None


def test_server_errors_fall_back_after_retries(fake_models: FakeModelServer, clock: FixedClock) -> None:
    fake_models.enqueue(*[Reply.error(500, "upstream exploded")] * 4)
    result = analyze_turn(AnalyzerInput("hello", STRANDS), worker(fake_models, clock))
    assert result.source == "fallback" and "HTTP 500" in (result.error or "")
    assert result.evolve_card is None, "no slice closing, no evolution judgment"
    assert len(fake_models.model_requests()) == 4


def test_timeout_falls_back(fake_models: FakeModelServer, clock: FixedClock) -> None:
    fake_models.enqueue(Reply.stall(10))
    result = analyze_turn(AnalyzerInput("hello", STRANDS), worker(fake_models, clock), budget_seconds=0.5)
    assert result.source == "fallback" and "did not answer" in (result.error or "")


def test_no_model_falls_back() -> None:
    closing = ClosingSlice("2026-08-11-1000", TURNS)
    result = analyze_turn(AnalyzerInput("hello", [], closing), None)
    assert result.source == "fallback" and result.error == "no model configured"
    assert result.evolve_card is not None and result.evolve_card.worth is True
