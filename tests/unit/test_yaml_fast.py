"""The fast reader for plain frontmatter reads what the full js-yaml-compatible loader reads.

The property: on every text the fast reader accepts, its values (and their types: a YamlDate,
an int, a float, None...) are the full loader's. Inputs are frontmatter-like YAML: plain,
quoted and block scalars, block lists, dates, numbers, CJK, colons, `#`, quotes and dashes.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.memory.formats import matter
from core.memory.formats.yaml_emit import dump
from core.memory.formats.yaml_fast import load_plain_mapping
from core.memory.formats.yaml_load import YamlDate, load_yaml, load_yaml_node

pytestmark = pytest.mark.unit

# Characters that matter to YAML's plain-scalar rules, plus CJK and other printable text.
_ALPHABET = "ab Zy:#-'\"?!&*|>%@`,[]{}~.+_0123456789eExoTtNnFf\\/<=\xa0家人工作压力—é😀"
_WORDS = [
    "",
    "~",
    "null",
    "Null",
    "true",
    "False",
    "yes",
    "no",
    "on",
    "0",
    "007",
    "08",
    "0x1F",
    "0b101",
    "1_000",
    "1:20",
    "1.5",
    "1e3",
    ".inf",
    "-.inf",
    ".nan",
    "-1",
    "+2",
    "2024-01-01",
    "2026-08-16T10:00:00.000Z",
    "2026-08-16 10:00:00",
    "2024-1-1",
    "12:30",
    "<<",
    "-",
    "--",
    "---",
    "...",
    "a: b",
    "a #b",
    "a#b",
    "a:",
    ":a",
    "?a",
    "- a",
    "-a",
    "家人",
    "工作压力: 高",
    "#tag",
    "it's",
    'say "hi"',
    "C:\\path",
    "http://x.y/z?q=1#f",
]

_text = st.one_of(st.sampled_from(_WORDS), st.text(alphabet=_ALPHABET, max_size=14))
_keys = st.one_of(
    st.sampled_from(["slice_id", "focus", "tags", "start", "end", "a-b", "_x", "true", "null", "Y", "k"]),
    st.from_regex(r"[A-Za-z_][A-Za-z0-9_-]{0,6}", fullmatch=True),
)


def _single(s: str) -> str:
    return "'" + s.replace("'", "''") + "'"


@st.composite
def _scalar(draw: st.DrawFn) -> str:
    """One value as it may appear after `key: ` or `- `: plain, quoted, or malformed."""
    s = draw(_text)
    style = draw(st.sampled_from(["plain", "plain", "single", "double", "broken"]))
    if style == "plain":
        return s
    if style == "single":
        return _single(s)
    if style == "double":
        return '"' + s + '"'
    return draw(st.sampled_from(["'", '"', "'" + s, s + "'", s + " ", " " + s, s + " # c"]))


@st.composite
def _value(draw: st.DrawFn) -> str:
    """The rest of a `key:` line and any lines below it."""
    kind = draw(st.sampled_from(["scalar", "scalar", "empty", "flow", "list", "block"]))
    if kind == "scalar":
        return " " * draw(st.integers(1, 2)) + draw(_scalar())
    if kind == "empty":
        return ""
    if kind == "flow":
        return " " + draw(st.sampled_from(["[]", "{}", "[a]", "{a: 1}", "[ ]"]))
    if kind == "list":
        indent = " " * draw(st.sampled_from([0, 2, 2, 4]))
        items = draw(st.lists(_scalar(), min_size=1, max_size=4))
        nested = draw(st.sampled_from(["", "", f"\n{indent}  more", f"\n{indent}    - deeper"]))
        return "".join(f"\n{indent}- {item}" for item in items) + nested
    header = draw(st.sampled_from(["|", "|-", ">", ">-", "|+", ">2-"]))
    indent = " " * draw(st.sampled_from([1, 2, 2, 4]))
    lines = draw(st.lists(st.one_of(_text, st.just(" x"), st.just("")), min_size=1, max_size=4))
    return " " + header + "".join(f"\n{indent}{line}" for line in lines)


@st.composite
def _frontmatter(draw: st.DrawFn) -> str:
    keys = draw(st.lists(_keys, min_size=1, max_size=6))
    body = "\n".join(f"{key}:{draw(_value())}" for key in keys)
    extra = draw(st.sampled_from(["", "", "", "\n", "\n\n", "\n# comment", "\n\nz: 1", "\n\tt: 1"]))
    return "\n" + body + extra + "\n"


def _typed(value: Any) -> Any:
    """A value with every leaf's type beside it (so YamlDate ≠ str, 1 ≠ 1.0 ≠ True)."""
    if isinstance(value, dict):
        return ("dict", [(key, _typed(item)) for key, item in value.items()])
    if isinstance(value, list):
        return ("list", [_typed(item) for item in value])
    return (type(value).__name__, repr(value))


