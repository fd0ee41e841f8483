"""No turn id the product makes can read as a legacy numbered turn (`## Turn 3`), live or imported."""

from __future__ import annotations

from datetime import timedelta
from itertools import count

import pytest
from hypothesis import given
from hypothesis import strategies as st

from core.clock import RandomIds, id_of_bytes
from core.imports.model import Conversation, Message, free_turn_id, stable_id
from core.imports.plan import check_round_trip
from core.imports.timeslice import split_conversation
from core.memory.config import UserConfig
from core.memory.slice.turns import is_numeric_label
from tests.fakes.exports import T0

pytestmark = pytest.mark.unit


def _numeric_message_id(tool: str, conversation: str) -> str:
    """A message id whose first-choice import id is all digits (about 1 in 70,000 are)."""
    return next(m for n in count() if is_numeric_label(stable_id(tool, conversation, m := f"m{n}", 0)))


@pytest.mark.parametrize("last", range(256))
def test_no_live_id_is_all_digits_whatever_its_last_byte(last: int) -> None:
    # The sixth character depends only on the last byte's low 2 bits; the other 30 bits are free.
    assert id_of_bytes(bytes([0, 0, 0, last]))[5] in "AQgw"
    # Five digits first (`0` is 52 = 0b110100, five times), then the two bits left: still not numeric.
    made = id_of_bytes(bytes([0xD3, 0x4D, 0x34, 0xD0 | last & 3]))
    assert made[:5] == "00000" and not is_numeric_label(made)


@given(st.binary(min_size=4, max_size=4))
def test_a_live_id_is_six_characters_and_never_numeric(raw: bytes) -> None:
    made = id_of_bytes(raw)
    assert len(made) == 6 and not is_numeric_label(made)
    assert not is_numeric_label(RandomIds().turn_id())


def test_an_import_id_that_would_be_all_digits_takes_the_next_salt() -> None:
    mid = _numeric_message_id("jsonl", "c1")
    made = free_turn_id(set(), "jsonl", "c1", mid)
    assert not is_numeric_label(made) and made == stable_id("jsonl", "c1", mid, 1)


def test_a_conversation_whose_id_would_be_all_digits_imports_whole() -> None:
    mid = _numeric_message_id("jsonl", "c1")
    msgs = [Message(mid, "user", T0, "q"), Message("r", "agent", T0 + timedelta(seconds=5), "a")]
    [part] = split_conversation(Conversation("jsonl", "c1", "", msgs), UserConfig())
    check_round_trip(part)  # refused before: the all-digit id read back as a numbered turn
    first = part.turns[0].turn_id or ""
    assert first == part.turns[1].turn_id and not is_numeric_label(first)


@given(st.lists(st.text(min_size=1, max_size=12), min_size=1, max_size=30, unique=True))
def test_no_imported_id_is_all_digits(message_ids: list[str]) -> None:
    taken: set[str] = set()
    made = [free_turn_id(taken, "chatgpt", "conv", m) for m in message_ids]
    assert len(set(made)) == len(made) and not any(is_numeric_label(i) for i in made)
