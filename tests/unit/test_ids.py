"""core/ids.py: each identifier parses its valid forms, refuses the rest with a message that says
what one looks like, and reads back as the same text."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from core.clock import RandomIds, SequentialIds, id_of_bytes
from core.errors import InvalidInput
from core.ids import DayKey, PictureName, RepoName, RunId, RunName, TurnId, is_legacy_number
from core.imports.model import free_turn_id

pytestmark = pytest.mark.unit

CASES = {
    TurnId: (
        ["kQ3x_A", "t00001", "a", "-", "0a", "x" * 64],
        ["", "123", "a.b", "a b", "x" * 65, "ab\n", "é"],
    ),
    RunId: (["kQ3x_A", "run1", "123", "x" * 64], ["", "a.b", "a/b", "x" * 65, "run1\n"]),
    RunName: (
        ["evolve-current", "evolve-" + "x" * 64, "turn-1"],
        ["", "..", "a.b", "a/b", "x" * 81, "a\n"],
    ),
    DayKey: (
        ["2026-01-02", "2024-02-29"],
        ["2026-1-2", "2026-02-30", "２０２６-01-02", "2026-01-02\n", "20260102"],
    ),
    RepoName: (["me/memory", "a.b/c_d-e"], ["me", "me/", "/memory", "a/b/c", "me/mem ory", "me/memory\n"]),
    PictureName: (
        ["kQ3x_A-1.png", "a-b-12.webp", "123-1.jpg"],
        ["a-1.gif", "a-123.png", "a-1.png.b64", "-1.png"],
    ),
}


@pytest.mark.parametrize("kind", list(CASES), ids=lambda k: k.__name__)
def test_valid_ids_parse_and_read_back_as_the_same_text(kind: type[TurnId]) -> None:
    for text in CASES[kind][0]:
        parsed = kind.parse(text)
        assert isinstance(parsed, kind) and str(parsed) == text and parsed == text
        assert kind.parse(parsed) is parsed  # parsing a parsed id is free
        assert re.fullmatch(kind.PATTERN, text) and len(text) <= kind.MAX_LENGTH  # the schema agrees


@pytest.mark.parametrize("kind", list(CASES), ids=lambda k: k.__name__)
def test_invalid_ids_are_refused_with_what_one_looks_like(kind: type[TurnId]) -> None:
    for text in CASES[kind][1]:
        assert kind.try_parse(text) is None
        with pytest.raises(InvalidInput) as caught:
            kind.parse(text)
        message = str(caught.value)
        assert kind.KIND in message and kind.EXAMPLE in message and f'"{text}"' in message
    assert kind.try_parse(None) is None and kind.try_parse(12) is None


@pytest.mark.parametrize("kind", list(CASES), ids=lambda k: k.__name__)
def test_the_schema_pattern_with_the_length_is_the_same_rule(kind: type[TurnId]) -> None:
    # What FastAPI checks (PATTERN, MAX_LENGTH) refuses what parse refuses — except the calendar.
    for text in CASES[kind][1]:
        schema_ok = re.fullmatch(kind.PATTERN.rstrip("$") + r"\Z", text) and len(text) <= kind.MAX_LENGTH
        assert not schema_ok or (kind is DayKey and DayKey.has_shape(text))


def test_the_messages_read_well() -> None:
    with pytest.raises(InvalidInput, match=r'Invalid turn id "123": .*not all digits, e\.g\. kQ3x_A\.'):
        TurnId.parse("123")
    with pytest.raises(InvalidInput, match='Invalid repository "me": owner/name'):
        RepoName.parse("me")
    with pytest.raises(InvalidInput, match='Invalid day "2026-13-01": a date YYYY-MM-DD'):
        DayKey.parse("2026-13-01")


def test_the_parts_of_an_id() -> None:
    name = PictureName.parse("a-b-12.webp")
    assert (name.turn, name.number, name.ext) == ("a-b", 12, "webp")
    assert PictureName.from_file("a-1.png.b64") == ("a-1.png", True)
    assert PictureName.from_file("a-1.png") == ("a-1.png", False)
    assert PictureName.from_file("a-1.txt") is None
    repo = RepoName.parse("me/memory")
    assert (repo.owner, repo.name) == ("me", "memory")
    assert DayKey.parse("2026-01-02").as_date.isoformat() == "2026-01-02"
    assert DayKey.parts("2026-02-30") == (2026, 2, 30) and DayKey.try_parse("2026-02-30") is None
    assert repr(TurnId.parse("ab")) == "TurnId('ab')"


@given(st.binary(min_size=4, max_size=4))
def test_no_generated_turn_id_parses_as_a_legacy_number(raw: bytes) -> None:
    for made in (id_of_bytes(raw), RandomIds().turn_id(), SequentialIds().turn_id()):
        assert TurnId.parse(made) == made and not is_legacy_number(made)


@given(st.lists(st.text(min_size=1, max_size=12), min_size=1, max_size=20, unique=True))
def test_no_imported_turn_id_parses_as_a_legacy_number(message_ids: list[str]) -> None:
    taken: set[str] = set()
    for m in message_ids:
        made = free_turn_id(taken, "chatgpt", "conv", m)
        assert TurnId.parse(made) == made and not is_legacy_number(made)


@given(st.from_regex(r"[0-9]{1,64}", fullmatch=True))
def test_a_legacy_number_is_never_a_turn_id(label: str) -> None:
    assert is_legacy_number(label) and TurnId.try_parse(label) is None
