"""Tool-call labels: content-aware, every tool and state, English and Chinese."""

from __future__ import annotations

import json

import pytest

from core.agent.main_tools import TOOL_NAMES
from core.turn.labels import period, slice_when, tool_label

pytestmark = pytest.mark.unit
STATES = ("running", "completed", "error", "interrupted", "denied")
ARGS = {
    "recall": {"query": "the flat in Graça"},
    "readSliceSummary": {"sliceId": "2026-07-25-1430"},
    "readTimelineWindow": {"from": "2026-07-01", "to": "2026-07-31"},
    "readSlice": {"sliceId": "2026-07-25-1430"},
    "readPreviously": {},
    "readAgentTimeline": {"sliceId": "2026-07-25-1430"},
    "currentTime": {},
    "thinkDeep": {"question": "Should she move?"},
    "readMemoryFile": {"path": "memory/notes/a.md"},
    "writeMemoryFile": {"path": "memory/notes/a.md", "content": "x"},
    "listMemoryFiles": {"prefix": "tasks"},
    "webSearch": {"query": "balcony tomatoes"},
    "webFetch": {"url": "https://gardens.example/tomatoes?x=1"},
}


def test_the_documented_examples() -> None:
    sid = {"sliceId": "2026-07-25-1430"}
    assert tool_label("readSlice", sid, "running") == "Viewing Jul 25 14:30"
    assert tool_label("readSlice", sid, "completed") == "Viewed Jul 25 14:30"
    assert tool_label("readTimelineWindow", ARGS["readTimelineWindow"], "completed") == "Viewed Jul 2026"
    assert tool_label("recall", {"query": "q"}, "running") == 'Recalling "q"'
    two = json.dumps({"hits": [{}, {}]})
    assert (
        tool_label("recall", {"query": "q"}, "completed", output=two) == 'Recalled 2 conversations about "q"'
    )


@pytest.mark.parametrize("locale", ["en", "zh"])
@pytest.mark.parametrize("name", TOOL_NAMES)
def test_every_tool_and_state_has_a_human_label(name: str, locale: str) -> None:
    labels = [tool_label(name, ARGS[name], state, locale) for state in STATES]
    assert len(set(labels)) == len(STATES), labels
    assert all(labels)
    if name != name.lower():  # the camelCase tool name never shows through
        assert not any(name in label for label in labels)
    if locale == "zh":
        assert all(any("\u4e00" <= ch <= "\u9fff" for ch in label) for label in labels)


def test_chinese_and_local_time() -> None:
    sid = {"sliceId": "2026-07-25-1430"}
    assert tool_label("readSlice", sid, "running", "zh") == "正在查看 7月25日 14:30"
    assert (
        tool_label("readSlice", sid, "completed", "zh-CN", timezone="Asia/Shanghai") == "已查看 7月25日 22:30"
    )
    assert tool_label("readSlice", sid, "completed", timezone="America/New_York") == "Viewed Jul 25 10:30"
    assert (
        tool_label("recall", {"query": "q"}, "completed", "zh", output='{"hits": [1]}')
        == "回忆起 1 段关于“q”的对话"
    )
    assert (
        tool_label("recall", {"query": "q"}, "completed", output='{"hits": []}') == 'Found nothing about "q"'
    )


def test_odd_input_still_gets_a_label() -> None:
    assert tool_label("readSlice", {"sliceId": "nonsense"}, "running") == "Viewing a slice"
    assert tool_label("readSlice", None, "error") == "Could not open a slice"
    assert tool_label("recall", {"query": "x" * 80}, "running").endswith('…"')
    assert tool_label("recall", {"query": "q"}, "completed", output="not json") == 'Recalled "q"'
    assert tool_label("someNewTool", {}, "running") == "Using someNewTool"
    assert tool_label("webFetch", {"url": "https://a.example/"}, "completed") == "Fetched a.example"
    assert tool_label("webFetch", {}, "running") == "Fetching a page"
    assert (
        tool_label("readPreviously", {"sliceId": "2026-07-25-1430"}, "running")
        == "Reading the card from Jul 25 14:30"
    )


@pytest.mark.parametrize(
    ("start", "end", "en", "zh"),
    [
        ("2026-07-03", "2026-07-20", "Jul 3–20, 2026", " 2026年7月3日–20日"),
        ("2026-07-03", "2026-07-03", "Jul 3, 2026", " 2026年7月3日"),
        ("2026-07-03", "2026-08-02", "Jul 3 – Aug 2, 2026", " 2026年7月3日–2026年8月2日"),
        ("2025-12-30", "2026-01-02", "Dec 30, 2025 – Jan 2, 2026", " 2025年12月30日–2026年1月2日"),
        ("2026-02-01", "2026-02-28", "Feb 2026", " 2026年2月"),
        ("2026-07-20", "2026-07-03", "Jul 3–20, 2026", " 2026年7月3日–20日"),
        ("2026-07-03", None, "since Jul 3, 2026", " 2026年7月3日 以来"),
        (None, "2026-07-03", "up to Jul 3, 2026", " 2026年7月3日 以前"),
        (None, None, "the timeline", "时间线"),
        ("soon", "2026-02-30", "the timeline", "时间线"),
    ],
)
def test_periods(start: str | None, end: str | None, en: str, zh: str) -> None:
    assert period(start, end, "en") == en
    assert period(start, end, "zh") == zh


def test_slice_when_rejects_impossible_minutes() -> None:
    assert slice_when("2026-02-30-1200") == "" and slice_when("2026-07-25-2570") == ""


def test_every_tool_declares_its_label_in_every_language_the_page_speaks() -> None:
    from pathlib import Path
    from typing import get_args

    from core.agent.main_tools import TOOL_LABELS
    from core.i18n import CATALOGUES
    from core.reltime import Locale

    page = {p.stem for p in (Path(__file__).resolve().parents[2] / "web/app/i18n").glob("*.js")}
    assert set(get_args(Locale)) == page == set(CATALOGUES)
    assert set(TOOL_LABELS) == set(TOOL_NAMES)
    for name, key in TOOL_LABELS.items():
        for words in CATALOGUES.values():
            assert all(words.get(f"{key}.{state}") for state in ("running", "completed", "error")), name


def test_the_page_keeps_no_label_phrases_of_its_own() -> None:
    """The page shows the events' labels; its dictionaries hold no per-tool phrases to drift apart."""
    from pathlib import Path

    i18n = Path(__file__).resolve().parents[2] / "web/app/i18n"
    for path in i18n.glob("*.js"):
        text = path.read_text(encoding="utf-8")
        assert [n for n in TOOL_NAMES if f'"tool.{n}.' in text] == [], path.name
