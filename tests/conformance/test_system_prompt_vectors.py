"""system_prompt.json: the strands menu, the overdue block, the assembled prompt's order, the
identity prompt (REFERENCE §13.1, §13.3, §6.8).

These pin the original's prompt wording; ours is our own, so each test checks the structure:
which topics in which order with which dates, which overdue items in which order under the
heading of which language, which layers in which order, and the "who you're assisting" block
between the character and the standing rules.

Deliberate difference in the menu: a path after the current slice, or one that is not a slice
path, does not rank a topic (the original sorted malformed paths above every date).

The file is not vendored (tests/conformance/vectors.py HELD_BACK): these tests run in full with
`$PREVIOUSLY_VECTORS_DIR` holding the measured set.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import pytest

from core.agent import identity_text
from core.agent import prompt_blocks as blocks
from core.agent.prompt import build_system_prompt
from core.memory.card.identity import identity_block_for
from core.memory.card.timing import overdue_block
from core.memory.config import UserConfig
from core.memory.slice.model import Slice, Turn
from core.storage.memory import InMemoryStorage
from tests.conformance.vectors import Case, shape, vectors

pytestmark = pytest.mark.conformance

V = vectors("system_prompt.json")
ANY = shape("case", "", "*")
SLICE_PATH = re.compile(r"^\d{4}/\d{2}/\d{2}/\d{4}$")


def _pick(case: Case, *names: str, default: Any = None) -> Any:
    return next((case[n] for n in names if n in case), default)


def _output(case: Case) -> str:
    out = _pick(case, "output", "menu", "block", "expected", "text")
    assert isinstance(out, str), f"{case.where}: no output string"
    return out


def _strands(case: Case) -> dict[str, list[str]]:
    found = _pick(case, "strands", "index", "strands_json")
    if found is None:
        found = next((v for v in case.data.values() if isinstance(v, Mapping)), None)
    assert isinstance(found, Mapping), f"{case.where}: no strands index"
    return {str(k): list(v) for k, v in found.items()}


def _menu_topics(menu: str) -> list[tuple[str, str | None]]:
    """(topic, MM-DD of its last slice or None) per topic of a `Known topics:` line (either language)."""
    body = re.sub(r"^(Known topics: |已知话题：)", "", menu.strip())
    if not body:
        return []
    parts = re.split(r", (?![^()]*\))|、(?![^（）]*）)", body)
    topics = []
    for part in parts:
        m = re.match(r"^(.*?)(?: \(last (\d{2}-\d{2})[^)]*\)|（最近 (\d{2}-\d{2})[^）]*）)$", part)
        topics.append((m.group(1), m.group(2) or m.group(3)) if m else (part, None))
    return topics


@pytest.mark.parametrize("case", V.cases("strands_menu", ANY))
def test_strands_menu(case: Case) -> None:
    """The same topics in the same order, each with the same last date, when every path is a
    slice path (see the module note)."""
    strands = _strands(case)
    anchor = _pick(
        case, "sliceStart", "slice_start", "anchor", "start", "now", default="2026-08-17T05:15:00.000Z"
    )
    timezone = _pick(case, "timezone", "tz", "zone")
    locale = _pick(case, "locale", "lang", default="en")
    ours = blocks.strands_menu(
        strands, before="9999/99/99/9999", anchor=anchor, timezone=timezone, locale=locale
    )
    want = _output(case)
    if not all(SLICE_PATH.match(p) for paths in strands.values() for p in paths):
        assert {t for t, _ in _menu_topics(ours)} <= {t for t, _ in _menu_topics(want)}
        return
    assert bool(ours) == bool(want.strip())
    assert _menu_topics(ours) == _menu_topics(want)


def _overdue_items(block: str) -> list[tuple[str, str]]:
    return re.findall(r"「(.+?)」（by (\d{4}-\d{2}-\d{2})）", block) or re.findall(
        r'"(.+?)" \(by (\d{4}-\d{2}-\d{2})\)', block
    )


@pytest.mark.parametrize("case", V.cases("overdue", ANY))
def test_overdue_block(case: Case) -> None:
    """The same overdue items, in order, under a heading in the same language; none → no block."""
    card = _pick(case, "card", "card_text", "content", "input")
    anchor = _pick(case, "dateAnchor", "date_anchor", "anchor", "today", "date")
    locale = _pick(case, "locale", "lang", default="en")
    assert isinstance(card, str) and isinstance(anchor, str), f"{case.where}: no card or anchor"
    ours, want = overdue_block(card, anchor[:10], locale), _output(case)
    assert bool(ours) == bool(want.strip())
    if want.strip():
        assert ours.startswith("## ") and want.startswith("## ")
        assert ("逾期" in ours.split("\n")[0]) == ("逾期" in want.split("\n")[0])
        assert _overdue_items(ours) == _overdue_items(want)


LAYER_KINDS = (
    ("card", ("## What I know about the user", blocks.card_header("").split("(")[0])),
    ("overdue", ("## Overdue commitments", "## 逾期承诺")),
    ("slice head", ("## This slice",)),
    ("topics", ("## Memory topics",)),
    ("demo", ("## Demo mode",)),
)


def _kinds(prompt: str) -> list[str]:
    order = []
    for layer in prompt.split("\n\n"):
        for kind, starts in LAYER_KINDS:
            if any(layer.startswith(s) for s in starts) and kind not in order:
                order.append(kind)
    return order


@pytest.mark.parametrize("example", V.value("assembled_example"))
def test_assembled_prompt_order(example: Case) -> None:
    """Our prompt, built with every layer present, has the example's layers in the example's order."""
    text = example.data if isinstance(example.data, str) else _pick(example, "output", "prompt", "assembled")
    assert isinstance(text, str), f"{example.where}: no assembled prompt"
    want = _kinds(text)
    assert want, f"{example.where}: no layer recognised"
    card = (
        "# Previously On\n\n_Active slice: 2026-08-17-0515 | Format: user card v2 | "
        "Updated: 2026-08-17T05:15:00.000Z_\n\n## Identity\n\n- Name: Alex\n\n## Horizon\n\n"
        "- Send the visa form — by: 2026-08-01 — refs: [2026/07/20/0900]\n"
    )
    storage = InMemoryStorage.from_texts({"memory/episodic/strands.json": '{"visa": ["2026/07/20/0900"]}'})
    current = Slice(
        slice_id="2026-08-17-0515",
        start="2026-08-17T05:15:00.000Z",
        timezone="UTC",
        turns=[Turn("t1", "2026-08-17T05:15:00.000Z", "user", "hi")],
    )
    ours = build_system_prompt(
        storage.snapshot(), current, card_text=card, config=UserConfig(), timezone="UTC", demo=True
    )
    got = _kinds(ours)
    assert [k for k in got if k in want] == want
    assert ours.startswith(identity_text.SOUL.strip()[:40])


@pytest.mark.parametrize("example", V.value("identity_prompt_example"))
def test_identity_prompt(example: Case) -> None:
    """L0 is the character, then who the user is (from the card's Identity), then the rules."""
    data = example.data
    card = _pick(example, "card", "input", "card_text") if isinstance(data, Mapping) else None
    text = _pick(example, "output", "prompt") if isinstance(data, Mapping) else data
    assert isinstance(text, str), f"{example.where}: no identity prompt"
    if isinstance(card, str):
        who = identity_block_for(card)
        layer = blocks.identity_layer(card)
        assert ("Who you're assisting" in text) == bool(who)
        if who:
            assert (
                layer.index(identity_text.SOUL.strip()[:40])
                < layer.index(who)
                < layer.index(identity_text.DIRECTIVES.strip()[:40])
            )
    else:
        assert text.strip()
