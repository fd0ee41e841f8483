"""Cutting a conversation into slices by the rules of live talk, and building each slice.

A slice starts at its first message. Before a user message joins, the slice closes when it is
older than the time cap or holds the turn capacity (`config.json` slicing), exactly the checks a
live turn makes; an agent reply always stays with its prompt. A slice also closes before its
file would outgrow the size cap; a single message larger than a slice holds is cut, as live chat
cuts an oversized reply (`split_text`), into pieces under its one turn id, each piece opening the
next slice, so reading the pieces in order gives the message byte for byte. A conversation never
shares a slice with another one. A message's
stored images are linked at the end of its turn as a chat turn links its pictures
(`![name](../images/<turn id>-<n>.<ext>)`), numbered across the turn id its user message and
reply share.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, replace
from datetime import datetime

from core.clock import iso, parse_iso
from core.errors import InvalidInput, TooLarge
from core.imports.model import Aside, Attachment, Conversation, Message, free_turn_id
from core.media.attach import IMAGES_DIR, file_name
from core.media.images import Attachment as Image
from core.memory.config import UserConfig
from core.memory.paths import MAX_FILE_BYTES
from core.memory.slice.model import Slice, Turn
from core.memory.slice.slicer import FALLBACK_MARK, apply_fallback_mark, slice_age_exceeded, split_text

# Room left in core.md for the frontmatter and the turn headers.
SLICE_BYTE_BUDGET = MAX_FILE_BYTES - 100_000
_HEADER_BYTES = 64
_TOOL_NAMES = {"chatgpt": "ChatGPT", "claude": "Claude", "markdown": "Markdown", "jsonl": "JSON Lines"}


@dataclass(frozen=True)
class Part:
    """One slice's worth of a conversation."""

    conversation: Conversation
    index: int
    turns: tuple[Turn, ...]
    asides: tuple[Aside, ...]
    attachments: tuple[Attachment, ...]
    closed_by: str
    pictures: tuple[tuple[str, Image], ...] = ()  # (linked file name, picture)
    piece: int | None = None  # which piece of a cut message the first turn is (None: not cut)

    @property
    def start(self) -> datetime:
        return parse_iso(self.turns[0].timestamp)

    @property
    def key(self) -> str:
        """Names this part across exports: tool, conversation, and its first turn's id."""
        c = self.conversation
        key = f"{c.tool}|{c.conversation_id}|{self.turns[0].turn_id}"
        return key if self.piece is None else f"{key}#{self.turns[0].role}{self.piece}"

    @property
    def turn_hashes(self) -> tuple[str, ...]:
        return tuple(turn_hash(t) for t in self.turns)


def turn_hash(t: Turn) -> str:
    """A short fingerprint of one turn (id, time, role, text): how a re-import recognises it."""
    raw = "\x00".join((t.turn_id or "", t.timestamp, t.role, t.content))
    return hashlib.sha256(raw.encode()).hexdigest()[:16]


def split_conversation(conv: Conversation, config: UserConfig) -> list[Part]:
    """The conversation's messages cut into parts (none when it has no visible message)."""
    _check_ids(conv)
    groups: list[list[_Piece]] = []
    closers: list[str] = []
    size = 0
    for piece in _pieces(conv):
        cost = len(piece.message.content.encode()) + _HEADER_BYTES
        reason = _close_reason(groups[-1], piece.message, size + cost, config) if groups else None
        if not groups or reason:
            if groups:
                closers.append(reason or "capacity")
            groups.append([])
            size = 0
        groups[-1].append(piece)
        size += cost
    closers.append("time_cap")
    ids = _round_ids(conv)
    links = _picture_names(conv, ids)
    return [_part(conv, i, g, closers[i], ids, links) for i, g in enumerate(groups)]


@dataclass(frozen=True)
class _Piece:
    """A message, or one piece of a message too large for one slice (`index` None: whole)."""

    message: Message
    index: int | None = None
    last: bool = True


def _pieces(conv: Conversation) -> list[_Piece]:
    out: list[_Piece] = []
    for msg in conv.messages:
        if len(msg.content.encode()) + _HEADER_BYTES <= SLICE_BYTE_BUDGET:
            out.append(_Piece(msg))
            continue
        texts = split_text(msg.content, SLICE_BYTE_BUDGET - _HEADER_BYTES)
        for n, text in enumerate(texts):
            out.append(_Piece(replace(msg, content=text), n, n == len(texts) - 1))
    return out


def _picture_names(conv: Conversation, ids: dict[str, str]) -> dict[str, list[tuple[str, Image]]]:
    """Each message's stored pictures with their file names, numbered per turn id (`<id>-<n>`)."""
    count: dict[str, int] = {}
    out: dict[str, list[tuple[str, Image]]] = {}
    for pic in conv.pictures:
        turn_id = ids.get(pic.message_id)
        if pic.image is None or turn_id is None:
            continue
        count[turn_id] = n = count.get(turn_id, 0) + 1
        out.setdefault(pic.message_id, []).append((file_name(turn_id, n, pic.image), pic.image))
    return out


