"""Cutting conversations into slices, and any text surviving the way in (or refused whole)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.errors import InvalidInput, TooLarge
from core.imports.model import Attachment, Conversation, Message
from core.imports.plan import _Found, allocate, check_round_trip
from core.imports.timeslice import SLICE_BYTE_BUDGET, build_slice, split_conversation
from core.imports.writer import queue_new_slice
from core.memory import paths
from core.memory.config import UserConfig
from core.memory.slice.model import parse_core_md
from core.storage.base import WriteBatch
from core.storage.memory import InMemoryStorage
from core.text import js_trim
from tests.fakes.exports import T0

pytestmark = pytest.mark.unit


def _conv(*texts: str, gap: timedelta = timedelta(seconds=30)) -> Conversation:
    roles = ("user", "agent")
    msgs = [Message(f"m{i}", roles[i % 2], T0 + gap * i, t) for i, t in enumerate(texts)]
    return Conversation("jsonl", "c1", "Title", msgs)


def test_a_user_turn_and_its_reply_share_an_id_and_a_second_reply_gets_its_own() -> None:
    conv = _conv("q", "a")
    conv.messages.append(Message("m2", "agent", T0 + timedelta(minutes=2), "more"))
    [part] = split_conversation(conv, UserConfig())
    ids = [t.turn_id for t in part.turns]
    assert ids[0] == ids[1] != ids[2] and len(set(ids)) == 2


def test_a_message_over_the_slice_budget_is_cut_across_slices_byte_for_byte() -> None:
    big = ("word " * (SLICE_BYTE_BUDGET // 2)) + " 京都😀 end\n"
    parts = split_conversation(_conv(big, "reply"), UserConfig())
    assert len(parts) == 3
    texts = [t.content for p in parts for t in p.turns]
    assert "".join(texts[:-1]) == big and texts[-1] == "reply"
    assert {t.turn_id for p in parts for t in p.turns} == {parts[0].turns[0].turn_id}
    assert [p.closed_by for p in parts] == ["capacity", "capacity", "time_cap"]
    assert len({p.key for p in parts}) == 3
    for p in parts:
        check_round_trip(p)
        assert len(paths_size(p)) <= paths.MAX_FILE_BYTES


def paths_size(part: object) -> bytes:
    from core.memory.slice.model import render_core_md

    return render_core_md(build_slice(part, "2024-01-01-0000")).encode()  # type: ignore[arg-type]


def test_slices_close_before_their_file_would_outgrow_the_cap() -> None:
    chunk = "y" * 300_000
    parts = split_conversation(_conv(chunk, chunk, chunk, chunk), UserConfig())
    assert [len(p.turns) for p in parts] == [2, 2] and parts[0].closed_by == "capacity"


def test_an_attachment_over_the_file_cap_is_refused_by_name() -> None:
    conv = _conv("see file")
    conv.attachments.append(Attachment("m0", "huge.txt", "z" * 1_000_001))
    with pytest.raises(TooLarge, match=r"attachment 'huge\.txt' of message m0"):
        split_conversation(conv, UserConfig())


def test_ids_probe_the_next_free_minute_past_other_slices() -> None:
    storage = InMemoryStorage.from_texts({"memory/episodic/slices/2024/03/04/0900/timeline/core.md": "x"})
    parts = [p for c in (_conv("a"), _conv("b")) for p in split_conversation(c, UserConfig())]
    found = [_Found(f"k{i}", p.start, "c", p.turn_hashes) for i, p in enumerate(parts)]
    planned = allocate(found, storage.snapshot())
    assert [p.slice_id for p in planned] == ["2024-03-04-0901", "2024-03-04-0902"]


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.text(min_size=1, max_size=200), min_size=1, max_size=4))
def test_any_text_reads_back_verbatim_or_is_refused_whole(texts: list[str]) -> None:
    conv = _conv(*texts)
    if not any(js_trim(t) for t in texts):
        return
    conv.messages = [m for m in conv.messages if js_trim(m.content)]
    conv.messages = [Message(m.message_id, m.role, m.timestamp, js_trim(m.content)) for m in conv.messages]
    storage = InMemoryStorage()
    try:
        parts = split_conversation(conv, UserConfig())
        for part in parts:
            check_round_trip(part)
    except InvalidInput:
        assert storage.files == {}
        return
    batch = WriteBatch.open(storage)
    for i, part in enumerate(parts):
        queue_new_slice(batch, build_slice(part, f"2024-03-04-09{i:02d}"))  # one id per part
    batch.commit("test")
    read = [
        t
        for i in range(len(parts))
        for t in parse_core_md(storage.files[paths.core_md(f"2024-03-04-09{i:02d}")]).turns
    ]
    assert [(t.role, t.content) for t in read] == [(m.role, m.content) for m in conv.messages]


def test_a_message_id_used_twice_is_refused() -> None:
    conv = _conv("a", "b")
    conv.messages[1] = Message("m0", "agent", conv.messages[1].timestamp, "b")
    with pytest.raises(InvalidInput, match="message id 'm0' appears twice"):
        split_conversation(conv, UserConfig())


def test_an_imported_slice_is_named_by_its_conversation_title_else_its_opening() -> None:
    [part] = split_conversation(_conv("Message 0: thinking about thesis and jazz", "ok"), UserConfig())
    titled = build_slice(part, "2024-03-04-0900")
    assert titled.focus == "Title" and titled.marked_by == "fallback"
    assert titled.summary  # the rule's summary still fills the rest
    untitled_conv = _conv("Message 0: thinking about thesis and jazz", "ok")
    untitled_conv.title = "  "
    [bare] = split_conversation(untitled_conv, UserConfig())
    assert build_slice(bare, "2024-03-04-0900").focus.startswith("Opened with: Message 0")
