"""Hostile exports are refused quickly, in bounded memory, with a 4xx naming what is wrong."""

from __future__ import annotations

import json
import time
import tracemalloc
import zipfile
from pathlib import Path
from typing import Any

import pytest

from core.errors import InvalidInput, TooLarge
from core.imports import bounds
from core.imports.run import preview
from core.imports.source import ExportFile
from core.storage.memory import InMemoryStorage
from tests.fakes.exports import T0, ChatGPTConversation, write_zip
from tests.functional.api_env import make_env

pytestmark = pytest.mark.functional
HEADERS = {"origin": "http://testserver"}


@pytest.fixture(scope="module")
def bomb(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """About 300 KB of zip inflating to a 300 MB JSON string (one conversation's title)."""
    path = tmp_path_factory.mktemp("bomb") / "export.zip"
    block = b"A" * (1 << 20)
    with (
        zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as zf,
        zf.open("conversations.json", "w", force_zip64=True) as f,
    ):
        f.write(b'[{"title": "')
        for _ in range(300):
            f.write(block)
        f.write(b'", "mapping": {}}]')
    assert path.stat().st_size < 1_000_000
    return path


def _plan(path: Path, fmt: str) -> Any:
    return preview(ExportFile(path, fmt), InMemoryStorage())


def test_a_zip_bomb_is_refused_at_once_in_bounded_memory(bomb: Path) -> None:
    tracemalloc.start()
    began = time.monotonic()
    try:
        with pytest.raises(TooLarge, match=r"conversations\.json is too large.*inflates \d[\d,]*×"):
            _plan(bomb, "chatgpt")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert time.monotonic() - began < 5 and peak < 20_000_000


def test_a_zip_bomb_over_http_is_a_413_and_nothing_is_written(bomb: Path) -> None:
    env = make_env()
    answer = env.client.post("/api/import/preview?format=chatgpt", content=bomb.read_bytes(), headers=HEADERS)
    assert answer.status_code == 413 and "too large" in answer.json()["message"]
    assert env.files() == {}


def test_a_member_past_the_inflated_limit_is_refused(tmp_path: Path, monkeypatch: Any) -> None:
    c = ChatGPTConversation("c1", "Trip")
    c.say("user", "hello " * 2000, T0)
    path = write_zip(tmp_path / "e.zip", [c.export()])
    monkeypatch.setattr(bounds, "MAX_INFLATED_BYTES", 1000)
    with pytest.raises(TooLarge, match="too large"):
        _plan(path, "chatgpt")


def test_a_zip_with_too_many_members_is_refused(tmp_path: Path, monkeypatch: Any) -> None:
    path = write_zip(tmp_path / "e.zip", [], {f"f{n}.txt": b"x" for n in range(5)})
    monkeypatch.setattr(bounds, "MAX_MEMBERS", 3)
    with pytest.raises(TooLarge, match=r"holds \d files; an import reads at most 3"):
        _plan(path, "chatgpt")


def test_one_conversation_past_the_entry_limit_is_refused_in_bounded_memory(
    tmp_path: Path, monkeypatch: Any
) -> None:
    from core.imports import stream

    monkeypatch.setattr(stream, "MAX_ENTRY_CHARS", 1 << 20)
    path = tmp_path / "conversations.json"
    path.write_text('[{"title": "' + "A" * 30_000_000 + '"}]')
    tracemalloc.start()
    try:
        with pytest.raises(TooLarge, match="entry 0 is too large"):
            _plan(path, "chatgpt")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 8 << 20


DEEP = 100_000


@pytest.mark.parametrize(
    ("fmt", "body"),
    [
        ("chatgpt", "[" + "[" * DEEP + "]" * DEEP + "]"),
        ("claude", '[{"chat_messages": ' + "[" * DEEP + "]" * DEEP + "}]"),
        ("jsonl", '{"conversation": "c", "text": ' + "[" * DEEP + "]" * DEEP + "}\n"),
        ("chatgpt", "[" + '{"a": ' * 70 + "1" + "}" * 70 + "]"),  # deeper than the limit, not than Python's
    ],
    ids=["chatgpt", "claude", "jsonl", "past-the-limit"],
)
def test_json_nested_too_deep_is_a_400(tmp_path: Path, fmt: str, body: str) -> None:
    path = tmp_path / "export.json"
    path.write_text(body)
    with pytest.raises(InvalidInput, match="nests lists or objects more than 64 deep"):
        _plan(path, fmt)
    env = make_env()
    answer = env.client.post(f"/api/import/preview?format={fmt}", content=body.encode(), headers=HEADERS)
    assert answer.status_code == 400 and "deep" in answer.json()["message"] and env.files() == {}


def _claude(message: dict[str, Any]) -> list[dict[str, Any]]:
    base = {"uuid": "m1", "sender": "human", "created_at": "2024-05-01T10:00:00Z", "text": "hi"}
    return [{"uuid": "c1", "name": "Trip", "chat_messages": [{**base, **message}]}]


@pytest.mark.parametrize(
    ("message", "field"),
    [
        ({"content": "just text"}, "content"),
        ({"content": 7}, "content"),
        ({"content": {"type": "text"}}, "content"),
        ({"files": "photo.png"}, "files"),
        ({"files": {"file_name": "x"}}, "files"),
        ({"attachments": 3}, "attachments"),
    ],
)
def test_a_claude_message_whose_list_field_is_not_a_list_is_named(
    tmp_path: Path, message: dict[str, Any], field: str
) -> None:
    path = tmp_path / "conversations.json"
    path.write_text(json.dumps(_claude(message)))
    with pytest.raises(InvalidInput, match=rf"'Trip' \(c1\): message m1: field `{field}` is \w+, not a list"):
        _plan(path, "claude")
    env = make_env()
    answer = env.client.post("/api/import/preview?format=claude", content=path.read_bytes(), headers=HEADERS)
    assert answer.status_code == 400 and f"`{field}`" in answer.json()["message"]


def test_markdown_that_is_not_utf8_is_a_400(tmp_path: Path) -> None:
    body = "# Conversation: c1\n## user — 2024-05-01T10:00:00Z\ncaf".encode() + b"\xe9\n"
    path = tmp_path / "chat.md"
    path.write_bytes(body)
    with pytest.raises(InvalidInput, match=r"chat\.md is not UTF-8 text"):
        _plan(path, "markdown")
    env = make_env()
    url = "/api/import/preview?format=markdown&name=chat.md"
    answer = env.client.post(url, content=body, headers=HEADERS)
    assert answer.status_code == 400 and "not UTF-8" in answer.json()["message"]


def test_reading_past_the_time_budget_is_refused(tmp_path: Path) -> None:
    c = ChatGPTConversation("c1", "Trip")
    c.say("user", "hello", T0)
    path = write_zip(tmp_path / "e.zip", [c.export()])
    ticks = iter([0.0, 1_000.0])
    late = bounds.Deadline(600, now=lambda: next(ticks))
    with pytest.raises(TooLarge, match="takes longer than 600 s"):
        preview(ExportFile(path, "chatgpt"), InMemoryStorage(), None, late)
