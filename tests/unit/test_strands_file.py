"""strands.json re-rendered in place: the spliced text equals a full render, byte for byte."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.memory.catalog.strands import parse_strands, prune, render_strands, weave_tags
from core.memory.catalog.strands_file import load_strands, strands_file

pytestmark = pytest.mark.unit

# Keys the JS order treats specially (array indices, near misses), odd whitespace, CJK, emoji.
ODD = [
    "0",
    "01",
    "7",
    "2024",
    "4294967294",
    "4294967295",
    "-1",
    " Apex ",
    "apex",
    "ＡＰＥＸ",
    "工作\u3000压力",
    "🌱 garden",
    "",
]
keys = st.one_of(st.sampled_from(ODD), st.text(max_size=12))
paths = st.one_of(st.sampled_from(["2026/08/10/2130", "2024/01/02/0304", "路径", "🌿"]), st.text(max_size=10))
maps = st.dictionaries(keys, st.lists(paths, max_size=5, unique=True), max_size=12)
weaves = st.lists(st.tuples(st.lists(keys, max_size=4), paths), max_size=5)


def _full(strands: dict[str, list[str]], steps: list[tuple[list[str], str]]) -> str:
    for tags, path in steps:
        weave_tags(strands, tags, path)
    return render_strands(strands)


@settings(max_examples=300, deadline=None)
@given(maps, weaves)
def test_woven_file_equals_a_full_render(
    base: dict[str, list[str]], steps: list[tuple[list[str], str]]
) -> None:
    file = strands_file(render_strands(base))
    for tags, path in steps:
        file = file.weave(tags, path)
    assert file.text == _full({k: list(v) for k, v in base.items()}, steps)
    assert strands_file(file.text) is file  # reading back what was written costs no parse


@settings(max_examples=200, deadline=None)
@given(maps, maps)
def test_splice_of_any_change_equals_a_full_render(
    before: dict[str, list[str]], after: dict[str, list[str]]
) -> None:
    # Keys kept, dropped, added; lists grown, shrunk, reordered: one splice covers them all.
    changed = {**{k: [*v, "2026/09/01/0000"] for k, v in before.items()}, **after}
    assert strands_file(render_strands(before)).splice(changed).text == render_strands(changed)
    assert strands_file(render_strands(before)).splice(after).text == render_strands(after)


@settings(max_examples=100, deadline=None)
@given(maps, weaves)
def test_a_file_written_elsewhere_is_rendered_as_before(
    base: dict[str, list[str]], steps: list[tuple[list[str], str]]
) -> None:
    # Compact or ASCII-escaped JSON (another writer, a hand edit): same result as parse → weave → render.
    for text in (json.dumps(base), json.dumps(base, ensure_ascii=True, indent=4)):
        file = strands_file(text)
        for tags, path in steps:
            file = file.weave(tags, path)
        assert file.text == _full(parse_strands(text)[0], steps)


@pytest.mark.parametrize(
    "text",
    ["{not json", "[1, 2]", '{"a": "not a list", "b": ["x", 3]}', "", '"text"', '{"a": [', "null"],
)
def test_a_damaged_file_is_handled_as_a_plain_parse(text: str) -> None:
    strands, problems = parse_strands(text)
    file = strands_file(text)
    assert file.copy() == strands and list(file.problems) == problems
    assert file.weave(["new"], "2026/08/10/2130").text == _full(strands, [(["new"], "2026/08/10/2130")])


def test_missing_file_is_empty() -> None:
    assert strands_file(None).text == "{}" and load_strands(None) == {}
    assert strands_file(None).weave(["Garden"], "2026/08/10/2130").text == render_strands(
        {"garden": ["2026/08/10/2130"]}
    )


def test_loaded_map_is_a_copy() -> None:
    text = render_strands({"garden": ["2026/08/10/2130"]})
    load_strands(text)["garden"].append("2026/08/11/0900")
    load_strands(text)["other"] = []
    assert load_strands(text) == {"garden": ["2026/08/10/2130"]}
    assert strands_file(text).text == text


def test_prune_then_splice_equals_a_full_render() -> None:
    now = datetime(2026, 8, 11, tzinfo=UTC)
    base = {
        "2024": ["2020/01/01/0000"],
        "garden": ["2020/01/01/0000", "2026/08/10/2130"],
        "old": ["2019/05/05/0505"],
    }
    file = strands_file(render_strands(base))
    kept, gone = prune(file.copy(), now)
    assert gone == ["2024", "old"]
    assert file.splice(kept).text == render_strands(kept)
