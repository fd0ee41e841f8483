"""The js-yaml-compatible loader and emitter: types, errors, and emit→load round trips."""

from __future__ import annotations

import math
import random

import pytest

from core.errors import InvalidInput, SliceFormatError
from core.memory.formats import matter
from core.memory.formats.yaml_emit import dump, scalar
from core.memory.formats.yaml_load import YamlDate, load_yaml

pytestmark = pytest.mark.unit


def test_yaml_11_booleans_stay_strings() -> None:
    data = load_yaml("a: yes\nb: no\nc: on\nd: off\ne: true\nf: False\ng: y")
    assert data == {"a": "yes", "b": "no", "c": "on", "d": "off", "e": True, "f": False, "g": "y"}


def test_js_yaml_numbers_and_nulls() -> None:
    data = load_yaml("a: 017\nb: 0x1F\nc: 1_000\nd: 1:20\ne: 1.5\nf: .inf\ng: ~\nh:\ni: 0o17\nj: 08\nk: 1e3")
    assert data["a"] == 15 and data["b"] == 31 and data["c"] == 1000 and data["d"] == 80
    assert data["e"] == 1.5 and data["f"] == math.inf and data["g"] is None and data["h"] is None
    assert data["i"] == "0o17" and data["j"] == "08" and data["k"] == 1000.0


def test_unquoted_timestamps_keep_their_text() -> None:
    data = load_yaml("start: 2026-08-16T10:00:00.000Z\nday: 2024-01-01\nq: '2024-01-01'")
    assert data == {"start": "2026-08-16T10:00:00.000Z", "day": "2024-01-01", "q": "2024-01-01"}
    assert isinstance(data["start"], YamlDate) and isinstance(data["day"], YamlDate)
    assert not isinstance(data["q"], YamlDate)
    # …and are written back unquoted, so both parsers read the same value as before.
    assert dump(data) == "start: 2026-08-16T10:00:00.000Z\nday: 2024-01-01\nq: '2024-01-01'\n"


def test_keys_become_strings() -> None:
    assert load_yaml("1: a\ntrue: b\n~: c") == {"1": "a", "true": "b", "null": "c"}


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ("\nfocus: A: B\n", 2),
        ("\na: 1\nb: [x\n", 4),
        ("\nslice_id: x\nslice_id: y\n", 3),
        ("\na: 'open\n", 3),
    ],
)
def test_syntax_errors_name_the_file_line(text: str, line: int) -> None:
    with pytest.raises(SliceFormatError) as err:
        load_yaml(text, source="core.md frontmatter")
    assert isinstance(err.value, InvalidInput)
    assert f"line {line}" in str(err.value)
    assert "core.md frontmatter" in str(err.value)


def test_non_mapping_frontmatter_is_an_error() -> None:
    with pytest.raises(SliceFormatError, match="not a mapping"):
        matter.load_text("---\n- a\n- b\n---\nbody\n")


def test_numbers_are_written_as_js_writes_them() -> None:
    data = {
        "a": 1.0,
        "b": 0.1,
        "c": 1e21,
        "d": 1e-7,
        "e": -0.0,
        "f": math.nan,
        "g": -math.inf,
        "h": 12,
        "i": 2.5,
    }
    assert dump(data) == "a: 1\nb: 0.1\nc: 1.e+21\nd: 1.e-7\ne: -0.0\nf: .nan\ng: -.inf\nh: 12\ni: 2.5\n"


def test_nested_values_use_block_style() -> None:
    data = {"m": {"x": "1", "y": [True, None]}, "l": [{"k": "v", "w": "z"}, []], "e": {}}
    text = dump(data)
    assert text == "m:\n  x: '1'\n  'y':\n    - true\n    - null\nl:\n  - k: v\n    w: z\n  - []\ne: {}\n"
    assert load_yaml(text) == data


def test_unsupported_values_raise_instead_of_writing_garbage() -> None:
    with pytest.raises(SliceFormatError):
        dump({"a": object()})


def test_keys_are_never_block_scalars() -> None:
    assert scalar("a\nb", 1, is_key=True) == '"a\\nb"'


_PIECES = "a Z : # - ? ' \" \\ 0 1 . e y yes null 2024-01-01 中文 ： 🎉 , [ } | > & * ! % @ ` ~"
_SPACES = [" ", "  ", "\n", "\n\n", "\t", ": ", " #", "- ", "word ", "long" * 30]
_ODD = ["\u00a0", "\ufeff", "\u2028", "\r", "\x85", "\x7f"]
_ALPHABET = [*_PIECES.split(" "), *_SPACES, *_ODD]


def test_emitted_strings_read_back_unchanged() -> None:
    rng = random.Random(20260817)
    for _ in range(3000):
        value = "".join(rng.choice(_ALPHABET) for _ in range(rng.randint(1, 12)))
        data = {"k": value, "seq": [value, "x"], "z": "end"}
        assert load_yaml(dump(data)) == data, repr(value)


def test_pure_python_loader_agrees_with_libyaml() -> None:
    """The fallback used where PyYAML has no libyaml reads the same values."""
    from core.memory.formats import yaml_load

    text = "a: yes\nb: 2024-01-01\nc: [1, 0x1F, ~]\nd: |\n  two\n  lines\n'e': \"\\U0001F389\"\n"
    loader = yaml_load._PyLoader(text)
    try:
        assert loader.get_single_data() == load_yaml(text)
    finally:
        loader.dispose()
