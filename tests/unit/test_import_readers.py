"""The export readers: ChatGPT's tree, Claude's blocks, the simple formats, the streaming reader."""

from __future__ import annotations

import io
import json
from datetime import timedelta
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.errors import InvalidInput
from core.imports import chatgpt, claude, stream
from core.imports.chatgpt import BRANCH_TITLE
from core.imports.simple import read_jsonl, read_markdown
from core.imports.stream import iter_json_array
from core.text import js_trim
from tests.fakes.exports import T0, ChatGPTConversation, chatgpt_corpus, claude_corpus

pytestmark = pytest.mark.unit


def _by_id(raw: list[dict], conv_id: str, key: str = "conversation_id") -> dict:
    return next(c for c in raw if c.get(key) == conv_id or c.get("uuid") == conv_id)


def test_chatgpt_shown_branch_becomes_the_turns_in_order_with_their_times() -> None:
    raw, visible = chatgpt_corpus()
    for conv_raw, want in zip(raw, visible, strict=True):
        conv = chatgpt.read_conversation(conv_raw, 0, ["file-AbC123-cat.png"])
        assert [(m.role, m.timestamp, m.content) for m in conv.messages] == [
            (v.role, v.time, v.text) for v in want
        ]


def test_chatgpt_abandoned_branches_and_hidden_rows_are_kept_aside_never_dropped() -> None:
    raw, _ = chatgpt_corpus()
    conv = chatgpt.read_conversation(_by_id(raw, "c-kyoto"), 0)
    kept = {(a.title, m.content) for a in conv.asides for m in a.messages}
    assert (BRANCH_TITLE, "An answer that was regenerated.") in kept
    assert (BRANCH_TITLE, "What about Nara?") in kept
    assert ("Custom instructions (not a turn)", "I live in Osaka.\n\nAnswer briefly.") in kept
    assert ("The model's reasoning (not a turn)", "Weighing tea\nUji is close.") in kept
    assert ("A call to a tool (not a turn)", "```python\nsearch('uji tea')\n```") in kept
    assert ("A tool row (not a turn)", "uji: 3 results") in kept
    assert all(m.content not in {"", "uji: 3 results"} for m in conv.messages)


def test_chatgpt_image_is_named_in_the_turn_and_its_file_kept_for_storing() -> None:
    raw, _ = chatgpt_corpus()
    conv = chatgpt.read_conversation(_by_id(raw, "c-photo"), 0, ["x/file-AbC123-cat.png"])
    assert conv.messages[0].content.endswith("[image: x/file-AbC123-cat.png]")
    assert [(p.message_id, p.member, p.image) for p in conv.pictures] == [
        (conv.messages[0].message_id, "x/file-AbC123-cat.png", None)
    ]
    assert not any("image" in s.what for s in conv.skipped)


def test_chatgpt_image_missing_from_the_export_is_named_and_skipped() -> None:
    raw, _ = chatgpt_corpus()
    conv = chatgpt.read_conversation(_by_id(raw, "c-photo"), 0, [])
    assert conv.messages[0].content.endswith("[image: file-service://file-AbC123]")
    assert conv.pictures == []
    assert [(s.what, s.why) for s in conv.skipped if "image" in s.what] == [
        ("image file-service://file-AbC123", chatgpt.MISSING_WHY)
    ]


def test_chatgpt_image_in_an_abandoned_branch_is_not_stored() -> None:
    c = ChatGPTConversation("c-b", "b")
    first = c.say("user", "hi", T0)
    pointer = {"content_type": "image_asset_pointer", "asset_pointer": "file-service://file-Q"}
    c.add("user", ["old", pointer], T0 + timedelta(minutes=1), parent=first, content_type="multimodal_text")
    c.current = first
    c.say("user", "new", T0 + timedelta(minutes=2))
    conv = chatgpt.read_conversation(c.export(), 0, ["file-Q.png"])
    assert conv.pictures == []
    assert ("image file-Q.png", chatgpt.IMAGE_WHY) in [(s.what, s.why) for s in conv.skipped]


