"""Import of LoCoMo conversations (a public long-conversation benchmark) as slices.

One session becomes one closed slice. Conventions shared with the recall scoring tool, so slice
ids and turn ids match it exactly: the session's date is read as UTC and is the slice start;
`speaker_a` is the user and `speaker_b` the agent; turns are 30 seconds apart; a user turn and
the agent reply after it share one deterministic 6-character turn id; a shared image adds a
`[shares <caption>]` line.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from core.clock import iso
from core.errors import InvalidInput
from core.imports.model import free_turn_id, stable_id
from core.memory.slice.model import Slice, Turn
from core.memory.slice.slicer import minute_id

TURN_SPACING_S = 30
_SESSION_RE = re.compile(r"^session_(\d+)$")
_WHEN_RE = re.compile(r"^(\d{1,2}):(\d{2})\s*([ap]m)\s+on\s+(\d{1,2})\s+([A-Za-z]+),?\s+(\d{4})$", re.I)
_MONTH_NAMES = (
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
)
_MONTHS = {name: i + 1 for i, name in enumerate(_MONTH_NAMES)}


@dataclass(frozen=True)
class Conversation:
    """One LoCoMo conversation: its id and the raw `conversation` mapping."""

    sample_id: str
    data: dict[str, Any]


def load_conversations(text: str, name: str = "") -> list[Conversation]:
    """Parse a LoCoMo file: a list of samples (locomo10.json) or one flat conversation."""
    try:
        raw = json.loads(text)
    except ValueError as exc:
        raise InvalidInput(f"{name or 'The file'} is not valid JSON: {exc}") from exc
    samples = raw if isinstance(raw, list) else [raw] if isinstance(raw, dict) else []
    out: list[Conversation] = []
    for i, sample in enumerate(samples):
        if not isinstance(sample, dict):
            raise InvalidInput(f"Entry {i} of {name or 'the file'} is not a conversation object.")
        conv = sample.get("conversation", sample)
        if not isinstance(conv, dict) or "speaker_a" not in conv or "speaker_b" not in conv:
            raise InvalidInput(
                f"Entry {i} of {name or 'the file'} has no conversation with speaker_a/speaker_b; "
                "is this a LoCoMo file?"
            )
        sample_id = str(sample.get("sample_id") or _flat_id(name))
        out.append(Conversation(sample_id, conv))
    if not out:
        raise InvalidInput(f"{name or 'The file'} holds no LoCoMo conversations.")
    return out


def _flat_id(name: str) -> str:
    digits = re.sub(r"\D", "", name.rsplit("/", 1)[-1])
    return f"conv-{digits or '0'}"


def pick_conversation(conversations: list[Conversation], wanted: str | None) -> Conversation:
    """The one conversation to import; several need `wanted` (a sample id)."""
    ids = [c.sample_id for c in conversations]
    if wanted is not None:
        for conv in conversations:
            if conv.sample_id == wanted:
                return conv
        raise InvalidInput(f"No conversation {wanted!r} in the file; it has: {', '.join(ids)}.")
    if len(conversations) > 1:
        raise InvalidInput(
            f"The file holds {len(conversations)} conversations ({', '.join(ids)}); "
            "choose one with --conversation."
        )
    return conversations[0]


def parse_session_time(text: str) -> datetime:
    """`1:56 pm on 8 May, 2023` → 2023-05-08T13:56Z (read as UTC)."""
    m = _WHEN_RE.match(" ".join(str(text).split()))
    month = _MONTHS.get(m.group(5).lower()) if m else None
    if not m or month is None:
        raise InvalidInput(f"Unreadable session time {text!r}; expected e.g. '1:56 pm on 8 May, 2023'.")
    hour = int(m.group(1)) % 12 + (12 if m.group(3).lower() == "pm" else 0)
    return datetime(int(m.group(6)), month, int(m.group(4)), hour, int(m.group(2)), tzinfo=UTC)


def turn_id(sample_id: str, session: int, round_index: int, salt: int = 0) -> str:
    """The scoring tool's deterministic 6-char base64url id of one round."""
    return stable_id("locomo", sample_id, session, round_index, salt)


def session_numbers(conv: Conversation) -> list[int]:
    """Numbers of the sessions that have turns (some files list dates of empty sessions)."""
    return sorted(int(m.group(1)) for k, v in conv.data.items() if (m := _SESSION_RE.match(k)) and v)


def conversation_slices(conv: Conversation) -> list[Slice]:
    """Every session of a conversation as a closed slice; two sessions in one minute is an error."""
    slices: list[Slice] = []
    seen: dict[str, int] = {}
    for n in session_numbers(conv):
        s = session_slice(conv, n)
        if s.slice_id in seen:
            raise InvalidInput(
                f"{conv.sample_id}: sessions {seen[s.slice_id]} and {n} start in the same minute "
                f"({s.slice_id}); one slice per session is impossible."
            )
        seen[s.slice_id] = n
        slices.append(s)
    return slices


def session_slice(conv: Conversation, n: int) -> Slice:
    """Session `n` as a closed slice."""
    data = conv.data
    start = parse_session_time(data.get(f"session_{n}_date_time", ""))
    roles = {data["speaker_a"]: "user", data["speaker_b"]: "agent"}
    turns: list[Turn] = []
    ids: dict[int, str] = {}
    round_index, prev_role = -1, None
    for i, raw in enumerate(data[f"session_{n}"]):
        role = roles.get(raw.get("speaker"))
        if role is None:
            raise InvalidInput(
                f"{conv.sample_id} session {n} turn {i}: unknown speaker {raw.get('speaker')!r}."
            )
        # A round is a user turn plus the agent reply right after it.
        if role == "user" or prev_role != "user":
            round_index += 1
        prev_role = role
        if round_index not in ids:
            ids[round_index] = _unique_id(conv.sample_id, n, round_index, set(ids.values()))
        stamp = iso(start + timedelta(seconds=TURN_SPACING_S * i))
        turns.append(Turn(ids[round_index], stamp, role, _turn_text(raw)))
    return Slice(
        slice_id=minute_id(start),
        status="closed",
        start=iso(start),
        end=turns[-1].timestamp if turns else iso(start),
        timezone="UTC",
        turns=turns,
    )


def _unique_id(sample_id: str, session: int, round_index: int, taken: set[str]) -> str:
    return free_turn_id(taken, "locomo", sample_id, session, round_index)


def _turn_text(raw: dict[str, Any]) -> str:
    text = str(raw.get("text") or "").strip()
    caption = str(raw.get("blip_caption") or "").strip()
    if caption:
        text = (text + "\n" if text else "") + f"[shares {caption}]"
    return text
