"""The recall scan through the fake model server: the worker's tools, its report, and every fallback."""

from __future__ import annotations

import json
from typing import Any

import pytest

from core.agent.recall.scan import EMPTY_NOTE, MAX_STEPS, REPORT_TOOL, RecallReport, run_recall
from core.agent.tool_context import ToolContext
from core.clock import FixedClock, parse_iso
from core.llm.registry import ModelRegistry, ProviderConfig, Resolution
from core.storage.memory import InMemoryStorage
from tests.fakes.agent_memory import build_memory, make_slice
from tests.fakes.evolution import tool_results
from tests.fakes.fake_model_server import FakeModelServer, Reply, ToolCall

pytestmark = pytest.mark.functional

NOW = "2026-08-17T14:10:00.000Z"
CURRENT = "2026-08-17-1400"
SLICES = [
    make_slice("2026-07-02-0900", [("user", "The landlord wants to raise the rent in Alfama.")],
               focus="Rent increase from the landlord", tags=["apartment"]),
    make_slice("2026-07-20-1830", [("user", "We looked at a flat near Graça with a balcony.")],
               focus="Viewing a flat in Graça", tags=["apartment"]),
    make_slice("2026-08-05-0715", [("user", "Ran 12 km this morning, knees fine.")],
               focus="Long run before work", tags=["running"]),
    make_slice("2026-08-12-2000", [("user", "Signed the lease for the Graça flat!")],
               focus="Lease signed", tags=["apartment", "move"]),
    make_slice(CURRENT, [("user", "when did I sign the lease?")], status="active", tags=["apartment"]),
]  # fmt: skip


@pytest.fixture
def storage() -> InMemoryStorage:
    return build_memory(SLICES, parse_iso(NOW))


class Events:
    """What the scan reported through the context's callbacks."""

    def __init__(self) -> None:
        self.progress: list[tuple[str, str]] = []
        self.hits: list[tuple[str, dict[str, Any]]] = []

    def labels(self) -> list[str]:
        return [label for _, label in self.progress]


def _ctx(storage: InMemoryStorage, models: Resolution | None, events: Events, **kw: Any) -> ToolContext:
    return ToolContext(
        view=storage.snapshot(),
        clock=FixedClock.at(NOW),
        models=models,
        slice_id=CURRENT,
        timezone="Europe/Lisbon",
        progress=lambda call, label: events.progress.append((call, label)),
        hits=lambda call, payload: events.hits.append((call, payload)),
        **kw,
    )


@pytest.fixture
def models(fake_models: FakeModelServer, clock: FixedClock) -> Resolution:
    config = ProviderConfig(openai_base_url=fake_models.openai_base_url)
    return ModelRegistry(config, clock=clock, sleep=lambda _: None).resolve()


AUGUST = ToolCall("readTimelineWindow", {"from": "2026-08-01", "to": "2026-08-31"}, id="s2")


def report(**fields: Any) -> Reply:
    return Reply(tool_calls=[ToolCall(REPORT_TOOL, fields)])


