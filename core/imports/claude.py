"""Claude's `conversations.json`: each conversation is a list of `chat_messages`.

A message's `text` blocks become its turn; `thinking`, `tool_use` and `tool_result` blocks are
kept aside in the appendix. Attachments carry their `extracted_content`, which is kept as a text
file in the slice folder and linked from the turn. `files` (images, PDFs) usually hold only a
name in the export: the turn names them (`[file: name]`). When the export's zip carries an image
file itself — a member named by the file's `file_uuid`, or else the only member with its
`file_name` — it is stored in the slice folder like a chat picture and linked from the turn, as
the ChatGPT importer does; otherwise the preview says it was not included.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from core.errors import InvalidInput
from core.imports.model import Aside, Attachment, Conversation, Message, Picture, time_field
from core.text import js_trim

TOOL = "claude"
_ROLES = {"human": "user", "user": "user", "assistant": "agent"}
_IMAGE_EXTENSIONS = (".png", ".jpg", ".jpeg", ".webp", ".gif")
_ASIDE_TITLES = {
    "thinking": "The model's thinking (not a turn)",
    "tool_use": "A call to a tool (not a turn)",
    "tool_result": "A tool's result (not a turn)",
}


def read_conversation(raw: Any, index: int, assets: Sequence[str] = ()) -> Conversation:
    """One entry of `conversations.json`; InvalidInput names the conversation and the field."""
    if not isinstance(raw, dict):
        raise InvalidInput(f"Claude entry {index} is not a conversation object.")
    conv = Conversation(TOOL, str(raw.get("uuid") or f"entry-{index}"), str(raw.get("name") or ""))
    messages = raw.get("chat_messages")
    if not isinstance(messages, list):
        raise InvalidInput(
            f"Claude conversation {conv.label}: field `chat_messages` is missing or not a list."
        )
    for i, msg in enumerate(messages):
        _read_message(conv, msg, i, assets)
    return conv


def _read_message(conv: Conversation, msg: Any, i: int, assets: Sequence[str]) -> None:
    if not isinstance(msg, dict):
        raise InvalidInput(f"Claude conversation {conv.label}: chat_messages[{i}] is not an object.")
    mid = str(msg.get("uuid") or f"{conv.conversation_id}-{i}")
    where = f"Claude conversation {conv.label}: message {mid}"
    role = _ROLES.get(str(msg.get("sender")))
    if role is None:
        raise InvalidInput(f"{where}: field `sender` is {msg.get('sender')!r}; expected human or assistant.")
    when = time_field(msg.get("created_at"), "created_at", where)
    texts: list[str] = []
    for block in list_field(msg, "content", where):
        kind = block.get("type") if isinstance(block, dict) else None
        if kind == "text" and isinstance(block.get("text"), str):
            texts.append(block["text"])
        elif isinstance(block, dict) and block.get("type") == "text":
            continue
        else:
            title = _ASIDE_TITLES.get(str(kind), f"A {kind or 'untyped'} block (not a turn)")
            row = Message(mid, f"{msg.get('sender')}, {kind or 'block'}", when, block_text(block))
            conv.asides.append(Aside(conv.messages[-1].message_id if conv.messages else None, title, (row,)))
    text = "\n\n".join(t for t in texts if t.strip()) if texts else str(msg.get("text") or "")
    links = _attachments(conv, msg, mid, where, assets)
    # The text as written (blank ends are the author's); one of only blank space is none.
    body = "\n\n".join(p for p in (text if js_trim(text) else "", *links) if p)
    if not body:
        conv.skip(f"message {mid}", "empty")
        return
    conv.messages.append(Message(mid, role, when, body))


def _attachments(
    conv: Conversation, msg: dict[str, Any], mid: str, where: str, assets: Sequence[str]
) -> list[str]:
    links: list[str] = []
    for j, att in enumerate(list_field(msg, "attachments", where)):
        if not isinstance(att, dict):
            raise InvalidInput(f"{where}: attachments[{j}] is not an object.")
        name = str(att.get("file_name") or f"attachment-{j}")
        content = att.get("extracted_content")
        if isinstance(content, str) and content:
            kept = Attachment(mid, name, content)
            conv.attachments.append(kept)
            links.append(kept.link)
        else:
            links.append(f"[attachment: {name} (no text in the export)]")
            conv.skip(f"attachment {name}", "the export holds no text for it")
    for j, f in enumerate(list_field(msg, "files", where)):
        name = str(f.get("file_name") if isinstance(f, dict) else f) or f"file-{j}"
        links.append(f"[file: {name}]")
        member = _member(f, name, assets)
        if member is not None:
            conv.pictures.append(Picture(mid, member))
        else:
            conv.skip(f"file {name}", "the export holds only its name, not the file")
    return links


def list_field(msg: dict[str, Any], key: str, where: str) -> list[Any]:
    """A message's list field (absent or null: empty); anything else is refused by name."""
    value = msg.get(key)
    if value is None:
        return []
    if not isinstance(value, list):
        raise InvalidInput(f"{where}: field `{key}` is {type(value).__name__}, not a list.")
    return value


def _member(file: Any, name: str, assets: Sequence[str]) -> str | None:
    """The zip member holding an image `files` entry: named by its uuid, else by its name (when
    only one member has it); None when the export does not carry it or it is not an image."""
    uuid = str(file.get("file_uuid") or "") if isinstance(file, dict) else ""
    images = [a for a in assets if a.lower().endswith(_IMAGE_EXTENSIONS)]
    by_uuid = [a for a in images if uuid and a.rsplit("/", 1)[-1].startswith(uuid)]
    if by_uuid:
        return sorted(by_uuid)[0]
    by_name = [a for a in images if a.rsplit("/", 1)[-1] == name]
    return by_name[0] if len(by_name) == 1 else None


def block_text(block: Any) -> str:
    """A non-text content block as readable text: thinking as written, tools as JSON."""
    if not isinstance(block, dict):
        return json.dumps(block, ensure_ascii=False)
    if block.get("type") == "thinking" and isinstance(block.get("thinking"), str):
        return str(block["thinking"])
    rest = {k: v for k, v in block.items() if k not in ("type", "start_timestamp", "stop_timestamp")}
    return json.dumps(rest, ensure_ascii=False, sort_keys=True)