def _with_links(text: str, pictures: list[tuple[str, Image]]) -> str:
    """The message, then one image link per stored picture (as `core.media.attach.turn_text`)."""
    if not pictures:
        return text
    return f"{text}\n\n" + "\n".join(f"![{img.name}](../{IMAGES_DIR}/{name})" for name, img in pictures)


def _check_ids(conv: Conversation) -> None:
    seen: set[str] = set()
    for msg in conv.messages:
        if msg.message_id in seen:
            raise InvalidInput(
                f"{_TOOL_NAMES[conv.tool]} conversation {conv.label}: message id {msg.message_id!r} "
                "appears twice; give every message its own id."
            )
        seen.add(msg.message_id)


def _close_reason(group: list[_Piece], msg: Message, size: int, config: UserConfig) -> str | None:
    if size > SLICE_BYTE_BUDGET:
        return "capacity"
    if msg.role != "user":
        return None
    if slice_age_exceeded(iso(group[0].message.timestamp), msg.timestamp, config.max_slice_minutes * 60_000):
        return "time_cap"
    if len(group) >= config.max_turns_per_slice:
        return "capacity"
    return None


def _round_ids(conv: Conversation) -> dict[str, str]:
    """A user message and the reply right after it share one id, unique in the conversation."""
    ids: dict[str, str] = {}
    taken: set[str] = set()
    current, prev_role = "", None
    for msg in conv.messages:
        if msg.role == "user" or prev_role != "user" or not current:
            current = free_turn_id(taken, conv.tool, conv.conversation_id, msg.message_id)
        ids[msg.message_id] = current
        prev_role = msg.role
    return ids


def _part(
    conv: Conversation,
    index: int,
    group: list[_Piece],
    closed_by: str,
    ids: dict[str, str],
    links: dict[str, list[tuple[str, Image]]],
) -> Part:
    mine = {p.message.message_id for p in group if p.last}  # a cut message's files go with its end
    turns = tuple(
        Turn(
            ids[p.message.message_id],
            iso(p.message.timestamp),
            p.message.role,
            _with_links(p.message.content, links.get(p.message.message_id, []) if p.last else []),
        )
        for p in group
    )
    pictures = tuple(pic for p in group if p.last for pic in links.get(p.message.message_id, []))
    asides = tuple(a for a in conv.asides if a.after in mine or (index == 0 and a.after not in ids))
    files = tuple(a for a in conv.attachments if a.message_id in mine)
    for f in files:
        if len(f.text.encode()) > MAX_FILE_BYTES:
            raise TooLarge(
                f"{_TOOL_NAMES[conv.tool]} conversation {conv.label}: attachment {f.name!r} of message "
                f"{f.message_id} is over {MAX_FILE_BYTES} bytes, more than a memory file holds."
            )
    return Part(conv, index, turns, asides, files, closed_by, pictures, group[0].index)


def build_slice(part: Part, slice_id: str, locale: str = "en") -> Slice:
    """The closed slice for `part` under `slice_id`, attributed to its source and marked."""
    conv = part.conversation
    source = {"tool": conv.tool, "conversation": conv.conversation_id}
    if conv.title:
        source["title"] = conv.title
    s = Slice(
        slice_id=slice_id,
        status="closed",
        start=part.turns[0].timestamp,
        end=part.turns[-1].timestamp,
        timezone="UTC",
        closed_by=part.closed_by,
        extra={"source": source},
        turns=list(part.turns),
    )
    return mark_imported(s, conv.title, locale)


def mark_imported(s: Slice, title: str, locale: str = "en") -> Slice:
    """The rule mark of an imported slice, with the export's conversation title (when it has one)
    as the focus: the title says what the conversation was about; its first line rarely does."""
    marked = apply_fallback_mark(s, locale)
    if not s.focus and title.strip() and marked.marked_by == FALLBACK_MARK:
        marked.focus = title.strip()
    return marked


def appendix_entry(part: Part) -> str:
    """The appendix section keeping the part's asides verbatim ("" when it has none)."""
    if not part.asides:
        return ""
    conv = part.conversation
    out = [
        f"## Kept from the {_TOOL_NAMES[conv.tool]} export — {conv.label}\n\n"
        "These rows of the conversation are not turns; they are kept here as exported.\n"
    ]
    for aside in part.asides:
        out.append(f"\n### {aside.title}\n")
        for m in aside.messages:
            fence = _fence(m.content)
            out.append(f"\n{iso(m.timestamp)} ({m.role}):\n\n{fence}\n{m.content}\n{fence}\n")
    return "".join(out)


def _fence(text: str) -> str:
    longest = max((len(m) for m in re.findall("`+", text)), default=0)
    return "`" * max(3, longest + 1)
