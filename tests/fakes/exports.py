"""Exports in the real shapes of ChatGPT and Claude, written by the project for the import tests.

`ChatGPTConversation` builds the `mapping` tree the way ChatGPT writes it (a root node without a
message, a system row, parent/children links, `current_node` at the shown branch's leaf);
`claude_conversation` builds a `chat_messages` list. `corpus()` is the shared fixture: every case
the importers must get right, and the visible messages each should produce. `cat_png()` is the
picture the ChatGPT photo conversation points at (`CAT_FILE` in the zip), a real PNG with EXIF.
"""

from __future__ import annotations

import io
import json
import zipfile
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from PIL import Image

from core.imports.model import Attachment

T0 = datetime(2024, 3, 4, 9, 0, tzinfo=UTC)
SLICE_LOOKALIKE = (
    "---\nslice_id: 1999-01-01-0000\nstatus: active\n---\n\n"
    "# Notes\n\n## Not a turn — just a heading (user)\n\n```yaml\nfocus: x\n```\n---"
)
BIG = ("Fifty kilobytes of one long message. " * 1400)[:50_000]
CJK = "我们明天去京都吧 🍵 — 日本語もOK 😀 한국어도 ✨"
CAT_FILE = "file-AbC123-cat.png"
ARTIST_TAG = 0x013B


def cat_png() -> bytes:
    """The photo conversation's picture: a small real PNG whose EXIF names an artist."""
    exif = Image.Exif()
    exif[ARTIST_TAG] = "Mara Quinn"
    out = io.BytesIO()
    Image.new("RGB", (24, 16), (200, 120, 40)).save(out, "PNG", exif=exif.tobytes())
    return out.getvalue()


@dataclass(frozen=True)
class Visible:
    """A message the import must show as a turn: its role, time and exact text."""

    role: str
    time: datetime
    text: str


@dataclass
class ChatGPTConversation:
    """One ChatGPT conversation under construction (a tree of nodes)."""

    conv_id: str
    title: str
    mapping: dict[str, Any] = field(default_factory=dict)
    current: str = "root"
    visible: list[Visible] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.mapping["root"] = {"id": "root", "message": None, "parent": None, "children": []}
        self.add("system", "", T0, parent="root", node_id=f"{self.conv_id}-sys", hidden=True)

    def add(
        self,
        role: str,
        text: Any,
        when: datetime | None,
        *,
        parent: str | None = None,
        node_id: str | None = None,
        hidden: bool = False,
        content_type: str = "text",
        recipient: str = "all",
        shown: bool = True,
        extra: dict[str, Any] | None = None,
    ) -> str:
        """Add a node under `parent` (default: the current leaf) and make it current."""
        parent = parent or self.current
        node_id = node_id or f"{self.conv_id}-n{len(self.mapping)}"
        content: dict[str, Any] = {"content_type": content_type}
        if content_type in ("text", "multimodal_text"):
            content["parts"] = text if isinstance(text, list) else [text]
        elif isinstance(text, dict):
            content.update(text)
        else:
            content["text"] = text
        meta = {"is_visually_hidden_from_conversation": True} if hidden else {}
        self.mapping[node_id] = {
            "id": node_id,
            "message": {
                "id": node_id,
                "author": {"role": role, "name": None, "metadata": {}},
                "create_time": when.timestamp() if when else None,
                "update_time": None,
                "content": content,
                "status": "finished_successfully",
                "end_turn": True,
                "weight": 1.0,
                "metadata": meta,
                "recipient": recipient,
                **(extra or {}),
            },
            "parent": parent,
            "children": [],
        }
        self.mapping[parent]["children"].append(node_id)
        self.current = node_id
        return node_id

    def say(self, role: str, text: str, when: datetime, **kw: Any) -> str:
        """A visible message on the shown branch."""
        node = self.add(role, text, when, **kw)
        self.visible.append(Visible("user" if role == "user" else "agent", when, text.strip()))
        return node

    def export(self) -> dict[str, Any]:
        return {
            "title": self.title,
            "create_time": T0.timestamp(),
            "update_time": T0.timestamp(),
            "mapping": self.mapping,
            "moderation_results": [],
            "current_node": self.current,
            "plugin_ids": None,
            "conversation_id": self.conv_id,
            "conversation_template_id": None,
            "gizmo_id": None,
            "is_archived": False,
            "safe_urls": [],
            "default_model_slug": "gpt-4o",
            "id": self.conv_id,
        }


