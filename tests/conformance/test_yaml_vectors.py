"""yaml_scalars.json: every string as a mapping value and as a sequence item, and the full example.

One deliberate difference (docs/FORMAT.md, core/memory/formats/matter.py): gray-matter trims the dumped
YAML, so in the original a *last* value that ends in blank space containing a line break
(`two\n\n`, `\n`, ` \n`) loses that end; we keep it. Everything else is the original's bytes.
"""

from __future__ import annotations

import pytest

from core.memory.formats import matter
from core.memory.formats.yaml_emit import dump
from core.memory.formats.yaml_load import load_yaml
from core.text import js_trim
from tests.conformance.slice_shapes import assert_original_bytes
from tests.conformance.vectors import Case, shape, vectors

VECTORS = vectors("yaml_scalars.json")
CASES = VECTORS.cases("cases", shape("scalar", "value as_mapping_value as_sequence_item"))


def _framed(data: dict) -> str:
    """What the vector records: the frontmatter of a file with an empty body, framing removed."""
    text = matter.stringify(data, "")
    assert text.startswith("---\n") and text.endswith("\n---\n\n")
    return text[len("---\n") : -len("\n---\n\n")]


def _same_as_original(ours: str, original: str) -> None:
    """Our framing is the original's, or the original's plus the blank end it trimmed away."""
    if ours != original:
        assert js_trim(ours) == original, "differs beyond the kept blank end"
        assert ours.startswith(original) and not ours[len(original) :].strip(" \n")


@pytest.mark.conformance
@pytest.mark.parametrize("case", CASES)
def test_scalar_as_mapping_value(case: Case) -> None:
    _same_as_original(_framed({"k": case["value"]}), case["as_mapping_value"])


@pytest.mark.conformance
@pytest.mark.parametrize("case", CASES)
def test_scalar_as_sequence_item(case: Case) -> None:
    _same_as_original(_framed({"k": [case["value"]]}), case["as_sequence_item"])


def _read_file_yaml(framed: str) -> dict:
    """A file's frontmatter holding `framed` (as the vector shows it), read as we read files."""
    return matter.load(matter.split(f"---\n{framed}\n---\n"))


@pytest.mark.conformance
@pytest.mark.parametrize("case", CASES)
def test_scalar_reads_back(case: Case) -> None:
    """The original's bytes, in a file, read back to the same string (both shapes) — except the
    blank end the original's trim dropped, which no reader can restore (then only that is missing)."""
    value = case["value"]
    for data, framed in (
        (lambda v: {"k": v}, case["as_mapping_value"]),
        (lambda v: {"k": [v]}, case["as_sequence_item"]),
    ):
        got = _read_file_yaml(framed)
        if _framed(data(value)) == framed:
            assert got == data(value)
        else:
            text = got["k"] if isinstance(got["k"], str) else got["k"][0]
            assert value.startswith(text) and not value[len(text) :].strip(" \n")


@pytest.mark.conformance
@pytest.mark.parametrize("case", CASES)
def test_our_rendering_reads_back_whole(case: Case) -> None:
    """Every value comes back exactly from what we write: alone, as the last key, in a list."""
    value = case["value"]
    for data in ({"k": value}, {"k": [value]}, {"a": value, "k": [value, value]}, {"k": [value], "z": value}):
        text = matter.stringify(data, "")
        assert matter.load(matter.split(text)) == data, text


@pytest.mark.conformance
@pytest.mark.parametrize("example", VECTORS.cases("full_example", shape("example", "data body output")))
def test_full_example(example: Case) -> None:
    assert_original_bytes(matter.stringify(example["data"], example["body"]), example["output"])
    assert_original_bytes(
        "---\n" + dump(example["data"]) + "---\n" + example["body"] + "\n", example["output"]
    )
    split = matter.split(example["output"])
    assert matter.load(split) == example["data"]
    assert split.body == example["body"] + "\n"


@pytest.mark.conformance
@pytest.mark.parametrize("note", VECTORS.value("note_empty_string"))
def test_empty_string_in_a_list(note: Case) -> None:
    """The note: '' never reaches core.md as a value (the key is dropped) but can be a list item."""
    assert "arrays" in note.data
    assert _framed({"k": [""]}) == "k:\n  - ''"
    assert load_yaml("k:\n  - ''") == {"k": [""]}
