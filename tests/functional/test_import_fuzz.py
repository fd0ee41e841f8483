"""Crafted exports: any change to a ChatGPT or Claude export's shape, and any bytes as Markdown or
JSON Lines, is read or refused with the product's own error (a 4xx naming what is wrong) — never
another exception, which would be a 500 over HTTP and a traceback in the CLI."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.errors import InvalidInput, TooLarge
from core.imports.run import preview
from core.imports.source import ExportFile
from core.storage.memory import InMemoryStorage
from tests.fakes.exports import chatgpt_corpus, claude_corpus

pytestmark = pytest.mark.functional
SETTINGS = settings(
    max_examples=int(os.environ.get("FUZZ_EXAMPLES", "60")),
    deadline=None,
    suppress_health_check=list(HealthCheck),
    database=None,
)
CORPORA = {"chatgpt": chatgpt_corpus()[0], "claude": claude_corpus()[0]}
JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=8,
)


def _paths(value: Any, here: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every place in a JSON document a value could be swapped."""
    found = [here]
    if isinstance(value, dict):
        for key, item in value.items():
            found += _paths(item, (*here, key))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            found += _paths(item, (*here, i))
    return found


def _swapped(document: Any, where: tuple[Any, ...], value: Any) -> Any:
    if not where:
        return value
    copy = json.loads(json.dumps(document))
    holder = copy
    for step in where[:-1]:
        holder = holder[step]
    holder[where[-1]] = value
    return copy


def _outcome(path: Path, fmt: str) -> None:
    try:
        preview(ExportFile(path, fmt), InMemoryStorage())
    except (InvalidInput, TooLarge) as exc:
        assert str(exc).strip(), "a refusal says what is wrong"


@SETTINGS
@given(fmt=st.sampled_from(sorted(CORPORA)), data=st.data(), value=JSON_VALUES)
def test_any_shape_change_is_read_or_refused_in_words(
    fmt: str, data: st.DataObject, value: Any, tmp_path_factory: pytest.TempPathFactory
) -> None:
    document = CORPORA[fmt]
    where = data.draw(st.sampled_from(_paths(document)))
    path = tmp_path_factory.mktemp("export") / "conversations.json"
    path.write_text(json.dumps(_swapped(document, where, value)), encoding="utf-8")
    _outcome(path, fmt)


@SETTINGS
@given(
    fmt=st.sampled_from(["markdown", "jsonl"]),
    raw=st.binary(max_size=400) | st.text(max_size=400).map(str.encode),
)
def test_any_bytes_as_markdown_or_json_lines_are_read_or_refused(
    fmt: str, raw: bytes, tmp_path_factory: pytest.TempPathFactory
) -> None:
    path = tmp_path_factory.mktemp("export") / ("notes.md" if fmt == "markdown" else "chat.jsonl")
    path.write_bytes(raw)
    _outcome(path, fmt)


@pytest.mark.parametrize(
    ("fmt", "content"),
    [
        ("claude", json.dumps([{"uuid": "c1", "name": "Trip", "chat_messages": [{"content": "x"}]}])),
        ("claude", json.dumps([{"uuid": "c1", "chat_messages": [{"sender": "human", "files": {}}]}])),
        ("chatgpt", "[" * 100_000),
        ("markdown", "\udcff"),
    ],
)
def test_the_cli_refuses_a_crafted_export_in_one_line(fmt: str, content: str, tmp_path: Path) -> None:
    from tests.functional.cli_env import run

    path = tmp_path / "export.json"
    path.write_bytes(content.encode("utf-8", "surrogateescape"))
    code, out, err = run("import", "--format", fmt, str(path), "--memory", str(tmp_path / "m"), "--dry-run")
    assert code != 0 and "Traceback" not in out + err
    assert len([line for line in err.splitlines() if line.strip()]) == 1, err
    assert not (tmp_path / "m" / "memory").exists() or not list((tmp_path / "m" / "memory").rglob("core.md"))
