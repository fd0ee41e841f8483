"""yaml_scalars.json: every string as a mapping value and as a sequence item, and the full example."""

from __future__ import annotations

import pytest

from core.memory import matter
from core.memory.yaml_emit import dump
from core.memory.yaml_load import load_yaml
from tests.conformance.vectors import Case, shape, vectors

VECTORS = vectors("yaml_scalars.json")
CASES = VECTORS.cases("cases", shape("scalar", "value as_mapping_value as_sequence_item"))


def _framed(data: dict) -> str:
    """What the vector records: the frontmatter of a file with an empty body, framing removed."""
    text = matter.stringify(data, "")
    assert text.startswith("---\n") and text.endswith("\n---\n\n")
    return text[len("---\n") : -len("\n---\n\n")]


@pytest.mark.conformance
@pytest.mark.parametrize("case", CASES)
def test_scalar_as_mapping_value(case: Case) -> None:
    assert _framed({"k": case["value"]}) == case["as_mapping_value"]


@pytest.mark.conformance
@pytest.mark.parametrize("case", CASES)
def test_scalar_as_sequence_item(case: Case) -> None:
    assert _framed({"k": [case["value"]]}) == case["as_sequence_item"]


@pytest.mark.conformance
@pytest.mark.parametrize("case", CASES)
def test_scalar_reads_back(case: Case) -> None:
    """Our loader reads each rendering back to the same string (both shapes).

    Exception, shared with the original: gray-matter trims the dumped YAML, so a *last* value
    kept with `|+` loses its trailing newlines (whitespace only).
    """
    value = case["value"]
    if value.endswith("\n\n"):
        value = value.rstrip("\n")
    assert load_yaml(case["as_mapping_value"]) == {"k": value}
    assert load_yaml(case["as_sequence_item"]) == {"k": [value]}


@pytest.mark.conformance
@pytest.mark.parametrize("example", VECTORS.cases("full_example", shape("example", "data body output")))
def test_full_example(example: Case) -> None:
    assert matter.stringify(example["data"], example["body"]) == example["output"]
    assert "---\n" + dump(example["data"]) + "---\n" + example["body"] + "\n" == example["output"]
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
