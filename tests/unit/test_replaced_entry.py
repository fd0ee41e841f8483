"""A taken-back exchange's `(replaced)` entry reads back word for word: `parse_replaced_body`
is the inverse of `replaced_body` through agent.md's writer and reader, for any text."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.actions.retract import is_replaced, parse_replaced_body, replaced_body
from core.memory.slice.agent_parts import entries_for, queue_entry, read_parts
from core.memory.slice.model import Turn
from core.storage.base import WriteBatch
from core.storage.memory import InMemoryStorage

pytestmark = pytest.mark.unit
SID = "2026-08-11-1115"
AT = "2026-08-11T11:20:00.000Z"
# Text that stresses the fences and the entry marks, plus anything at all.
TEXT = st.one_of(
    st.lists(
        st.sampled_from(
            ["a", " ", "\n", "\r", "\u2028", "`", "```", "### Replaced reply\n", "## Cognition x\n"]
        ),
        max_size=30,
    ).map("".join),
    st.text(max_size=200),
)


def _written_and_read(turns: list[Turn]) -> list[tuple[str, str]]:
    storage = InMemoryStorage()
    batch = WriteBatch.open(storage)
    queue_entry(batch, SID, f"t1 — {AT} (replaced)", replaced_body(turns), once_for=None)
    batch.commit("take back")
    [entry] = entries_for(read_parts(storage.snapshot(), SID), "t1")
    assert is_replaced(entry.label)
    return parse_replaced_body(entry.body)


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow])
@given(message=TEXT, reply=st.one_of(st.none(), TEXT))
def test_the_taken_back_words_read_back_exactly(message: str, reply: str | None) -> None:
    turns = [Turn("t1", AT, "user", message)]
    if reply is not None:
        turns.append(Turn("t1", AT, "agent", reply))
    assert _written_and_read(turns) == [(t.role, t.content) for t in turns]


def test_a_body_not_as_written_reads_as_far_as_it_is() -> None:
    assert parse_replaced_body("") == []
    assert parse_replaced_body("### Replaced message\n\n```\nunclosed") == []
    ok = "### Replaced message\n\n```\nhi\n```\n\n### Replaced reply\n\nno fence"
    assert parse_replaced_body(ok) == [("user", "hi")]
