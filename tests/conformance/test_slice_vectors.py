"""slice_format.json, slice_create.json, turn_parser.json, turn_merge.json: core.md bytes and parsers."""

from __future__ import annotations

import pytest

from core.memory import paths
from core.memory.escape import FLAG_KEY, FLAG_VALUE, unescape_turn
from core.memory.merge import merge_turns
from core.memory.slice import KEY_ORDER, Turn, escaped, new_slice, parse_core_md, render_core_md
from core.memory.turns import apply_range, parse_doc, parse_slice_id, slice_turn_spans
from tests.conformance.slice_shapes import assert_same_slice, slice_from_vector
from tests.conftest import load_vectors

FORMAT = load_vectors("slice_format.json")
CREATE = load_vectors("slice_create.json")
PARSER = load_vectors("turn_parser.json")
MERGE = load_vectors("turn_merge.json")

pytestmark = pytest.mark.conformance


@pytest.mark.parametrize("case", FORMAT["serialize"], ids=[c["name"] for c in FORMAT["serialize"]])
def test_serialize(case: dict) -> None:
    s = slice_from_vector(case["input"])
    text = render_core_md(s)
    if not escaped(s):
        assert text == case["serialized"]
        assert_same_slice(parse_core_md(text), case["reparsed"])
        return
    # A deliberate difference (docs/FORMAT.md, "Escaped turn text"): blank space the original
    # trims from a message is kept behind a guard; otherwise the bytes are the original's.
    assert [t.content for t in parse_core_md(text).turns] == [t.content for t in s.turns]
    assert _without_escapes(text) == case["serialized"]


def _without_escapes(text: str) -> str:
    """The file with the escape flag line removed and each turn's stored text unescaped."""
    text = text.replace(f"{FLAG_KEY}: {FLAG_VALUE}\n", "", 1)
    out, pos = [], 0
    for span in slice_turn_spans(text):
        out += [text[pos : span.content_start], unescape_turn(text[span.content_start : span.content_end])]
        pos = span.content_end
    return "".join(out) + text[pos:]


def test_frontmatter_key_order() -> None:
    # `marked_by` is ours and comes last, after the original's keys.
    assert list(KEY_ORDER) == [*FORMAT["frontmatter_key_order"], "marked_by"]


@pytest.mark.parametrize("case", FORMAT["paths"], ids=[c["id"] for c in FORMAT["paths"]])
def test_paths(case: dict) -> None:
    sid = case["id"]
    assert paths.slice_rel(sid) == case["rel"]
    assert str(paths.slice_dir(sid) / "timeline") == case["timeline_dir"]
    assert str(paths.core_md(sid)) == case["core"]
    assert str(paths.agent_md(sid)) == case["agent"]
    assert str(paths.card_snapshot(sid)) == case["previously"]


def test_create() -> None:
    want = CREATE["result"]
    first = want["turns"][0]
    s = new_slice(
        want["slice_id"],
        want["start"],
        want["timezone"],
        Turn(first["turnId"], first["timestamp"], first["role"], first["content"]),
    )
    assert_same_slice(s, want)
    assert render_core_md(s) == CREATE["serialized"]


@pytest.mark.parametrize("case", PARSER["parse"], ids=[c["name"] for c in PARSER["parse"]])
def test_slice_parser(case: dict) -> None:
    assert_same_slice(parse_core_md(case["raw"]), case["manager_parseSlice"])


@pytest.mark.parametrize("case", PARSER["parse"], ids=[c["name"] for c in PARSER["parse"]])
def test_read_tool_parser(case: dict) -> None:
    want = case["turn_parser_parseTurns"]
    doc = parse_doc(case["raw"])
    assert doc.frontmatter == want["frontmatter"]
    got = [
        {
            "index": t.index,
            "turnId": t.turn_id,
            "header": t.header,
            "timestamp": t.timestamp,
            "content": t.content,
        }
        for t in doc.turns
    ]
    assert got == want["turns"]


RANGE = PARSER["apply_range"]


@pytest.mark.parametrize("case", RANGE["cases"], ids=[str(c["range"]) for c in RANGE["cases"]])
def test_apply_range(case: dict) -> None:
    assert parse_doc(RANGE["raw"]).frontmatter == RANGE["frontmatter_text"]
    result = apply_range(RANGE["raw"], case["range"])
    assert result.selected == case["selected_indices"]
    assert result.text == case["reassembled"]


@pytest.mark.parametrize(
    "case", PARSER["parse_slice_id"], ids=[c["id"] or "(empty)" for c in PARSER["parse_slice_id"]]
)
def test_parse_slice_id(case: dict) -> None:
    parsed = parse_slice_id(case["id"])
    assert (parsed._asdict() if parsed else None) == case["parsed"]


@pytest.mark.parametrize("case", MERGE["cases"], ids=[str(i) for i in range(len(MERGE["cases"]))])
def test_turn_merge(case: dict) -> None:
    assert merge_turns(case["remote_raw"], slice_from_vector(case["local"])) == case["merged"]
