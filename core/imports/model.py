"""What every reader produces: a conversation as plain values, whatever tool it came from.

A reader turns one exported conversation into a `Conversation`: the messages shown as turns
(each with its own time and role), the rows kept aside (abandoned branches, tool and reasoning
rows, custom instructions — kept in the slice's appendix, never dropped), text attachments
(kept as files in the slice folder), images (stored as a chat's pictures are) and what was
skipped and why.
"""

from __future__ import annotations

import base64
import hashlib
import re
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from core.clock import parse_iso
from core.errors import InvalidInput
from core.media.images import Attachment as Image
from core.memory.slice.turns import is_numeric_label

ROLES = ("user", "agent")
ATTACHMENTS_DIR = "attachments"
_LABEL_CHARS = 120  # of a title or id in messages: an export's own text may be any length
_UNSAFE_RE = re.compile(r"[^A-Za-z0-9._-]+")


@dataclass(frozen=True)
class Message:
    """One message: `message_id` is stable across exports of the same conversation."""

    message_id: str
    role: str
    timestamp: datetime
    content: str


@dataclass(frozen=True)
class Aside:
    """Rows that are not turns, kept in the appendix of the slice holding message `after`.

    `after` None means before the first turn (the conversation's first slice).
    """

    after: str | None
    title: str
    messages: tuple[Message, ...]


@dataclass(frozen=True)
class Attachment:
    """A text file that came with message `message_id`, kept next to its slice."""

    message_id: str
    name: str
    text: str
    key: str = ""  # tells apart files of one message that share a name (a project's documents)

    @property
    def file_name(self) -> str:
        """Its file in the slice's `attachments/` folder: unique per message, name and key, safe to write."""
        safe = _UNSAFE_RE.sub("_", self.name).strip("._")[:80] or "file"
        ext = "" if safe.lower().endswith((".txt", ".md")) else ".txt"
        parts = (self.message_id, self.name, self.key) if self.key else (self.message_id, self.name)
        return f"{stable_id(*parts)}-{safe}{ext}"

    @property
    def link(self) -> str:
        """The line the turn carries to point at the kept file."""
        return f"[attachment: {self.name}]({ATTACHMENTS_DIR}/{self.file_name})"


@dataclass(frozen=True)
class Picture:
    """An image of message `message_id`: the export's file `member`, then its re-encoded picture.

    The reader names the file; the export's opener (`source.py`) reads it from the zip, one at a
    time, and fills `image` (stored like a chat attachment, `core.media`).
    """

    message_id: str
    member: str
    image: Image | None = None


@dataclass(frozen=True)
class Skipped:
    """Something in the export that does not become a turn or a file, and why."""

    conversation: str
    what: str
    why: str

    def __str__(self) -> str:
        return f"{self.conversation}: {self.what} — {self.why}"


@dataclass
class Conversation:
    """One exported conversation, read."""

    tool: str
    conversation_id: str
    title: str
    messages: list[Message] = field(default_factory=list)
    asides: list[Aside] = field(default_factory=list)
    attachments: list[Attachment] = field(default_factory=list)
    pictures: list[Picture] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    kind: str = "conversation"  # or "project": a Claude project's texts and documents

    @property
    def shown_title(self) -> str:
        """Its title as a preview row shows it (cut at 120 characters), or "" when it has none."""
        title = self.title.strip()
        return title if len(title) <= _LABEL_CHARS else title[:_LABEL_CHARS] + "…"

    @property
    def label(self) -> str:
        """How errors and previews name it: the title and the id (the id alone for a blank title)."""
        title = self.shown_title
        shown_id = self.conversation_id[:_LABEL_CHARS]
        return f"{title!r} ({shown_id})" if title else shown_id

    def skip(self, what: str, why: str) -> None:
        self.skipped.append(Skipped(self.label, what, why))


def stable_id(*parts: object) -> str:
    """A deterministic 6-character base64url id of `parts` (the shape of a live turn id)."""
    digest = hashlib.sha256("|".join(str(p) for p in parts).encode()).digest()
    return base64.urlsafe_b64encode(digest).decode("ascii")[:6]


def free_turn_id(taken: set[str], *parts: object) -> str:
    """`stable_id(*parts, salt)` for the first salt (0, 1, …) whose id is not in `taken` and not all
    digits — an all-digit label reads as a legacy numbered turn (`## Turn 3`), which has no id.
    The id is added to `taken`."""
    salt = 0
    while (candidate := stable_id(*parts, salt)) in taken or is_numeric_label(candidate):
        salt += 1
    taken.add(candidate)
    return candidate


def time_field(value: Any, name: str, where: str) -> datetime:
    """A message's ISO time from field `name`; a missing or unreadable one names the field and place."""
    if not isinstance(value, str):
        raise InvalidInput(f"{where}: field `{name}` is missing or not text ({value!r}).")
    try:
        return parse_iso(value)
    except ValueError as exc:
        raise InvalidInput(f"{where}: field `{name}` is not an ISO time ({value!r}).") from exc
