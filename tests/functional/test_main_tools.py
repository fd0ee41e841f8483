"""The main agent's tools on a small memory: every happy path and every error the model can cause."""

from __future__ import annotations

import json
from typing import Any

import pytest

from core.agent.main_tools import TOOL_NAMES, main_tools
from core.agent.think_deep import TIMEOUT_NOTE, think_deep
from core.agent.tool_context import ToolContext
from core.clock import FixedClock, parse_iso
from core.llm.registry import ModelRegistry, ProviderConfig
from core.llm.tools import Tool
from core.llm.types import ToolCall, ToolResult
from core.memory import paths
from core.memory.config import UserConfig, merge_config
from core.storage.base import WriteBatch
from core.storage.memory import InMemoryStorage
from core.web import WebAccess
from core.web.fetch import WebFetcher
from core.web.search import SearxngSearch
from tests.fakes.agent_memory import build_memory, make_slice
from tests.fakes.fake_model_server import FakeModelServer, Reply

pytestmark = pytest.mark.functional

NOW = "2026-08-17T14:20:00.000Z"
CURRENT = "2026-08-17-1400"
TURNS = [
    ("user", "We viewed the flat in Graça today."),
    ("agent", "How did it feel?"),
    ("user", "Bright, a balcony, but the stairs are steep."),
    ("agent", "Steep stairs with boxes — worth pricing movers."),
]
SLICES = [
    make_slice("2026-07-20-1830", TURNS, focus="Viewing a flat in Graça", summary="Liked it; stairs steep.",
               tags=["apartment"], evolution_summary="Noted the move."),
    make_slice("2026-08-12-2000", [("user", "Signed the lease!")], focus="Lease signed", tags=["apartment"]),
    make_slice(CURRENT, [("user", "what did I think of the flat?")], status="active"),
]  # fmt: skip
CARD = "# Previously On\n\n## Identity\n\n- Name: Mara\n\n## Past\n\nMara translates books.\n"
LEGACY_SNAPSHOT = "# User profile\n\n## User identity\n\n- Name: Mara\n"


@pytest.fixture
def storage() -> InMemoryStorage:
    extra = {
        str(
            paths.agent_md("2026-07-20-1830")
        ): "## Cognition t1 — 2026-07-20T18:31:00.000Z\n\n### Thinking\nAsk.",
        str(paths.card_snapshot("2026-07-20-1830")): CARD,
        str(paths.card_snapshot("2026-08-12-2000")): LEGACY_SNAPSHOT,
        "memory/notes/packing.md": "- books\n- lamp\n",
    }
    return build_memory(SLICES, parse_iso(NOW), card=CARD, extra=extra)


def _ctx(storage: InMemoryStorage, **kw: Any) -> ToolContext:
    batch = WriteBatch.open(storage)
    options: dict[str, Any] = {"slice_id": CURRENT, "timezone": "Europe/Lisbon", "batch": batch}
    options.update(kw)
    options.setdefault("clock", FixedClock.at(NOW))
    return ToolContext(view=batch.snapshot, **options)


def _run(ctx: ToolContext, name: str, **args: Any) -> ToolResult:
    tools: dict[str, Tool] = {t.spec.name: t for t in main_tools(ctx)}
    return tools[name].run(ToolCall("c1", name, args))


def ok(ctx: ToolContext, name: str, **args: Any) -> str:
    result = _run(ctx, name, **args)
    assert not result.is_error, result.content
    return result.content


def error(ctx: ToolContext, name: str, **args: Any) -> str:
    result = _run(ctx, name, **args)
    assert result.is_error and result.content.startswith("ERROR: "), result.content
    return result.content


def test_the_tool_set(storage: InMemoryStorage) -> None:
    tools = main_tools(_ctx(storage))
    assert tuple(t.spec.name for t in tools) == tuple(n for n in TOOL_NAMES if not n.startswith("web"))
    web = WebAccess(WebFetcher(), SearxngSearch("http://search.invalid"))
    assert tuple(t.spec.name for t in main_tools(_ctx(storage, web=web))) == TOOL_NAMES
    for tool in tools:
        assert tool.spec.description and tool.spec.parameters["type"] == "object"
    window = next(t for t in tools if t.spec.name == "readTimelineWindow").spec.parameters
    assert set(window["properties"]) == {"from", "to", "limit"}