def test_chatgpt_unknown_content_type_is_kept_as_text() -> None:
    c = ChatGPTConversation("c-x", "x")
    c.add("assistant", {"content_type": "sonic_future", "widget": {"a": 1}}, T0, content_type="sonic_future")
    conv = chatgpt.read_conversation(c.export(), 0)
    assert conv.messages[0].content == '{"widget": {"a": 1}}'


def test_chatgpt_missing_current_node_takes_the_newest_leaf_and_says_so() -> None:
    c = ChatGPTConversation("c-y", "y")
    c.say("user", "hi", T0)
    data = c.export()
    del data["current_node"]
    conv = chatgpt.read_conversation(data, 0)
    assert [m.content for m in conv.messages] == ["hi"]
    assert any(s.what == "current_node" for s in conv.skipped)


@pytest.mark.parametrize(
    ("change", "named"),
    [
        (lambda d: d.pop("mapping"), "field `mapping`"),
        (lambda d: d["mapping"][d["current_node"]]["message"].update(create_time="soon"), "create_time"),
        (lambda d: d["mapping"][d["current_node"]].update(message=[1]), "field `message`"),
    ],
)
def test_chatgpt_malformed_input_names_the_conversation_and_the_field(change: Any, named: str) -> None:
    c = ChatGPTConversation("c-bad", "Broken one")
    c.say("user", "hi", T0)
    data = c.export()
    change(data)
    with pytest.raises(InvalidInput) as err:
        chatgpt.read_conversation(data, 3)
    assert "'Broken one' (c-bad)" in str(err.value) and named in str(err.value)


def test_claude_text_blocks_are_the_turn_other_blocks_kept_aside_attachments_kept() -> None:
    raw, visible = claude_corpus()
    for conv_raw, want in zip(raw, visible, strict=True):
        conv = claude.read_conversation(conv_raw, 0)
        assert [(m.role, m.timestamp, m.content) for m in conv.messages] == [
            (v.role, v.time, v.text) for v in want
        ]
    notes = claude.read_conversation(_by_id(raw, "k-notes", "uuid"), 0)
    assert [a.text for a in notes.attachments] == ["Line one\n## Turn x — y (user)\nline three"]
    titles = [a.title for a in notes.asides]
    assert titles == [
        "The model's thinking (not a turn)",
        "A call to a tool (not a turn)",
        "A tool's result (not a turn)",
    ]
    assert any("photo.jpg" in s.what for s in notes.skipped)


def test_claude_bad_sender_and_time_are_named() -> None:
    raw, _ = claude_corpus()
    conv = json.loads(json.dumps(raw[1]))
    conv["chat_messages"][1]["sender"] = "robot"
    with pytest.raises(InvalidInput, match=r"'Notes' \(k-notes\): message m2: field `sender`"):
        claude.read_conversation(conv, 0)
    conv = json.loads(json.dumps(raw[1]))
    conv["chat_messages"][0]["created_at"] = "yesterday"
    with pytest.raises(InvalidInput, match="message m1: field `created_at`"):
        claude.read_conversation(conv, 0)


@pytest.mark.parametrize(
    ("value", "problem"), [(None, "is missing or not text (None)"), ("soon", "is not an ISO time ('soon')")]
)
def test_a_bad_message_time_names_the_field_in_every_reader(value: Any, problem: str) -> None:
    raw, _ = claude_corpus()
    conv = json.loads(json.dumps(raw[1]))
    conv["chat_messages"][0]["created_at"] = value
    with pytest.raises(InvalidInput) as claude_err:
        claude.read_conversation(conv, 0)
    assert str(claude_err.value).endswith(f"message m1: field `created_at` {problem}.")
    row = {"conversation": "a", "role": "user", "time": value, "text": "hi"}
    with pytest.raises(InvalidInput) as jsonl_err:
        list(read_jsonl([json.dumps(row)], "f.jsonl"))
    assert str(jsonl_err.value) == f"f.jsonl line 1: field `time` {problem}."


