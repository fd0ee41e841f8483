"""The sample builder's renderers against the original's vectors.

The builder implements only the YAML subset the sample needs: every vector case is run, and a
case outside the subset must be refused (never rendered differently).
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from scripts.samplekit.card import Anchor, Card, HorizonItem, NowItem, render_card, strip_comments
from scripts.samplekit.catalog import LABELS, catalog_entry, render_timeline_md, slice_line
from scripts.samplekit.formats import (
    ToolCall,
    TurnOut,
    append_cognition,
    cognition_body,
    js_json,
    render_core,
)
from scripts.samplekit.jsyaml import UnsupportedScalar, dump_mapping, render_scalar
from tests.conftest import load_vectors

pytestmark = pytest.mark.conformance

YAML = load_vectors("yaml_scalars.json")
SLICE_FORMAT = load_vectors("slice_format.json")
CARD = load_vectors("card_format.json")
TIMELINE = load_vectors("timeline_render.json")
AGENT_MD = load_vectors("agent_md.json")
OUTSIDE_SUBSET = re.compile("[\n\t\r\u0085\u00a0\ufeff\U00010000-\U0010ffff]")


@pytest.mark.parametrize("case", YAML["cases"], ids=[repr(c["value"])[:40] for c in YAML["cases"]])
def test_yaml_scalar(case: dict[str, Any]) -> None:
    value = case["value"]
    if OUTSIDE_SUBSET.search(value):
        for level in (1, 2):
            with pytest.raises(UnsupportedScalar):
                render_scalar(value, level)
        return
    assert f"k: {render_scalar(value, 1)}" == case["as_mapping_value"]
    assert f"k:\n  - {render_scalar(value, 2)}" == case["as_sequence_item"]


def test_yaml_full_example() -> None:
    example = YAML["full_example"]
    front = dump_mapping(list(example["data"].items()))
    assert f"---\n{front}\n---\n{example['body']}\n" == example["output"]


def _core_input(raw: dict[str, Any]) -> tuple[dict[str, Any], list[TurnOut]]:
    fm = {k: v for k, v in raw.items() if k not in ("turns", "closedBy", "evolutionSummary")}
    if raw["status"] == "closed" and raw.get("closedBy"):
        fm["closed_by"] = raw["closedBy"]
    if raw.get("evolutionSummary"):
        fm["evolution_summary"] = raw["evolutionSummary"]
    turns = [TurnOut(t.get("turnId") or "?", t["timestamp"], t["role"], t["content"]) for t in raw["turns"]]
    return fm, turns


@pytest.mark.parametrize("case", SLICE_FORMAT["serialize"], ids=lambda c: c["input"]["slice_id"])
def test_core_md(case: dict[str, Any]) -> None:
    fm, turns = _core_input(case["input"])
    values = [v if isinstance(v, str) else " ".join(v) for v in fm.values()]
    if any(OUTSIDE_SUBSET.search(v) for v in values):
        with pytest.raises(UnsupportedScalar):
            render_core(fm, turns)
        return
    assert render_core(fm, turns) == case["serialized"]


def test_monthly_index_json() -> None:
    monthly = SLICE_FORMAT["monthly_index"]
    assert js_json({"month": "2024-03", "slices": [monthly["entry"]]}) == monthly["serialized"]


def _card(doc: dict[str, Any]) -> Card:
    return Card(
        slice_id=doc["sliceId"],
        updated=doc["updated"],
        identity=list(doc["identity"]),
        profile=doc["past"]["profile"],
        anchors=[Anchor(a["text"], list(a["refs"])) for a in doc["past"]["anchors"]],
        now=[NowItem(n["text"], list(n["refs"]), n["since"]) for n in doc["now"]],
        horizon=[HorizonItem(h["text"], h["by"], list(h["refs"])) for h in doc["horizon"]],
        self_model=list(doc["selfModel"]),
    )


@pytest.mark.parametrize("case", CARD["serialize"], ids=lambda c: c["name"])
def test_card(case: dict[str, Any]) -> None:
    assert render_card(_card(case["doc"])) == case["serialized"]


def test_empty_card_is_the_template() -> None:
    template = CARD["new_card_template"]
    updated = re.search(r"Updated: (\S+)_", template["output"])
    assert updated
    assert render_card(Card(slice_id=template["sliceId"], updated=updated.group(1))) == template["output"]


@pytest.mark.parametrize("case", CARD["strip_inline_comments"], ids=lambda c: c["input"])
def test_inline_comments_are_stripped(case: dict[str, str]) -> None:
    assert strip_comments(case["input"]) == case["output"]


@pytest.mark.parametrize("case", TIMELINE["slice_line"], ids=lambda c: c["name"])
def test_slice_line(case: dict[str, Any]) -> None:
    assert slice_line(case["entry"], LABELS["zh"]) == case["line"]


@pytest.mark.parametrize("case", TIMELINE["render_md"], ids=lambda c: c["name"])
def test_timeline_md(case: dict[str, Any]) -> None:
    assert render_timeline_md(case["index"], LABELS["zh"]) == case["markdown"]


def test_catalog_entry_from_disk() -> None:
    example = TIMELINE["slice_entry_from_disk_example"]
    fm = {
        "slice_id": "2026-08-11-1115",
        "status": "closed",
        "start": "2026-08-11T11:15:00.000Z",
        "focus": "disk focus",
        "tags": ["x"],
        "open_loops": [],
        "decisions": [],
    }
    entry = catalog_entry(fm, 2, strand_keys=[])
    assert js_json(entry) == js_json(example["entry"])


def test_cognition_step_and_append() -> None:
    cognition = AGENT_MD["extract_cognition"]
    step = cognition["steps"][0]
    results = {r["toolCallId"]: r for m in cognition["messages"] for r in m["content"]}
    calls = []
    for call in step["toolCalls"]:
        result = results.get(call["toolCallId"])
        status = "?" if result is None else f"error: {result['output'][:200]}" if result["isError"] else "ok"
        calls.append(ToolCall(call["toolName"], call["input"], status))
    thinking = re.split(r"\n{2,}", "".join(r["text"] for r in step["reasoning"]))
    assert cognition["output"].startswith(cognition_body(thinking, calls))
    long_query = ToolCall("webSearch", {"query": "x" * 81}, "?")
    assert cognition_body([], [long_query]) in cognition["output"]
    entry = AGENT_MD["full_entry"]
    turn_id, at = re.findall(r"^## Cognition (\S+) — (\S+)\n$", entry["header"])[0]
    resulting = append_cognition(entry["existing_agent_md"], turn_id, at, entry["body"])
    assert resulting == entry["resulting_agent_md"]
    assert append_cognition("", turn_id, at, entry["body"]) == entry["header"] + entry["body"]