def test_read_slice_summary(storage: InMemoryStorage) -> None:
    ctx = _ctx(storage)
    text = ok(ctx, "readSliceSummary", sliceId="2026-07-20-1830")
    assert text.split("\n")[:4] == [
        "Slice 2026-07-20-1830",
        "Started: 20 Jul 2026, 19:30 (Europe/Lisbon) · UTC 2026-07-20T18:30:00.000Z",
        "Ended: 20 Jul 2026, 19:32 (Europe/Lisbon) · UTC 2026-07-20T18:32:00.000Z (time cap)",
        "Turns: 4",
    ]
    assert "Focus: Viewing a flat in Graça" in text and "Tags: apartment" in text
    assert "Open loops: (none)" in text and "Card change when it opened: Noted the move." in text
    assert "Ended: (still open)" in ok(ctx, "readSliceSummary", sliceId=CURRENT)


@pytest.mark.parametrize(
    ("slice_id", "words"),
    [
        ("2026-07-20", "is not a slice id"),
        ("yesterday", "YYYY-MM-DD-HHMM"),
        ("2026-07-21-0900", "There is no slice"),
    ],
)
def test_bad_or_unknown_slice_ids(storage: InMemoryStorage, slice_id: str, words: str) -> None:
    ctx = _ctx(storage)
    for tool in ("readSliceSummary", "readSlice", "readAgentTimeline", "readPreviously"):
        text = error(ctx, tool, sliceId=slice_id)
        assert words in text and "Try readTimelineWindow" in text


def test_read_slice_whole_and_ranges(storage: InMemoryStorage) -> None:
    ctx = _ctx(storage)
    whole = ok(ctx, "readSlice", sliceId="2026-07-20-1830")
    assert whole.startswith("> [time] This slice began at 20 Jul 2026, 19:30 the user's local time")
    assert "## Turn t18300 — 2026-07-20T18:30:00.000Z (local 19:30 · 4 weeks ago) (user)" in whole
    last = ok(ctx, "readSlice", sliceId="2026-07-20-1830", range={"type": "last", "count": 1})
    assert "pricing movers" in last and "Bright, a balcony" not in last
    turns = ok(ctx, "readSlice", sliceId="2026-07-20-1830", range={"type": "turns", "indices": [2]})
    assert "Bright, a balcony" in turns and "How did it feel" not in turns
    after = ok(ctx, "readSlice", sliceId="2026-07-20-1830",
               range={"type": "date", "after": "2026-07-20T18:31:00Z"})  # fmt: skip
    assert "Bright" in after and "We viewed" not in after
    found = ok(ctx, "readSlice", sliceId="2026-07-20-1830", range={"type": "search", "keywords": ["balcony"]})
    assert "Matched 1 segment for [balcony] in 2026-07-20-1830:" in found
    lines = ok(ctx, "readSlice", sliceId="2026-07-20-1830", range={"type": "lines", "start": 1, "end": 2})
    assert "Lines 1-2 of 2026-07-20-1830:\n\n---\nslice_id: 2026-07-20-1830" in lines


def test_chinese_readers_get_the_original_banner(storage: InMemoryStorage) -> None:
    text = ok(_ctx(storage, locale="zh"), "readSlice", sliceId="2026-07-20-1830", range={"type": "last"})
    assert text.startswith(
        "> [时间] 该时间片发生于用户当地时间 20 Jul 2026, 19:30（Europe/Lisbon, UTC+01:00） · 4 周前。"
    )


@pytest.mark.parametrize(
    ("rng", "words"),
    [
        ({"type": "turns", "indices": [7, 9]}, "has 4 turns, numbered 0–3"),
        ({"type": "date", "after": "last tuesday"}, "needs `after` as an ISO time"),
        ({"type": "search", "keywords": [" "]}, "needs `keywords`"),
        ({"type": "lines", "start": 9, "end": 2}, "needs `start` ≤ `end`"),
        ({"type": "lines", "start": 0, "end": 2}, "invalid arguments for readSlice: range.start"),
        ({"type": "pages"}, "range.type: Input should be"),
    ],
)
def test_bad_ranges(storage: InMemoryStorage, rng: dict[str, Any], words: str) -> None:
    assert words in error(_ctx(storage), "readSlice", sliceId="2026-07-20-1830", range=rng)