def chatgpt_corpus() -> tuple[list[dict[str, Any]], list[list[Visible]]]:
    """ChatGPT conversations covering every case, newest first (exports are not in time order)."""
    convs: list[ChatGPTConversation] = []

    kyoto = ChatGPTConversation("c-kyoto", "Kyoto trip")
    kyoto.add(
        "user",
        {
            "content_type": "user_editable_context",
            "user_profile": "I live in Osaka.",
            "user_instructions": "Answer briefly.",
        },
        T0,
        content_type="user_editable_context",
        hidden=True,
    )
    first = kyoto.say("user", "Plan a day in Kyoto?", T0 + timedelta(minutes=1))
    # an abandoned answer (regenerated), then the shown one
    kyoto.add("assistant", "An answer that was regenerated.", T0 + timedelta(minutes=2), parent=first)
    kyoto.current = first
    kyoto.say("assistant", "Morning at Fushimi Inari, tea in Uji.", T0 + timedelta(minutes=2, seconds=30))
    # an edited prompt: the old prompt's branch is abandoned
    fork = kyoto.current
    kyoto.add("user", "What about Nara?", T0 + timedelta(minutes=4), parent=fork)
    kyoto.current = fork
    kyoto.say("user", CJK, T0 + timedelta(minutes=5))
    kyoto.add(
        "assistant",
        {"content_type": "thoughts", "thoughts": [{"summary": "Weighing tea", "content": "Uji is close."}]},
        T0 + timedelta(minutes=5, seconds=5),
        content_type="thoughts",
    )
    kyoto.add(
        "assistant",
        {"content_type": "reasoning_recap", "content": "Thought for 4 seconds"},
        T0 + timedelta(minutes=5, seconds=6),
        content_type="reasoning_recap",
    )
    kyoto.add(
        "assistant",
        {"language": "python", "text": "search('uji tea')"},
        T0 + timedelta(minutes=5, seconds=7),
        content_type="code",
        recipient="python",
    )
    kyoto.add("tool", "uji: 3 results", T0 + timedelta(minutes=5, seconds=8), content_type="execution_output")
    kyoto.say("assistant", "好的！Uji it is 🍵", T0 + timedelta(minutes=5, seconds=10))
    # resumed a week later: a new slice by the time cap
    kyoto.say("user", "Back from Kyoto — the tea was great.", T0 + timedelta(days=7))
    kyoto.say("assistant", "Glad to hear it!", T0 + timedelta(days=7, seconds=20))
    convs.append(kyoto)

    photo = ChatGPTConversation("c-photo", "A photo")
    photo.add(
        "user",
        [
            "What is in this picture?",
            {
                "content_type": "image_asset_pointer",
                "asset_pointer": "file-service://file-AbC123",
                "size_bytes": 10,
                "width": 1,
                "height": 1,
            },
        ],
        T0 + timedelta(minutes=10),
        content_type="multimodal_text",
    )
    photo.visible.append(
        Visible(
            "user", T0 + timedelta(minutes=10), "What is in this picture?\n\n[image: file-AbC123-cat.png]"
        )
    )
    photo.say("assistant", SLICE_LOOKALIKE, T0 + timedelta(minutes=11))
    photo.say("user", BIG, T0 + timedelta(minutes=12))
    photo.say("assistant", "That was long.", T0 + timedelta(minutes=12, seconds=5))
    convs.append(photo)

    # overlapping: starts in the same minute as kyoto's first message
    overlap = ChatGPTConversation("c-overlap", "Same minute")
    overlap.say("user", "A second window, same minute.", T0 + timedelta(minutes=1, seconds=20))
    overlap.say("assistant", "Hello from the other tab.", T0 + timedelta(minutes=1, seconds=40))
    convs.append(overlap)

    convs.reverse()
    return [c.export() for c in convs], [c.visible for c in convs]


