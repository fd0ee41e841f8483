"""One recall per question per turn: a repeat is answered from the first result, with a note."""

from __future__ import annotations

import threading
import time

import pytest
from hypothesis import given
from hypothesis import strategies as st

from core.agent.recall.once import LIMIT_NOTE, MAX_SCANS, REPEAT_NOTE, RecallMemo, question_key
from core.llm.types import AssistantMessage, ToolCall, ToolResult

pytestmark = pytest.mark.unit


def counting_scan(text: str = "hits: 2026-08-01-0900") -> tuple[list[int], object]:
    runs: list[int] = []

    def scan() -> str:
        runs.append(1)
        return text

    return runs, scan


def test_the_same_question_is_answered_from_the_first_result() -> None:
    memo = RecallMemo()
    runs, scan = counting_scan()
    assert memo.answer("Kyoto trip", scan) == "hits: 2026-08-01-0900"  # type: ignore[arg-type]
    again = memo.answer("  kyoto   TRIP? ", scan)  # type: ignore[arg-type]
    assert again == f"{REPEAT_NOTE}\n\nhits: 2026-08-01-0900" and len(runs) == 1


def test_distinct_questions_are_bounded() -> None:
    memo = RecallMemo()
    runs, scan = counting_scan()
    for n in range(MAX_SCANS):
        memo.answer(f"topic {n}", scan)  # type: ignore[arg-type]
    assert memo.answer("one more", scan) == LIMIT_NOTE.format(n=MAX_SCANS)  # type: ignore[arg-type]
    assert len(runs) == MAX_SCANS


def test_a_failed_scan_may_be_tried_again() -> None:
    memo = RecallMemo()
    runs, scan = counting_scan("[recall unavailable] timeout. This looks transient — you may retry once.")
    memo.answer("garden", scan)  # type: ignore[arg-type]
    memo.answer("garden", scan)  # type: ignore[arg-type]
    assert len(runs) == 2


def test_seeded_from_the_turns_earlier_rounds() -> None:
    history = [
        AssistantMessage("", (ToolCall("c1", "recall", {"query": "Kyoto"}), ToolCall("c2", "readSlice", {}))),
        ToolResult("c1", f"{REPEAT_NOTE}\n\nfirst result"),
        ToolResult("c2", "slice text"),
    ]
    memo = RecallMemo.from_history(history)
    runs, scan = counting_scan()
    assert memo.answer("kyoto", scan) == f"{REPEAT_NOTE}\n\nfirst result" and runs == []  # type: ignore[arg-type]
    assert memo.scans == 1


def test_parallel_calls_for_one_question_run_one_scan() -> None:
    memo = RecallMemo()
    runs: list[int] = []

    def slow() -> str:
        runs.append(1)
        time.sleep(0.05)
        return "result"

    out: list[str] = []
    threads = [threading.Thread(target=lambda: out.append(memo.answer("same", slow))) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(runs) == 1 and sorted(out)[-1] == "result" and len(out) == 3


@given(st.text(max_size=80))
def test_question_key_is_stable(text: str) -> None:
    key = question_key(text)
    assert question_key(key) == key
    assert question_key(f"  {text.upper()}  ") == question_key(text.upper())