def test_the_worker_explores_then_reports(
    fake_models: FakeModelServer, models: Resolution, storage: InMemoryStorage
) -> None:
    fake_models.enqueue(
        Reply(tool_calls=[ToolCall("readStrand", {"strand": "Apartment"}, id="s1"), AUGUST]),
        Reply(tool_calls=[ToolCall("searchMemory", {"query": "lease"}, id="s3"),
                          ToolCall("readGlobalTimeline", {}, id="s4")]),
        report(
            hits=[{"slice_id": "2026-07-20-1830", "relevance": "0.4", "reason": "the flat they viewed"},
                  {"slice_id": "2026-08-12-2000", "relevance": 0.95, "reason": "lease signed"}],
            confidence="0.9",
            reasoning="The apartment strand leads to the signing.",
            recommended_reads=[{"slice_id": "2026-08-12-2000", "priority": "high", "reason": "the day",
                                "note": "the date"}],
        ),
    )  # fmt: skip
    events = Events()
    result = run_recall(_ctx(storage, models, events), "when did I sign the lease?", "call-1")

    assert result.source == "worker"
    assert [(h.slice_id, h.relevance) for h in result.hits] == [
        ("2026-08-12-2000", 0.95),
        ("2026-07-20-1830", 0.4),
    ]
    assert result.confidence == 0.9 and result.note == ""
    assert [(r.slice_id, r.priority, r.note) for r in result.recommended] == [
        ("2026-08-12-2000", "high", "the date")
    ]

    sent = fake_models.model_requests()
    worker_tools = {"readGlobalTimeline", "readTimelineWindow", "readStrand", "searchMemory", REPORT_TOOL}
    assert set(sent[0].tool_names) == worker_tools
    prompt = sent[0].last_user_text
    assert "Question: when did I sign the lease?" in prompt and f"slice {CURRENT}: never report it" in prompt
    strand, window = tool_results(sent[1].body)
    assert strand.startswith('Strand "apartment" appears in 4 slices: ')
    assert f"{CURRENT} (current — never a hit)" in strand
    assert window.startswith("3 slices between 2026-08-01 and 2026-08-31:\n- **2026-08-17-1400** (08-17 Mon)")
    assert window.split("\n")[1].endswith("← the current conversation (never a hit)")
    search, timeline = tool_results(sent[2].body)[2:]
    assert search.startswith("- 2026-08-12-2000 (relevance ")
    assert timeline.startswith("Global timeline: showing newest 5 of 5 slices.")
    assert "- **2026-08-12-2000** (08-12 Wed) Lease signed" in timeline

    assert events.labels() == [
        "Scanning memory…",
        "Tracing strand: apartment",
        "Scoping the timeline: 2026-08-01 → 2026-08-31",
        "Searching memory for “lease”",
        "Reading the timeline",
        "Writing the recall report",
        "Found 2 matches",
    ]
    assert all(call == "call-1" for call, _ in events.progress)
    ((call, payload),) = events.hits
    assert call == "call-1" and payload["query"] == "when did I sign the lease?"
    assert [h["slice_id"] for h in payload["hits"]] == ["2026-08-12-2000", "2026-07-20-1830"]


def test_hallucinated_and_current_ids_are_dropped(
    fake_models: FakeModelServer, models: Resolution, storage: InMemoryStorage
) -> None:
    fake_models.enqueue(
        report(
            hits=[{"slice_id": "2026-08-12/2000", "relevance": 2, "reason": "bad form"},
                  {"slice_id": "2026/08/12/2000", "relevance": 0.7, "reason": "folder form"},
                  {"slice_id": "2026-08-13-2000", "relevance": 0.9, "reason": "invented"},
                  {"slice_id": CURRENT, "relevance": 1, "reason": "this conversation"}],
            recommended_reads=[{"slice_id": i} for i in ("2026-01-01-0000", CURRENT, "2026-08-05-0715")],
            confidence=0.8,
        )
    )  # fmt: skip
    result = run_recall(_ctx(storage, models, Events()), "lease")
    assert [h.slice_id for h in result.hits] == ["2026-08-12-2000"]
    assert [r.slice_id for r in result.recommended] == ["2026-08-05-0715"]
    assert result.reasoning.endswith(f"[Excluded current slice {CURRENT}]") and result.confidence == 0.8


def test_only_the_current_slice_means_no_confidence(
    fake_models: FakeModelServer, models: Resolution, storage: InMemoryStorage
) -> None:
    fake_models.enqueue(report(hits=[{"slice_id": CURRENT, "relevance": 1, "reason": "now"}], confidence=1))
    result = run_recall(_ctx(storage, models, Events()), "lease")
    assert result.hits == [] and result.confidence == 0.0 and result.note == EMPTY_NOTE


def test_an_empty_result_is_definitive(
    fake_models: FakeModelServer, models: Resolution, storage: InMemoryStorage
) -> None:
    fake_models.enqueue(report(hits=[], confidence=0.1, reasoning="Nothing about sailing."))
    events = Events()
    ctx = _ctx(storage, models, events)
    text = json.loads(run_recall(ctx, "sailing lessons").tool_text(ctx))
    assert text["hits"] == [] and "do not call recall again" in text["note"]
    assert events.labels()[-1] == "Nothing found"