def claude_corpus() -> tuple[list[dict[str, Any]], list[list[Visible]]]:
    """Claude conversations: text, thinking and tool blocks, attachments, files, a resumed talk."""

    def msg(uuid: str, sender: str, when: datetime, text: str, **kw: Any) -> dict[str, Any]:
        content = kw.pop(
            "content",
            [
                {
                    "type": "text",
                    "text": text,
                    "start_timestamp": None,
                    "stop_timestamp": None,
                    "citations": [],
                }
            ],
        )
        return {
            "uuid": uuid,
            "text": text,
            "content": content,
            "sender": sender,
            "created_at": when.isoformat().replace("+00:00", "Z"),
            "updated_at": when.isoformat().replace("+00:00", "Z"),
            "attachments": kw.pop("attachments", []),
            "files": kw.pop("files", []),
        }

    t = T0 + timedelta(hours=2)
    notes = {
        "file_name": "notes.txt",
        "file_size": 20,
        "file_type": "txt",
        "extracted_content": "Line one\n## Turn x — y (user)\nline three",
    }
    a = [
        msg(
            "m1", "human", t, "Read my notes " + CJK, attachments=[notes], files=[{"file_name": "photo.jpg"}]
        ),
        msg(
            "m2",
            "assistant",
            t + timedelta(seconds=30),
            "",
            content=[
                {"type": "thinking", "thinking": "They want a summary.", "summaries": []},
                {"type": "tool_use", "name": "search", "input": {"q": "notes"}},
                {
                    "type": "tool_result",
                    "name": "search",
                    "content": [{"type": "text", "text": "none"}],
                    "is_error": False,
                },
                {"type": "text", "text": "Your notes have three lines."},
            ],
        ),
        msg("m3", "human", t + timedelta(days=7), SLICE_LOOKALIKE),
        msg("m4", "assistant", t + timedelta(days=7, minutes=1), BIG),
    ]
    conv_a = {
        "uuid": "k-notes",
        "name": "Notes",
        "summary": "",
        "created_at": a[0]["created_at"],
        "updated_at": a[-1]["updated_at"],
        "account": {"uuid": "acc"},
        "chat_messages": a,
    }
    link = Attachment("m1", "notes.txt", str(notes["extracted_content"])).link
    vis_a = [
        Visible("user", t, f"Read my notes {CJK}\n\n{link}\n\n[file: photo.jpg]"),
        Visible("agent", t + timedelta(seconds=30), "Your notes have three lines."),
        Visible("user", t + timedelta(days=7), SLICE_LOOKALIKE.strip()),
        Visible("agent", t + timedelta(days=7, minutes=1), BIG.strip()),
    ]
    b = [
        msg("o1", "human", t + timedelta(seconds=10), "Overlapping hello"),
        msg("o2", "assistant", t + timedelta(seconds=20), "Overlapping reply"),
    ]
    conv_b = {
        "uuid": "k-overlap",
        "name": "",
        "created_at": b[0]["created_at"],
        "updated_at": b[-1]["updated_at"],
        "account": {"uuid": "acc"},
        "chat_messages": b,
    }
    vis_b = [
        Visible("user", t + timedelta(seconds=10), "Overlapping hello"),
        Visible("agent", t + timedelta(seconds=20), "Overlapping reply"),
    ]
    return [conv_b, conv_a], [vis_b, vis_a]


def write_zip(path: Path, conversations: list[dict[str, Any]], extra: dict[str, bytes] | None = None) -> Path:
    """The export as downloaded: a zip with conversations.json (and any other files)."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("conversations.json", json.dumps(conversations, ensure_ascii=False))
        zf.writestr("user.json", "{}")
        for name, data in (extra or {}).items():
            zf.writestr(name, data)
    return path


def write_big_chatgpt(path: Path, conversations: int, message_chars: int, messages: int = 6) -> Path:
    """A large `conversations.json`, written one conversation at a time (never whole in memory).

    Conversation `i` starts `i` hours after T0; its messages are a minute apart.
    """
    filler = ("Lorem ipsum dolor sit amet, 京都 🍵 " * (message_chars // 30 + 1))[:message_chars]
    with path.open("w", encoding="utf-8") as out:
        out.write("[")
        for i in range(conversations):
            c = ChatGPTConversation(f"big-{i}", f"Talk {i}")
            start = T0 + timedelta(hours=i)
            for j in range(messages):
                role = "user" if j % 2 == 0 else "assistant"
                c.say(role, f"{i}.{j} {filler}", start + timedelta(minutes=j))
            out.write(("," if i else "") + json.dumps(c.export(), ensure_ascii=False))
        out.write("]")
    return path
