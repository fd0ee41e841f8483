"""tool_outputs.json: what the main agent's read tools and `currentTime` return (REFERENCE §16).

The outputs are the original's wording; ours is our own (the Chinese banners and the search/lines
results, pinned in doc_segments.json, are the original's). So each call is checked for its
structure against the same memory: the tool exists under the original's name and accepts the
original's arguments; it fails (an `ERROR: …` result) exactly when the original's did; and every
slice id and UTC instant the original's answer names appears in ours (an id in either form, an
instant to the minute).

The memory the calls read is the file's `files` (or `repo`) section, paths → text; `context`
gives the slice, zone and clock. The file is not vendored (tests/conformance/vectors.py
HELD_BACK): these tests run in full with `$PREVIOUSLY_VECTORS_DIR` holding the measured set.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

import pytest

from core.agent.main_tools import main_tools
from core.agent.tool_context import ToolContext
from core.clock import FixedClock
from core.llm.types import ToolCall
from core.memory.config import UserConfig
from core.storage.base import WriteBatch
from core.storage.memory import InMemoryStorage
from tests.conformance.vectors import Case, shape, vectors

pytestmark = pytest.mark.conformance

# `files`/`repo` (the memory the calls read) are read inside the test, when the file has them.
V = vectors("tool_outputs.json").uses("files", "repo")
CALL = shape("call", "tool input output", "context *")
NEEDS_A_MODEL = frozenset({"recall", "thinkDeep", "webSearch", "webFetch"})
FACT = re.compile(r"\d{4}-\d{2}-\d{2}-\d{4}\b|\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{3})?Z")


def _memory() -> InMemoryStorage:
    data = V.data
    files = data.get("files") or data.get("repo") or {}
    assert isinstance(files, Mapping), "tool_outputs.json: `files` is not a path → text map"
    return InMemoryStorage.from_texts({str(k): str(v) for k, v in files.items()})


def _ctx(storage: InMemoryStorage, context: Mapping[str, Any]) -> ToolContext:
    now = context.get("now") or context.get("clock") or "2026-08-17T05:27:48.000Z"
    batch = WriteBatch.open(storage)
    locale = context.get("locale") or "en"
    return ToolContext(
        view=batch.snapshot,
        batch=batch,
        clock=FixedClock.at(now),
        slice_id=context.get("sliceId") or context.get("slice_id"),
        timezone=context.get("timezone") or context.get("tz"),
        locale=locale,
        config=UserConfig(),
    )


def _text(output: Any) -> str:
    return output if isinstance(output, str) else json.dumps(output, ensure_ascii=False)


@pytest.mark.parametrize("case", V.cases("calls", CALL))
def test_call(case: Case) -> None:
    name = case["tool"]
    ctx = _ctx(_memory(), case.get("context") or {})
    tools = {t.spec.name: t for t in main_tools(ctx)}
    if name in NEEDS_A_MODEL:
        assert name in tools or name.startswith("web"), f"no tool {name}"
        return
    assert name in tools, f"the original's tool {name} has no counterpart"
    result = tools[name].run(ToolCall("c1", name, dict(case["input"] or {})))
    want = _text(case["output"])
    assert result.content.startswith("ERROR") == want.startswith("ERROR"), (result.content, want)
    ours = result.content
    missing = [f for f in dict.fromkeys(FACT.findall(want)) if not _states(ours, f)]
    assert not missing, f"facts the original's answer gives that ours lacks: {missing}\n{ours}"


def _states(text: str, fact: str) -> bool:
    """Whether `text` names the slice id (either form) or the instant (to the minute)."""
    if "T" in fact:
        return fact[:16] in text
    return fact in text or fact.replace("-", "/", 3) in text