def test_worker_failure_falls_back_to_the_floor(
    fake_models: FakeModelServer, models: Resolution, storage: InMemoryStorage
) -> None:
    fake_models.enqueue(Reply.error(401, "bad key"))
    events = Events()
    result = run_recall(_ctx(storage, models, events), "lease signed")
    assert result.source == "floor" and result.hits[0].slice_id == "2026-08-12-2000"
    assert CURRENT not in [h.slice_id for h in result.hits]
    assert "did not finish" in result.note and "bad key" in result.note
    assert "Falling back to full-text search" in events.labels()


def test_worker_timeout_falls_back_to_the_floor(
    fake_models: FakeModelServer, models: Resolution, storage: InMemoryStorage
) -> None:
    fake_models.enqueue(Reply.stall(5))
    result = run_recall(_ctx(storage, models, Events()), "Graça flat", budget=0.3)
    assert result.source == "floor" and "ran out of time" in result.note
    assert "2026-07-20-1830" in [h.slice_id for h in result.hits]


def test_no_model_means_the_floor_answers_alone(storage: InMemoryStorage) -> None:
    events = Events()
    ctx = _ctx(storage, None, events)
    result = run_recall(ctx, "landlord rent")
    assert result.source == "floor" and [h.slice_id for h in result.hits][:1] == ["2026-07-02-0900"]
    assert 0 < result.confidence <= 0.6 and result.note == ""
    assert events.labels() == ["Scanning memory…", "Found 1 match"]
    text = json.loads(result.tool_text(ctx))
    assert text["hits"][0]["reason"].endswith("(local 10:00 · 7 weeks ago)")
    nothing = run_recall(ctx, "xylophone")
    assert nothing.hits == [] and nothing.note == EMPTY_NOTE


def test_the_last_step_must_report(
    fake_models: FakeModelServer, models: Resolution, storage: InMemoryStorage
) -> None:
    wander = Reply(tool_calls=[ToolCall("readGlobalTimeline", {"page": 1})])
    fake_models.enqueue(*[wander] * (MAX_STEPS - 1), report(hits=[], confidence=0))
    result = run_recall(_ctx(storage, models, Events()), "anything")
    requests = fake_models.model_requests()
    forced = [r.forced_tool for r in requests]
    assert forced == [None] * (MAX_STEPS - 1) + [REPORT_TOOL]
    # The forced step names the report in the structured tool choice (a type and the tool's name),
    # as the reference's prepared step does; the free steps leave the choice to the model.
    assert requests[-1].body["tool_choice"] == {"type": "function", "function": {"name": REPORT_TOOL}}
    assert all(r.body.get("tool_choice", "auto") == "auto" for r in requests[:-1])
    assert result.source == "worker"


def test_bad_tool_arguments_reach_the_worker_as_instructions(
    fake_models: FakeModelServer, models: Resolution, storage: InMemoryStorage
) -> None:
    fake_models.enqueue(
        Reply(tool_calls=[ToolCall("readTimelineWindow", {"from": "last week"}, id="w"),
                          ToolCall("readStrand", {"strand": "sailing"}, id="x"),
                          ToolCall("readGlobalTimeline", {"page": 9}, id="y")]),
        report(hits=[]),
    )  # fmt: skip
    run_recall(_ctx(storage, models, Events()), "q")
    window, strand, page = tool_results(fake_models.model_requests()[1].body)
    assert window == 'ERROR: `from` must be a date like 2026-08-01 (YYYY-MM-DD), not "last week".'
    assert strand.startswith('No strand named "sailing". Known strands: ')
    assert page == "(no page 9: the timeline has 1 page of 40)"


def test_a_report_is_plain_data() -> None:
    empty = RecallReport(query="q")
    assert empty.event_payload() == {"query": "q", "hits": [], "recommended": [], "confidence": 0.0}
