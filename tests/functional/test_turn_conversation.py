"""A scripted conversation through the whole turn, on a local folder and on the GitHub stand-in.

Three turns: the first opens a slice; the second uses a tool; the third arrives after the time
cap, so the first slice closes (marked by the analyzer, indexed, strands consolidated, an old
dry slice backfilled) and a new slice opens with a freshly frozen prompt.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core.clock import FixedClock
from core.memory.catalog.index import read_index
from core.memory.paths import STRANDS_JSON, agent_md, core_md
from core.storage.local import LocalStorage
from tests.fakes.brain import ANALYZER, CONSOLIDATOR, MAIN, MARKER, Brain, analysis
from tests.fakes.fake_github import FakeGitHub
from tests.fakes.fake_model_server import FakeModelServer, Reply, ToolCall
from tests.fakes.slices import slice_text
from tests.functional.turn_support import Harness, assert_gap_free, make_harness, types_of

pytestmark = pytest.mark.functional

FIRST, SECOND = "2026-08-11-1115", "2026-08-11-1150"
DRY = "2026-07-01-0900"
# 26 strands of two slices each (none pruned), two of them duplicates the consolidator merges.
SEED_STRANDS = {f"topic {i:02d}": [f"2026/06/{i % 28 + 1:02d}/0800", "2026/07/01/0900"] for i in range(24)}
SEED_STRANDS |= {"tomato": ["2026/05/01/0800", "2026/07/01/0900"], "tomatoes": ["2026/05/02/0800"]}
SEED = {
    str(core_md(DRY)): slice_text(DRY, [("user", "Just saying hi."), ("agent", "Hi there!")]),
    str(STRANDS_JSON): json.dumps(SEED_STRANDS, indent=2),
}


@pytest.fixture(params=["local", "github"])
def harness(request: pytest.FixtureRequest, tmp_path: Path, fake_models: FakeModelServer) -> Harness:
    clock = FixedClock.at("2026-08-11T11:15:00.000Z")
    if request.param == "local":
        for rel, text in SEED.items():
            (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
            (tmp_path / rel).write_text(text, encoding="utf-8")
        h = make_harness(LocalStorage(tmp_path), clock, fake_models)
    else:
        github: FakeGitHub = request.getfixturevalue("fake_github")
        github.commit_files(dict(SEED), "seed")
        h = make_harness(github.client(), clock, fake_models)
    return h


def script(brain: Brain, current_slice: str) -> None:
    brain.reports[ANALYZER] = analysis(["garden"])
    brain.main(
        Reply(text="Lovely! What will you grow first?", reasoning="A gardening plan."),
        Reply(tool_calls=[ToolCall("readSlice", {"sliceId": current_slice})]),
        Reply(text="You said you are planning a vegetable garden, starting with tomatoes."),
    )


def test_three_turns_close_consolidate_and_reopen(harness: Harness) -> None:
    brain = harness.brain
    assert brain is not None
    script(brain, FIRST)

    # Turn 1: a new slice.
    first = harness.turn("I'm planning my vegetable garden.")
    assert first.status == "done" and first.slice_id == FIRST
    assert first.reply == "Lovely! What will you grow first?"
    assert_gap_free(first.events)
    steps = [t for t in types_of(first.events) if not t.startswith("model.call@")]
    assert steps[:3] == ["step.started@save", "turn.started@save", "step.done@save"]
    started = next(e for e in first.events if e["type"] == "turn.started")
    assert (started["slice_opened"], started["slice_closed"], started["user_turn_id"]) == (
        True,
        None,
        "t00001",
    )
    assert [e["type"] for e in first.events if e["type"] in ("turn.done", "turn.error")] == ["turn.done"]
    assert harness.storage.commits == ["Turn t00001 — user message", "Turn t00001 — agent response"]

    # Turn 2: one tool round, same slice.
    harness.clock.advance(minutes=5)
    second = harness.turn(
        "Tomatoes. What did I tell you a moment ago?", client_slice_id=FIRST, agent_turns_seen=1
    )
    assert second.status == "done" and second.slice_id == FIRST
    assert_gap_free(second.events)
    calls = [(e["state"], e["tool"]) for e in second.events if e["type"] == "tool.call"]
    assert calls == [("running", "readSlice"), ("completed", "readSlice")]
    assert "step.started@tools" in types_of(second.events)
    assert harness.storage.commits[2:] == ["Turn t00002 — user message", "Turn t00002 — agent response"]
    slice1 = harness.slice(FIRST)
    assert [(t.turn_id, t.role) for t in slice1.turns] == [
        ("t00001", "user"),
        ("t00001", "agent"),
        ("t00002", "user"),
        ("t00002", "agent"),
    ]
    assert slice1.tags == ["garden"] and slice1.status == "active"
    cognition = harness.read(str(agent_md(FIRST))) or ""
    assert "## Cognition t00001 — " in cognition and "### Thinking\nA gardening plan." in cognition
    assert f'- `readSlice`(sliceId: "{FIRST}") → ok' in cognition
    prompts = brain.system_prompts()
    assert len(prompts) == 3 and len(set(prompts)) == 1, "one frozen prompt for every round of the slice"

    # Turn 3: 35 minutes after the slice started: it closes by its time cap.
    brain.reports[ANALYZER] = analysis(
        ["garden"],
        closed_marking={
            "focus": "Garden planning",
            "summary": "Planned a vegetable garden, tomatoes first.",
            "tags": ["garden", "tomatoes"],
            "tone": "positive",
        },
        evolve_card={"worth": False, "reason": "Nothing lasting."},
    )
    brain.reports[CONSOLIDATOR] = {"merges": [{"from": "tomato", "to": "tomatoes", "reason": "plural"}]}
    brain.reports[MARKER] = {"focus": "A greeting", "summary": "Said hello."}
    brain.main("Welcome back! How are the seedlings?")
    harness.clock.advance(minutes=30)
    third = harness.turn("Back again — the seedlings sprouted!", client_slice_id=FIRST, agent_turns_seen=2)
    assert third.status == "done" and third.slice_id == SECOND
    assert_gap_free(third.events)
    started = next(e for e in third.events if e["type"] == "turn.started")
    assert (started["slice_opened"], started["slice_closed"]) == (True, FIRST)
    skipped = [e for e in third.events if e["type"] == "card.skipped"]
    assert len(skipped) == 1 and skipped[0]["step"] == "evolve"
    assert harness.storage.commits[4:] == [
        "Turn t00003 — user message",
        # The reply first: the close-time passes run after it.
        "Turn t00003 — agent response",
        f"Turn t00003 — close slice {FIRST}",
        # The close-time passes are states of their own, each its own commit.
        f"Turn t00003 — strands for slice {FIRST}",
        f"Turn t00003 — catalog for slice {FIRST}",
        f"Turn t00003 — index for slice {FIRST}",
        "Turn t00003 — after",
    ]

    closed = harness.slice(FIRST)
    assert (closed.status, closed.closed_by, closed.focus) == ("closed", "time_cap", "Garden planning")
    assert closed.end == closed.turns[-1].timestamp == "2026-08-11T11:20:00.000Z"
    assert closed.tags == ["garden", "tomatoes"] and closed.emotional_tone == "positive"
    assert closed.marked_by == ""
    new = harness.slice(SECOND)
    assert [t.content for t in new.turns] == [
        "Back again — the seedlings sprouted!",
        "Welcome back! How are the seedlings?",
    ]

    prompts = brain.system_prompts()
    assert prompts[-1] != prompts[0], "the new slice freezes a new prompt"
    assert "2026-08-11T11:50:00.000Z" in prompts[-1] and "2026-08-11T11:50:00.000Z" not in prompts[0]

    strands = harness.strands()
    assert "tomato" not in strands
    assert set(strands["tomatoes"]) == {
        "2026/05/02/0800",
        "2026/05/01/0800",
        "2026/07/01/0900",
        "2026/08/11/1115",
    }
    before = {p for paths in SEED_STRANDS.values() for p in paths} | {"2026/08/11/1115"}
    assert before <= {p for paths in strands.values() for p in paths}, "no slice path is ever lost"

    dry = harness.slice(DRY)
    assert (dry.focus, dry.summary) == ("A greeting", "Said hello.")
    catalog = read_index(harness.storage.snapshot())  # index.json + the entries still pending
    assert catalog is not None
    entries = {e["id"]: e for e in catalog["slices"]}
    assert entries[FIRST]["status"] == "closed" and entries[FIRST]["focus"] == "Garden planning"
    assert entries[DRY]["needs_marking"] is False
    assert any(p.startswith("memory/episodic/search/") for p in harness.files())
    assert len(brain.requests[MAIN]) == 4 and brain.pending == 0


def test_an_explicit_request_evolves_the_card_mid_slice(tmp_path: Path, fake_models: FakeModelServer) -> None:
    clock = FixedClock.at("2026-08-11T11:15:00.000Z")
    h = make_harness(LocalStorage(tmp_path), clock, fake_models)
    assert h.brain is not None
    h.brain.main("Hello!", "Noted — no meat, ever.")
    h.turn("Hi there.")
    h.brain.reports[ANALYZER] = analysis(
        ["food"], memory_update={"content": "The user is vegetarian.", "section": "identity"}
    )
    h.brain.reports["finish"] = Reply(
        tool_calls=[
            ToolCall("add_self_model", {"text": "Never suggest meat dishes: the user is vegetarian."}),
            ToolCall("finish", {"reasoning": "Asked to.", "summary": "Noted that you are vegetarian."}),
        ]
    )
    clock.advance(minutes=1)
    state = h.turn("Remember that I am vegetarian.", client_slice_id=FIRST, agent_turns_seen=1)
    evolved = [e for e in state.events if e["type"] == "card.evolved"]
    assert len(evolved) == 1 and evolved[0]["step"] == "analyze"
    assert evolved[0]["summary"] == "Noted that you are vegetarian."
    assert "+- Never suggest meat dishes" in evolved[0]["diff"]
    card = h.read("memory/episodic/current-previously.md") or ""
    assert "Never suggest meat dishes: the user is vegetarian." in card
    assert h.read(f"memory/episodic/slices/{FIRST.replace('-', '/')}/previously.md") == card
    assert h.slice(FIRST).evolution_summary == "Noted that you are vegetarian."
    assert state.slice_id == FIRST, "an explicit request never opens a new slice"
    prompts = h.brain.system_prompts()
    assert prompts[0] == prompts[1], "the slice's prompt stays frozen after a mid-slice evolution"
    told = h.brain.requests["main"][1].last_user_text
    assert told.startswith("Remember that I am vegetarian.") and "Noted that you are vegetarian." in told
    assert h.slice(FIRST).turns[2].content == "Remember that I am vegetarian.", "the note is not stored"