def _full(text: str) -> Any:
    data, _ = load_yaml_node(text)
    return data


@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_frontmatter())
def test_fast_reader_agrees_with_the_full_loader(text: str) -> None:
    fast = load_plain_mapping(text)
    if fast is not None:
        assert _typed(fast) == _typed(_full(text)), repr(text)


@settings(max_examples=800, deadline=None)
@given(st.text(alphabet=_ALPHABET + "\n\t\r", max_size=60))
def test_fast_reader_agrees_on_arbitrary_text(text: str) -> None:
    fast = load_plain_mapping(text)
    if fast is not None:
        assert _typed(fast) == _typed(_full(text)), repr(text)


@settings(max_examples=500, deadline=None)
@given(
    st.dictionaries(
        st.from_regex(r"[a-z_]{1,8}", fullmatch=True),
        st.one_of(_text, st.lists(_text, max_size=4), st.text(alphabet=_ALPHABET + "\n", max_size=120)),
        min_size=1,
        max_size=6,
    )
)
def test_fast_reader_agrees_on_what_the_product_writes(data: dict[str, Any]) -> None:
    text = dump(data)
    fast = load_plain_mapping(text)
    if fast is not None:
        assert _typed(fast) == _typed(_full(text)), repr(text)


def test_a_slice_frontmatter_takes_the_fast_reader() -> None:
    text = (
        "---\nslice_id: 2023-01-01-1156\nfocus: Meeting at 10:30, visa#2.\nstatus: closed\n"
        "start: '2023-01-01T11:56:20.000Z'\nend: 2023-01-01T12:10:47.000Z\nsummary: >-\n"
        "  Garden review weekend gift deadline deadline editor sleep repair release novel\n"
        "  lease test hike.\nopen_loops: []\ndecisions:\n  - Rain landlord hike knee coffee.\n"
        "tags:\n  - recipe\n  - 家人\nturns: 12\nloops: []\nemotional_tone: negative\n---\nbody\n"
    )
    yaml_text = matter.split(text).yaml_text + "\n"
    fast = load_plain_mapping(yaml_text)
    assert fast is not None and _typed(fast) == _typed(_full(yaml_text))
    assert fast["focus"] == "Meeting at 10:30, visa#2."
    assert isinstance(fast["end"], YamlDate) and not isinstance(fast["start"], YamlDate)
    assert fast["summary"].endswith("novel lease test hike.") and fast["turns"] == 12
    assert matter.load(matter.split(text)) == fast


@pytest.mark.parametrize(
    "text",
    [
        "a: 1\na: 2\n",  # a duplicated key is the full loader's error
        "a: b: c\n",
        "a: x # note\n",
        "# only\na: 1\n",
        "a:\n  b: 1\n",
        "a: plain\n  continued\n",
        "a: 'open\n",
        'a: "esc\\n"\n',
        "a: &x 1\nb: *x\n",
        "a: !!str 1\n",
        "a: [1, 2]\n",
        "a: |\n  x\n\n  y\n",
        "a: >\n  x\n    more\n",
        "a:\n  - x\n\n  - y\n",
        "a:\tb\n",
        "a: b\r\n",
        "true: x\n",
        "<<: {}\n",
        "- a\n",
        "",
    ],
)
def test_anything_else_goes_to_the_full_loader(text: str) -> None:
    assert load_plain_mapping(text) is None


def test_errors_still_come_from_the_full_loader() -> None:
    from core.errors import SliceFormatError

    with pytest.raises(SliceFormatError, match="line 2"):
        load_yaml("a: 1\na: 2\n")