def test_jsonl_groups_consecutive_lines_and_refuses_a_split_conversation() -> None:
    lines = [
        json.dumps(
            {"conversation": "a", "title": "A", "role": "user", "time": "2024-01-01T10:00:00Z", "text": "hi"}
        ),
        "",
        json.dumps(
            {"conversation": "a", "role": "assistant", "time": "2024-01-01T10:00:05Z", "text": " yo "}
        ),
        json.dumps(
            {"conversation": "b", "role": "human", "time": "2024-01-01T11:00:00Z", "text": "x", "id": "m9"}
        ),
    ]
    a, b = read_jsonl(lines, "f.jsonl")
    assert (a.title, [(m.message_id, m.role, m.content) for m in a.messages]) == (
        "A",
        [("0", "user", "hi"), ("1", "agent", " yo ")],
    )
    assert [m.message_id for m in b.messages] == ["m9"]
    split = [*lines, lines[0]]
    with pytest.raises(InvalidInput, match="line 5: conversation 'a' appeared earlier"):
        list(read_jsonl(split, "f.jsonl"))
    with pytest.raises(InvalidInput, match="line 1: field `role`"):
        list(
            read_jsonl([json.dumps({"conversation": "a", "role": "bot", "time": "x", "text": ""})], "f.jsonl")
        )


def test_markdown_keeps_message_text_verbatim_including_headings() -> None:
    text = (
        "# Conversation: trip — Kyoto\n"
        "## user — 2024-05-01T10:00:00Z\n"
        "Plan?\n\n# not a conversation line\n### Heading\n"
        "## assistant — 2024-05-01T10:00:30Z\n"
        "Sure.\n"
        "# Conversation: next\n"
        "## human — 2024-05-02T10:00:00Z\n"
        "Again\n"
    )
    trip, nxt = read_markdown(io.StringIO(text), "t.md", "t")
    assert (trip.conversation_id, trip.title) == ("trip", "Kyoto")
    assert [m.content for m in trip.messages] == ["Plan?\n\n# not a conversation line\n### Heading", "Sure."]
    assert trip.messages[1].timestamp - trip.messages[0].timestamp == timedelta(seconds=30)
    assert (nxt.conversation_id, nxt.messages[0].role) == ("next", "user")
    with pytest.raises(InvalidInput, match="line 1: text before the first message header"):
        list(read_markdown(io.StringIO("hello\n## user — 2024-05-01T10:00:00Z\nx\n"), "t.md", "t"))


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.recursive(
            st.none() | st.booleans() | st.integers() | st.text(),
            lambda kids: st.lists(kids, max_size=3) | st.dictionaries(st.text(max_size=5), kids, max_size=3),
            max_leaves=8,
        ),
        max_size=6,
    ),
    st.integers(min_value=1, max_value=7),
)
def test_stream_reads_any_array_as_json_does_whatever_the_chunk_size(items: list, chunk: int) -> None:
    old = stream.CHUNK_CHARS
    stream.CHUNK_CHARS = chunk
    try:
        text = json.dumps(items, ensure_ascii=False, indent=1)
        assert list(iter_json_array(io.StringIO(text), "f")) == items
    finally:
        stream.CHUNK_CHARS = old


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"a": 1}', "does not hold a JSON list"),
        ('[{"a": 1}', "the file ends"),
        ('[{"a": 1}, {"b": tru}]', "entry 1 is not valid JSON"),
        ("[1] trailing", "text after the closing"),
        ("[1,", "cut off"),
    ],
)
def test_stream_names_the_broken_entry(text: str, message: str) -> None:
    with pytest.raises(InvalidInput, match=message):
        list(iter_json_array(io.StringIO(text), "conversations.json"))


@settings(max_examples=80, deadline=None)
@given(st.lists(st.text(max_size=300), min_size=1, max_size=5))
def test_jsonl_keeps_any_text_as_written(texts: list[str]) -> None:
    lines = [
        json.dumps(
            {"conversation": "c", "role": "user", "time": "2024-01-01T00:00:00Z", "text": t, "id": str(i)}
        )
        for i, t in enumerate(texts)
    ]
    [conv] = read_jsonl(lines, "f.jsonl")
    kept = [t for t in texts if js_trim(t)]  # blank ends too; only a blank message is skipped
    assert [m.content for m in conv.messages] == kept
    assert len(conv.messages) + len(conv.skipped) == len(texts)
