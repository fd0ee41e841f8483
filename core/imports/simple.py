"""Two plain formats for anything else: JSON Lines and Markdown (docs/FORMAT.md, "Import formats").

JSON Lines — one message per line:
    {"conversation": "trip", "title": "Kyoto", "role": "user", "time": "2024-05-01T10:00:00Z",
     "text": "…", "id": "m1"}
Markdown — a conversation line, then a header line per message:
    # Conversation: trip — Kyoto
    ## user — 2024-05-01T10:00:00Z
    …text…
Lines of one conversation are consecutive. A message without an id is numbered in its
conversation, so a longer export of the same conversation keeps the earlier ids.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from typing import Any

from core.errors import InvalidInput
from core.imports.bounds import check_depth, decode_guarded
from core.imports.model import Conversation, Message, time_field
from core.text import js_trim

ROLE_NAMES = {"user": "user", "human": "user", "agent": "agent", "assistant": "agent"}
CONVERSATION_RE = re.compile(r"# Conversation: (\S+)(?: — (.*))?")
MESSAGE_RE = re.compile(r"## (user|human|agent|assistant) — (\S+)")


def read_jsonl(lines: Iterable[str], name: str) -> Iterator[Conversation]:
    """Conversations from JSON Lines, one message per line."""
    conv: Conversation | None = None
    done: set[str] = set()
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        where = f"{name} line {n}"
        try:
            row = check_depth(decode_guarded(where, json.loads, line), where)
        except ValueError as exc:
            raise InvalidInput(f"{where} is not valid JSON ({exc}).") from exc
        if not isinstance(row, dict):
            raise InvalidInput(f"{where} is not a JSON object.")
        cid = str(row.get("conversation") or "").strip()
        if not cid:
            raise InvalidInput(f"{where}: field `conversation` is missing.")
        if conv is None or conv.conversation_id != cid:
            if cid in done:
                raise InvalidInput(
                    f"{where}: conversation {cid!r} appeared earlier; keep its lines together."
                )
            if conv is not None:
                done.add(conv.conversation_id)
                yield conv
            conv = Conversation("jsonl", cid, str(row.get("title") or ""))
        _add(conv, row.get("role"), row.get("time"), row.get("text"), row.get("id"), where)
    if conv is not None:
        yield conv


def _add(conv: Conversation, role: Any, time: Any, text: Any, mid: Any, where: str) -> None:
    shown = ROLE_NAMES.get(str(role).lower()) if isinstance(role, str) else None
    if shown is None:
        raise InvalidInput(f"{where}: field `role` is {role!r}; expected user or assistant.")
    if not isinstance(text, str):
        raise InvalidInput(f"{where}: field `text` is missing or not text.")
    when = time_field(time, "time", where)
    message_id = str(mid) if mid not in (None, "") else str(len(conv.messages) + len(conv.skipped))
    if not js_trim(text):
        conv.skip(f"message {message_id}", "empty")
        return
    conv.messages.append(Message(message_id, shown, when, text))  # as written, ends included


def read_markdown(lines: Iterable[str], name: str, default_id: str) -> Iterator[Conversation]:
    """Conversations from the Markdown format (a file without a conversation line is one conversation)."""
    conv: Conversation | None = None
    head: tuple[str, str, int] | None = None
    body: list[str] = []

    def flush() -> None:
        if conv is not None and head is not None:
            _add(conv, head[0], head[1], "\n".join(body), None, f"{name} line {head[2]}")

    for n, raw in enumerate(lines, 1):
        line = raw.rstrip("\r\n")
        if m := CONVERSATION_RE.fullmatch(line):
            flush()
            if conv is not None:
                yield conv
            conv, head, body = Conversation("markdown", m[1], (m[2] or "").strip()), None, []
        elif m := MESSAGE_RE.fullmatch(line):
            flush()
            conv = conv or Conversation("markdown", default_id, "")
            head, body = (m[1], m[2], n), []
        elif head is not None:
            body.append(line)
        elif line.strip():
            raise InvalidInput(
                f"{name} line {n}: text before the first message header (`## user — <ISO time>`)."
            )
    flush()
    if conv is not None:
        yield conv