def test_timeline_window(storage: InMemoryStorage) -> None:
    ctx = _ctx(storage)
    text = ok(ctx, "readTimelineWindow", **{"from": "2026-07-01", "to": "2026-08-31", "limit": 2})
    assert text.split("\n") == [
        "Timeline 2026-07-01 → 2026-08-31 (UTC dates of slice ids): 3 slices; showing the newest 2 — narrow "
        "the dates for the rest, newest first.",
        "",
        "- **2026-08-17-1400** (08-17 Mon) *(no summary)* · 1 turn",
        "- **2026-08-12-2000** (08-12 Wed) Lease signed · 1 turn [apartment]",
    ]
    assert ok(ctx, "readTimelineWindow").startswith(
        "Timeline the beginning → now (UTC dates of slice ids): 3"
    )
    empty = ok(ctx, "readTimelineWindow", **{"from": "2025-01-01", "to": "2025-02-01"})
    runs = "The timeline runs from 2026-07-20 to 2026-08-17 (UTC dates)."
    assert empty == f"No slices in 2025-01-01 → 2025-02-01. {runs}"
    assert "must be a date like 2026-08-01" in error(ctx, "readTimelineWindow", **{"from": "July"})
    assert "is after `to`" in error(ctx, "readTimelineWindow", **{"from": "2026-08-02", "to": "2026-08-01"})
    assert "limit: Input should be less than or equal to 50" in error(ctx, "readTimelineWindow", limit=500)


def test_timeline_window_on_an_empty_memory() -> None:
    ctx = _ctx(InMemoryStorage())
    assert ok(ctx, "readTimelineWindow") == "The memory has no slices yet."


def test_read_previously(storage: InMemoryStorage) -> None:
    ctx = _ctx(storage)
    assert ok(ctx, "readPreviously") == CARD
    snapshot = ok(ctx, "readPreviously", sliceId="2026-07-20-1830")
    assert snapshot.startswith("> [time] This slice began at 20 Jul 2026") and snapshot.endswith(CARD)
    migrated = ok(ctx, "readPreviously", sliceId="2026-08-12-2000")
    assert "Format: user card v2" in migrated and "- Name: Mara" in migrated
    assert "has no card snapshot" in error(ctx, "readPreviously", sliceId=CURRENT)
    empty = _ctx(build_memory([], parse_iso(NOW)))
    assert ok(empty, "readPreviously").startswith("The user card is still empty")


def test_read_agent_timeline(storage: InMemoryStorage) -> None:
    ctx = _ctx(storage)
    assert ok(ctx, "readAgentTimeline", sliceId="2026-07-20-1830").endswith("### Thinking\nAsk.")
    assert ok(ctx, "readAgentTimeline", sliceId=CURRENT) == f"No notes were recorded for slice {CURRENT}."


def test_current_time(storage: InMemoryStorage) -> None:
    ctx = _ctx(storage, config=UserConfig(merge_config({"slicing": {"maxSliceMinutes": 45}})))
    text = ok(ctx, "currentTime")
    assert text.split("\n")[:6] == [
        "Now: 17 Aug 2026, 15:20 (Europe/Lisbon, UTC+01:00)",
        "UTC: 2026-08-17T14:20:00.000Z",
        "",
        f"This slice ({CURRENT}):",
        "- Started: 17 Aug 2026, 15:00 (Europe/Lisbon) · UTC 2026-08-17T14:00:00.000Z",
        "- Running for 20 min — 25 min left of the 45-minute cap; "
        "after that the next message opens a new slice.",
    ]
    assert "Date anchors:\n- Today: 2026-08-17 (Mon)" in text
    late = _ctx(storage, clock=FixedClock.at("2026-08-17T15:00:00.000Z"))
    assert "- Running for 60 min, past the 30-minute cap" in ok(late, "currentTime")
    outside = ok(_ctx(storage, slice_id=None), "currentTime")
    assert "This slice" not in outside


def test_memory_files(storage: InMemoryStorage) -> None:
    ctx = _ctx(storage)
    assert ok(ctx, "readMemoryFile", path="memory/notes/packing.md") == "- books\n- lamp\n"
    written = ok(ctx, "writeMemoryFile", path="tasks/movers.md", content="Call three movers.")
    assert written == "OK — tasks/movers.md (18 bytes) is saved with this turn; it creates the file."
    replaced = ok(ctx, "writeMemoryFile", path="memory/notes/packing.md", content="- books\n")
    assert replaced.endswith("it replaces the previous version.")
    assert ok(ctx, "readMemoryFile", path="tasks/movers.md") == "Call three movers."  # read-your-writes
    assert (
        ok(ctx, "listMemoryFiles", prefix="memory/notes/")
        == '1 file under "memory/notes":\nmemory/notes/packing.md'
    )
    assert ok(ctx, "listMemoryFiles", prefix="sessions") == 'No files under "sessions".'
    assert ctx.batch is not None and {str(p) for p in ctx.batch.pending_paths} == {
        "tasks/movers.md", "memory/notes/packing.md"
    }  # fmt: skip
    assert storage.commits[-1][0] == "seed", "tools never commit"


