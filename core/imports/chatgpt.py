"""ChatGPT's `conversations.json`: each conversation is a tree of message nodes.

The path from the root to `current_node` is what the user last saw; it becomes the turns. Every
other branch (an edited prompt, a regenerated answer) is kept aside in the appendix. System,
hidden, tool and custom-instruction rows and the model's reasoning are kept aside too, never as
turns; an empty row is skipped and reported.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from core.errors import InvalidInput
from core.imports.model import Aside, Conversation, Message, Picture
from core.text import js_trim

TOOL = "chatgpt"
_ROLES = {"user": "user", "assistant": "agent"}
_REASONING = frozenset({"thoughts", "reasoning_recap"})
IMAGE_WHY = "an image in a row kept aside is not stored: the appendix names it, it stays in the export"
MISSING_WHY = "the image is not in the export (export the .zip): the turn names it"
BRANCH_TITLE = "An abandoned branch (an edited prompt or another answer)"


def read_conversation(raw: Any, index: int, assets: Sequence[str] = ()) -> Conversation:
    """One entry of `conversations.json`; InvalidInput names the conversation and the field."""
    if not isinstance(raw, dict):
        raise InvalidInput(f"ChatGPT entry {index} is not a conversation object.")
    conv_id = str(raw.get("conversation_id") or raw.get("id") or f"entry-{index}")
    conv = Conversation(TOOL, conv_id, str(raw.get("title") or ""))
    mapping = raw.get("mapping")
    if not isinstance(mapping, dict) or not mapping:
        raise InvalidInput(f"ChatGPT conversation {conv.label}: field `mapping` is missing or empty.")
    fallback = _epoch(raw.get("create_time"), conv, "create_time", None)
    path = _main_path(mapping, raw.get("current_node"), conv)
    on_path = set(path)
    last_visible: str | None = None
    last_time = fallback
    for node_id in path:
        node = mapping[node_id]
        msg = _message(node, conv, node_id, last_time, assets)
        if msg is not None:
            last_time = msg[1].timestamp
            if msg[0] is None:
                conv.messages.append(msg[1])
                last_visible = msg[1].message_id
            else:
                conv.asides.append(Aside(last_visible, msg[0], (msg[1],)))
        for child in _children(node):
            if child not in on_path and child in mapping:
                rows = _subtree(mapping, child, conv, last_time, assets)
                if rows:
                    conv.asides.append(Aside(last_visible, BRANCH_TITLE, rows))
    return conv


def _main_path(mapping: dict[str, Any], current: Any, conv: Conversation) -> list[str]:
    """Node ids from the root to `current_node` (the newest leaf when it is missing)."""
    if not isinstance(current, str) or current not in mapping:
        leaves = [k for k, n in mapping.items() if isinstance(n, dict) and not _children(n)]
        if not leaves:
            raise InvalidInput(f"ChatGPT conversation {conv.label}: field `current_node` is missing.")
        current = max(leaves, key=lambda k: (_raw_time(mapping[k]), k))
        conv.skip("current_node", "missing; the newest branch was taken as the conversation")
    path: list[str] = []
    seen: set[str] = set()
    node_id: Any = current
    while isinstance(node_id, str) and node_id in mapping and node_id not in seen:
        seen.add(node_id)
        path.append(node_id)
        node = mapping[node_id]
        if not isinstance(node, dict):
            raise InvalidInput(f"ChatGPT conversation {conv.label}: node {node_id!r} is not an object.")
        node_id = node.get("parent")
    return path[::-1]


def _children(node: Any) -> list[str]:
    kids = node.get("children") if isinstance(node, dict) else None
    return [k for k in kids if isinstance(k, str)] if isinstance(kids, list) else []


def _raw_time(node: Any) -> float:
    msg = node.get("message") if isinstance(node, dict) else None
    t = msg.get("create_time") if isinstance(msg, dict) else None
    return float(t) if isinstance(t, int | float) and not isinstance(t, bool) else 0.0


def _subtree(
    mapping: dict[str, Any], root: str, conv: Conversation, since: datetime | None, assets: Sequence[str]
) -> tuple[Message, ...]:
    """Every message of an abandoned branch, depth first (each row with its time and role)."""
    rows: list[Message] = []
    stack, seen = [root], set()
    last = since
    while stack:
        node_id = stack.pop()
        if node_id in seen or node_id not in mapping:
            continue
        seen.add(node_id)
        node = mapping[node_id]
        msg = _message(node, conv, node_id, last, assets, quiet=True)
        if msg is not None:
            rows.append(msg[1])
            last = msg[1].timestamp
        stack.extend(reversed(_children(node)))
    return tuple(rows)


def _message(
    node: Any,
    conv: Conversation,
    node_id: str,
    last: datetime | None,
    assets: Sequence[str],
    quiet: bool = False,
) -> tuple[str | None, Message] | None:
    """(None, turn) for a visible message, (why-aside, row) for a row kept aside, None when empty."""
    msg = node.get("message") if isinstance(node, dict) else None
    if msg is None:
        return None
    if not isinstance(msg, dict):
        raise InvalidInput(
            f"ChatGPT conversation {conv.label}: node {node_id!r} field `message` is not an object."
        )
    mid = str(msg.get("id") or node_id)
    author = _dict(msg.get("author"))
    role = str(author.get("role") or "")
    content = msg.get("content")
    ctype = str(content.get("content_type") or "") if isinstance(content, dict) else ""
    images: list[str] = []
    text = render_content(content, assets, images)  # as written: blank ends are the author's
    when = _epoch(msg.get("create_time"), conv, f"message {mid} create_time", last)
    if when is None:
        raise InvalidInput(
            f"ChatGPT conversation {conv.label}: message {mid} has no `create_time` "
            "(nor has the conversation)."
        )
    aside = _aside_reason(msg, role, ctype)
    if not js_trim(text):
        if not quiet and role in _ROLES and aside is None:
            conv.skip(f"message {mid}", "empty")
        return None
    for name in images:
        if quiet or aside is not None:
            conv.skip(f"image {name}", IMAGE_WHY)
        elif name not in assets:
            conv.skip(f"image {name}", MISSING_WHY)
        else:
            conv.pictures.append(Picture(mid, name))
    if aside is None:
        return None, Message(mid, _ROLES[role], when, text)
    recipient = msg.get("recipient")
    row_role = f"{role or 'unknown'} to {recipient}" if recipient not in (None, "all") else role or "unknown"
    return aside, Message(mid, row_role, when, text)


def _aside_reason(msg: dict[str, Any], role: str, ctype: str) -> str | None:
    meta = _dict(msg.get("metadata"))
    if ctype == "user_editable_context":
        return "Custom instructions (not a turn)"
    if meta.get("is_visually_hidden_from_conversation"):
        return "A row hidden in ChatGPT (not a turn)"
    if role not in _ROLES:
        return f"A {role or 'unknown'} row (not a turn)"
    if msg.get("recipient") not in (None, "all"):
        return "A call to a tool (not a turn)"
    if ctype in _REASONING:
        return "The model's reasoning (not a turn)"
    return None


def _epoch(value: Any, conv: Conversation, field: str, default: datetime | None) -> datetime | None:
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise InvalidInput(f"ChatGPT conversation {conv.label}: field `{field}` is not a number ({value!r}).")
    try:
        return datetime.fromtimestamp(float(value), UTC)
    except (OverflowError, OSError, ValueError) as exc:
        raise InvalidInput(
            f"ChatGPT conversation {conv.label}: field `{field}` is out of range ({value!r})."
        ) from exc


def render_content(content: Any, assets: Sequence[str] = (), images: list[str] | None = None) -> str:
    """A message's content as text: known `content_type`s readably, anything else as JSON."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if not isinstance(content, dict):
        return _json(content)
    ctype = content.get("content_type")
    if ctype == "code":
        lang = str(content.get("language") or "")
        return f"```{'' if lang == 'unknown' else lang}\n{content.get('text') or ''}\n```"
    if ctype == "thoughts":
        thoughts = content.get("thoughts")
        parts: list[Any] = thoughts if isinstance(thoughts, list) else []
        return "\n\n".join(_thought(t) for t in parts)
    if ctype == "user_editable_context":
        return "\n\n".join(str(content[k]) for k in ("user_profile", "user_instructions") if content.get(k))
    if isinstance(content.get("parts"), list):
        return "\n\n".join(p for p in (_part(x, assets, images) for x in content["parts"]) if p)
    for key in ("text", "result", "content"):
        if isinstance(content.get(key), str):
            return str(content[key])
    rest = {k: v for k, v in content.items() if k != "content_type"}
    return _json(rest) if rest else ""


def _thought(t: Any) -> str:
    if not isinstance(t, dict):
        return _json(t)
    head, body = str(t.get("summary") or ""), str(t.get("content") or "")
    return f"{head}\n{body}".strip()


def _part(part: Any, assets: Sequence[str], images: list[str] | None) -> str:
    if isinstance(part, str):
        return part
    if not isinstance(part, dict):
        return "" if part is None else _json(part)
    ptype = part.get("content_type")
    if ptype == "image_asset_pointer":
        name = asset_name(str(part.get("asset_pointer") or ""), assets)
        if images is not None:
            images.append(name)
        return f"[image: {name}]"
    if isinstance(part.get("text"), str):
        return str(part["text"])
    return _json(part)


def asset_name(pointer: str, assets: Sequence[str]) -> str:
    """The export's file for an asset pointer (`file-service://file-abc` → `file-abc-photo.png`)."""
    file_id = pointer.rsplit("/", 1)[-1]
    for name in assets:
        if file_id and name.rsplit("/", 1)[-1].startswith(file_id):
            return name
    return pointer


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True)
