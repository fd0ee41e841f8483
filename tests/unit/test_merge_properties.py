"""The conflict merge loses nothing: every remote and every local turn is in the result, once."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.memory.slice.merge import merge_slices, merge_turns, turn_key
from core.memory.slice.model import Slice, Turn, parse_core_md, render_core_md

pytestmark = pytest.mark.unit
SID = "2026-08-16-1000"

IDS = st.sampled_from(["t1", "t2", "t3", None])
ROLES = st.sampled_from(["user", "agent"])
CONTENT = st.sampled_from(["hello", "answer", "", "x" * 70, "x" * 64 + "tail", "multi\n\nline"])
TURN = st.builds(
    lambda i, r, c, m: Turn(i, f"2026-08-16T10:0{m}:00.000Z", r, c, None if i else str(m + 1)),
    IDS,
    ROLES,
    CONTENT,
    st.integers(0, 3),
)
TAGS = st.lists(st.sampled_from(["api", "design", "rust"]), max_size=3, unique=True)


def _slice(turns: list[Turn], tags: list[str], focus: str) -> Slice:
    return Slice(SID, focus=focus, start="2026-08-16T09:55:00.000Z", timezone="UTC", tags=tags, turns=turns)


@given(st.lists(TURN, max_size=5), st.lists(TURN, max_size=5), TAGS, TAGS)
@settings(max_examples=300, deadline=None)
def test_merge_keeps_every_turn_once(
    remote_turns: list[Turn], local_turns: list[Turn], rt: list[str], lt: list[str]
) -> None:
    remote, local = _slice(remote_turns, rt, "remote"), _slice(local_turns, lt, "stale")
    merged = merge_slices(remote, local)
    assert merged.turns[: len(remote.turns)] == remote.turns  # the remote's turns first, as they were
    keys = [turn_key(t) for t in merged.turns]
    for t in local.turns:
        assert turn_key(t) in keys  # no local turn is lost
    assert merged.focus == "remote" and merged.tags == list(dict.fromkeys([*rt, *lt]))
    assert merge_slices(merged, local).turns == merged.turns  # merging again changes nothing


@given(st.lists(TURN, min_size=1, max_size=4), st.lists(TURN, max_size=4))
@settings(max_examples=200, deadline=None)
def test_merge_through_the_file_reads_back(remote_turns: list[Turn], local_turns: list[Turn]) -> None:
    remote_text = render_core_md(_slice(remote_turns, [], "remote"))
    merged = parse_core_md(merge_turns(remote_text, _slice(local_turns, [], "stale")))
    got = [(t.role, t.content) for t in merged.turns]
    assert got[: len(remote_turns)] == [(t.role, t.content) for t in remote_turns]
    keys = {turn_key(t) for t in merged.turns}
    for t in local_turns:  # a turn with the same id and role is the same turn: the remote's copy wins
        assert turn_key(t) in keys
