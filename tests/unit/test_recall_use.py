"""The recall_verified / recall_reworked rule over a turn's tool calls (core/agent/recall/use.py)."""

from __future__ import annotations

import json

import pytest

from core.agent.recall.once import LIMIT_NOTE, REPEAT_NOTE, UNAVAILABLE
from core.agent.recall.use import RecallUse, recall_uses
from core.llm.types import ToolCall, ToolResult

pytestmark = pytest.mark.unit

CURRENT = "2026-08-17-1400"
OLD, OTHER = "2026-08-01-0800", "2026-07-02-0900"


def found(*ids: str, read: str = "") -> str:
    reads = [{"slice_id": read, "priority": "high", "reason": "r"}] if read else []
    return json.dumps({"hits": [{"slice_id": i, "relevance": 0.9, "reason": "r"} for i in ids],
                       "confidence": 0.8, "reasoning": "", "recommended_reads": reads})  # fmt: skip


def recall(cid: str, query: str) -> ToolCall:
    return ToolCall(cid, "recall", {"query": query})


def read(cid: str, slice_id: str, tool: str = "readSlice") -> ToolCall:
    return ToolCall(cid, tool, {"sliceId": slice_id})


def run(rounds: list[list[ToolCall]], contents: dict[str, str], reply: str = "") -> list[RecallUse]:
    results = {cid: ToolResult(cid, text) for cid, text in contents.items()}
    results.update({c.id: ToolResult(c.id, "ok") for calls in rounds for c in calls if c.id not in results})
    return recall_uses(rounds, results, reply, CURRENT)


def test_reading_a_hit_later_verifies_the_recall() -> None:
    uses = run([[recall("r1", "tomatoes")], [read("s1", OLD, "readSliceSummary")]], {"r1": found(OLD)})
    assert uses == [RecallUse(1, "recall_verified")]


def test_reading_a_recommended_read_in_slash_form_verifies_it() -> None:
    uses = run([[recall("r1", "tomatoes")], [read("s1", "2026/08/01/0800")]], {"r1": found(read=OLD)})
    assert uses == [RecallUse(1, "recall_verified")]


@pytest.mark.parametrize("reply", [f"See {OLD}.", "That was on 2026/08/01/0800."])
def test_a_reply_that_cites_a_hit_verifies_it(reply: str) -> None:
    assert run([[recall("r1", "tomatoes")]], {"r1": found(OLD)}, reply) == [RecallUse(1, "recall_verified")]


def test_a_reworded_recall_reworks_the_first_and_its_own_hit_verifies_the_second() -> None:
    rounds = [[recall("r1", "tomatoes")], [recall("r2", "vegetable garden")], [read("s1", OTHER)]]
    uses = run(rounds, {"r1": found(OLD), "r2": found(OTHER)})
    assert uses == [RecallUse(1, "recall_reworked"), RecallUse(2, "recall_verified")]


def test_reading_a_slice_the_recall_did_not_return_reworks_it() -> None:
    uses = run([[recall("r1", "tomatoes")], [read("s1", OTHER)]], {"r1": found(OLD)})
    assert uses == [RecallUse(1, "recall_reworked")]


def test_an_empty_recall_followed_by_a_reworded_one_is_reworked() -> None:
    uses = run([[recall("r1", "tomatoes")], [recall("r2", "garden")]], {"r1": found(), "r2": found()})
    assert uses == [RecallUse(1, "recall_reworked")]


def test_no_later_use_and_no_rework_records_nothing() -> None:
    assert run([[recall("r1", "tomatoes")]], {"r1": found(OLD)}, "I could not say.") == []


def test_reading_the_current_slice_is_not_rework() -> None:
    assert run([[recall("r1", "tomatoes")], [read("s1", CURRENT)]], {"r1": found(OLD)}) == []


def test_calls_of_the_same_round_do_not_count() -> None:
    rounds = [[recall("r1", "tomatoes"), read("s1", OLD), recall("r2", "garden")]]
    assert run(rounds, {"r1": found(OLD), "r2": found()}) == []


def test_repeats_failures_and_limits_are_no_scans_but_a_limited_reword_still_counts() -> None:
    rounds = [[recall("r1", "tomatoes")], [recall("r2", "Tomatoes?"), recall("r3", "x"), recall("r4", "y")]]
    contents = {
        "r1": found(OLD),
        "r2": f"{REPEAT_NOTE}\n\n{found(OLD)}",
        "r3": f"{UNAVAILABLE} the worker is down",
        "r4": LIMIT_NOTE.format(n=3),
    }
    assert run(rounds, contents) == [RecallUse(1, "recall_reworked")]


def test_an_error_result_or_junk_json_is_ignored() -> None:
    rounds = [[recall("r1", "a"), recall("r2", "b")], [read("s1", OLD)]]
    results = {"r1": ToolResult("r1", found(OLD), is_error=True), "r2": ToolResult("r2", '[1, 2]'),
               "s1": ToolResult("s1", "ok")}  # fmt: skip
    assert recall_uses(rounds, results, "", CURRENT) == []


def test_hits_that_are_not_a_list_count_as_an_empty_scan() -> None:
    uses = run([[recall("r1", "a")], [read("s1", OLD)]], {"r1": '{"hits": 3, "recommended_reads": "x"}'})
    assert uses == [RecallUse(1, "recall_reworked")]
