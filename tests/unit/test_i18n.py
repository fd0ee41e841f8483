"""The server's words: one catalogue per language (core/i18n), the same keys in each, and no
Chinese text in any other production module — except the ones listed here, each with its reason."""

from __future__ import annotations

import re
from pathlib import Path
from string import Formatter

import pytest

from core.i18n import CATALOGUES, any_of, t

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parents[2]
CJK = re.compile(r"[\u3000-\u303f\u4e00-\u9fff\uff00-\uffef]")
CATALOGUE = {"core/i18n/zh.py", "core/i18n/en.py", "core/i18n/__init__.py"}  # examples in comments
# Chinese that is data, not the server's words: what the code reads (time words, card headings,
# the tokenizer's script ranges) or what the model reads (prompt blocks written in both languages).
DATA = {
    "core/search/timezh.py": "Chinese time expressions the search parses",
    "core/search/timewords.py": "time words the search recognises",
    "core/search/tokenize.py": "the tokenizer's CJK handling",
    "core/memory/card/identity.py": "the card's Chinese headings (file format)",
    "core/memory/card/timing.py": "the card's Chinese date words (file format)",
    "core/memory/card/migrate.py": "older cards' Chinese headings (file format)",
    "core/memory/slice/slicer.py": "Chinese words the slicer reads in a conversation",
    "core/memory/catalog/timeline_md.py": "timeline.md's Chinese labels (a memory file's bytes)",
    "core/turn/remark.py": "recognises the Chinese fallback focus written into slices",
    "core/agent/prompt_blocks.py": "prompt text the model reads",
    "core/reltime_blocks.py": "the prompt's time banner and date anchors, which the model reads",
    "core/reltime.py": (
        "relative-time words ('3 天前', weekdays, date anchors) used only in prompts and tool results,"
        " which the model reads (a result is shown to the user only as the raw record of what the"
        " model was given); pinned byte for byte by tests/conformance/test_relative_time.py"
    ),
    "core/agent/timeline_brief.py": "the timeline lines the model reads",
    "core/agent/recall/tools.py": "recall's prompt and tool text the model reads",
    "core/agent/recall/scan.py": "recall's prompt text the model reads",
    "core/agent/recall/once.py": "full-width punctuation trimmed from a query",
    "core/memory/card/model.py": "full-width parentheses in a card heading (file format)",
    "core/memory/paths.py": "a comment's example of full-width digits the id parser refuses",
    "core/ids.py": "a comment's example of full-width digits the day-key parser refuses",
    "core/actions/briefing.py": "Chinese topic words it strips from a focus ('聊聊…'), read not shown",
}


def _fields(text: str) -> set[str]:
    return {name for _, name, _, _ in Formatter().parse(text) if name}


def test_both_catalogues_have_the_same_keys_and_placeholders() -> None:
    en, zh = CATALOGUES["en"], CATALOGUES["zh"]
    assert set(en) == set(zh)
    assert {k: _fields(v) for k, v in en.items()} == {k: _fields(v) for k, v in zh.items()}
    page_style = re.compile(r"^[a-z][a-zA-Z0-9]*(\.[a-z][a-zA-Z0-9]*)+$")  # like web/app/i18n: a.b.c
    assert [k for k in en if not page_style.match(k)] == []


def test_no_module_outside_the_catalogue_holds_chinese_text() -> None:
    allowed = CATALOGUE | set(DATA)
    found = set()
    for top in ("core", "functions", "infra", "layers"):
        for path in (ROOT / top).rglob("*.py"):
            rel = str(path.relative_to(ROOT))
            if CJK.search(path.read_text(encoding="utf-8")):
                found.add(rel)
    assert sorted(found - allowed) == []
    assert sorted(set(DATA) - found) == [], "an exception no longer needed: remove it"


def test_t_fills_in_and_falls_back_to_english() -> None:
    assert t("briefing.overdue", "zh-CN", text="订票", by="1月9日") == "订票（原定 1月9日 前）"
    assert t("briefing.overdue", "fr", text="Book", by="Jan 9") == "Book (was due Jan 9)"
    assert any_of(["A", "B", "C"], "en") == "A, B, C" and any_of(["A", "B", "C"], "zh") == "A、B 或 C"
    with pytest.raises(KeyError):
        t("no.such.key", "en")
