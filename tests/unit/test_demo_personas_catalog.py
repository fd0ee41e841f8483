"""`find_personas`: the personas a demo folder offers, read from each persona's `persona.json`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.errors import StorageError
from core.storage.demo import DEFAULT_PERSONA, find_personas, read_persona
from tests.conftest import SAMPLE_ROOT

pytestmark = pytest.mark.unit


def _persona(root: Path, body: object | None = None) -> Path:
    (root / "memory").mkdir(parents=True)
    if body is not None:
        text = body if isinstance(body, str) else json.dumps(body)
        (root / "persona.json").write_text(text, encoding="utf-8")
    return root


def test_the_bundled_sample_offers_nell_then_jia_and_xiaowen() -> None:
    found = find_personas(SAMPLE_ROOT)
    assert [p.id for p in found] == ["nell", "jia", "xiaowen"]
    assert found[0].root == SAMPLE_ROOT and found[1].root == SAMPLE_ROOT / "personas" / "jia"
    assert all(p.blurb.get("en") and p.blurb.get("zh") for p in found)


def test_a_folder_without_persona_json_is_the_default_persona(tmp_path: Path) -> None:
    _persona(tmp_path)
    assert [(p.id, dict(p.blurb)) for p in find_personas(tmp_path)] == [(DEFAULT_PERSONA, {})]


def test_further_personas_need_a_memory_folder_and_are_named_by_folder(tmp_path: Path) -> None:
    _persona(tmp_path, {"id": "first"})
    _persona(tmp_path / "personas" / "zoe")
    _persona(tmp_path / "personas" / "amir", {"blurb": {"en": "  two\n lines "}})
    (tmp_path / "personas" / "not-a-persona").mkdir()
    found = find_personas(tmp_path)
    assert [p.id for p in found] == ["first", "amir", "zoe"]
    assert found[1].blurb == {"en": "two lines"}


@pytest.mark.parametrize(
    ("body", "says"),
    [
        ("{not json", "not readable JSON"),
        ("[1, 2]", "expected an object"),
        ({"id": "Nell Marchetti"}, "lowercase letters"),
        ({"id": 7}, "lowercase letters"),
        ({"id": "ok", "blurb": "one line"}, "blurb must map"),
        ({"id": "ok", "blurb": {"en": 3}}, "blurb must map"),
    ],
)
def test_a_bad_persona_json_is_refused_naming_the_file(tmp_path: Path, body: object, says: str) -> None:
    _persona(tmp_path, body)
    with pytest.raises(StorageError, match=says) as err:
        find_personas(tmp_path)
    assert "persona.json" in str(err.value)


def test_a_persona_json_that_is_not_utf8_is_refused(tmp_path: Path) -> None:
    _persona(tmp_path)
    (tmp_path / "persona.json").write_bytes(b'{"id": "\xff"}')
    with pytest.raises(StorageError, match="not readable JSON"):
        find_personas(tmp_path)


def test_two_personas_with_one_id_are_refused(tmp_path: Path) -> None:
    _persona(tmp_path, {"id": "twin"})
    _persona(tmp_path / "personas" / "other", {"id": "twin"})
    with pytest.raises(StorageError, match="share an id"):
        find_personas(tmp_path)


@settings(max_examples=40, deadline=None)
@given(st.dictionaries(st.sampled_from(["en", "zh"]), st.text(min_size=1, max_size=80)))
def test_any_blurb_text_reads_back_with_its_words(
    tmp_path_factory: pytest.TempPathFactory, blurb: dict[str, str]
) -> None:
    root = _persona(tmp_path_factory.mktemp("p"), {"id": "p", "blurb": blurb})
    got = read_persona(root, "x").blurb
    assert {k: v.split() for k, v in got.items()} == {k: v.split() for k, v in blurb.items()}