@pytest.mark.parametrize(
    ("path", "words"),
    [
        ("memory/episodic/current-previously.md", "system-owned"),
        ("memory/episodic/slices/2026/08/17/1400/timeline/core.md", "system-owned"),
        ("memory/episodic/strands.json", "system-owned"),
        ("memory/user/config.json", "holds the settings"),
        ("src/app.py", "only memory/, tasks/ and sessions/ are reachable. Try a plain relative path"),
        ("memory/../../etc/passwd", "'..'"),
        ("/memory/x.md", "relative to the memory repository root"),
        ("memory", "is a folder"),
    ],
)
def test_writes_that_are_refused(storage: InMemoryStorage, path: str, words: str) -> None:
    ctx = _ctx(storage)
    assert words in error(ctx, "writeMemoryFile", path=path, content="x")
    assert ctx.batch is not None and ctx.batch.pending_paths == []


def test_file_errors(storage: InMemoryStorage) -> None:
    ctx = _ctx(storage)
    missing = error(ctx, "readMemoryFile", path="memory/notes/none.md")
    assert 'There is no file "memory/notes/none.md". Try listMemoryFiles("memory/notes")' in missing
    assert "too large" in error(ctx, "writeMemoryFile", path="memory/big.md", content="x" * 1_000_001)
    read_only = _ctx(storage, batch=None)
    assert "read-only" in error(read_only, "writeMemoryFile", path="memory/a.md", content="x")
    assert "not allowed" in error(ctx, "listMemoryFiles", prefix="../")


def test_recall_tool_text(storage: InMemoryStorage) -> None:
    progress: list[tuple[str, str]] = []
    ctx = _ctx(storage, progress=lambda call, label: progress.append((call, label)))
    data = json.loads(ok(ctx, "recall", query="flat in Graça"))
    assert [h["slice_id"] for h in data["hits"]][:1] == ["2026-07-20-1830"]
    assert {call for call, _ in progress} == {"c1"}, "progress carries the tool call's id"
    assert "String should have at least 1 character" in error(ctx, "recall", query="")


def test_think_deep(fake_models: FakeModelServer, storage: InMemoryStorage, clock: FixedClock) -> None:
    registry = ModelRegistry(ProviderConfig(openai_base_url=fake_models.openai_base_url), clock=clock)
    ctx = _ctx(storage, models=registry.resolve(), system_prompt="FROZEN PROMPT")
    fake_models.enqueue(Reply(text="Yes: take the flat.", reasoning="Balcony beats stairs."))
    data = json.loads(ok(ctx, "thinkDeep", question="Should she take it?", effort="medium"))
    assert data == {"question": "Should she take it?", "ok": True, "status": "completed",
                    "answer": "Yes: take the flat.", "reasoning": "Balcony beats stairs."}  # fmt: skip
    sent = fake_models.model_requests()[-1]
    system = sent.body["messages"][0]["content"]
    assert system.startswith("FROZEN PROMPT\n\n## Reasoning fragment mode") and not sent.tool_names
    assert sent.last_user_text.startswith("Today is 2026-08-17 (Mon), 15:20 in Europe/Lisbon.")

    fake_models.enqueue(Reply.error(400, "context too long"))
    failed = json.loads(ok(ctx, "thinkDeep", question="q"))
    assert failed["status"] == "error" and "context too long" in failed["error"]
    assert "effort: Input should be" in error(ctx, "thinkDeep", question="q", effort="max")
    none = json.loads(ok(_ctx(storage), "thinkDeep", question="q"))
    assert none["status"] == "error" and "No model is configured" in none["error"]


def test_think_deep_keeps_what_it_had_when_time_runs_out(
    fake_models: FakeModelServer, storage: InMemoryStorage, clock: FixedClock
) -> None:
    registry = ModelRegistry(ProviderConfig(openai_base_url=fake_models.openai_base_url), clock=clock)
    ticks = iter([0.0, 0.0, 500.0, 500.0, 500.0])
    ctx = _ctx(storage, models=registry.resolve(), monotonic=lambda: next(ticks, 500.0))
    fake_models.enqueue(
        Reply(text="First half of an answer, then more.", reasoning="Step one.", chunk_size=5)
    )
    result = think_deep(ctx, "q", budget=100)
    assert result.status == "timeout" and not result.ok and result.note == TIMEOUT_NOTE
    assert result.reasoning.startswith("Step") and result.answer == ""

    fake_models.enqueue(Reply.stall(5))
    stalled = think_deep(_ctx(storage, models=registry.resolve()), "q", budget=0.3)
    assert stalled.status == "timeout"
