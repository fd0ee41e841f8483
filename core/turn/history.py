"""What the main model is sent: the current slice's conversation, then this turn's earlier rounds.

History is trimmed to the slice (docs/ARCHITECTURE.md, step "respond"): earlier slices reach
the model only through the frozen prompt and the memory tools. Consecutive turns of one role
(a message that got no reply because no model was configured, say) are joined, since
providers expect alternation.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

from core.llm.types import AssistantMessage, Message, UserMessage
from core.memory.slice.model import Slice, Turn

T = TypeVar("T")


def slice_window(
    items: Sequence[T], role_of: Callable[[T], str], user_turns: int, max_messages: int
) -> list[T]:
    """The messages of the current slice (docs/ARCHITECTURE.md, step "respond"): from the N-th
    user message counted from the end (N = the slice's user turns, at least 1), then at most
    `max_messages` of them, starting with a user message."""
    wanted = max(1, user_turns)
    start, seen = 0, 0
    for i in range(len(items) - 1, -1, -1):
        if role_of(items[i]) == "user":
            seen += 1
            if seen == wanted:
                start = i
                break
    window = list(items[start:])
    if max_messages > 0 and len(window) > max_messages:
        window = window[-max_messages:]
        while window and role_of(window[0]) != "user":
            window.pop(0)
    return window


def _message(turn: Turn) -> Message:
    return UserMessage(turn.content) if turn.role == "user" else AssistantMessage(text=turn.content)


def _join(a: Message, b: Message) -> Message:
    if isinstance(a, UserMessage) and isinstance(b, UserMessage):
        return UserMessage(f"{a.text}\n\n{b.text}")
    if isinstance(a, AssistantMessage) and isinstance(b, AssistantMessage):
        return AssistantMessage(text=f"{a.text}\n\n{b.text}".strip())
    raise ValueError("only messages of one role are joined")


def slice_history(s: Slice, turn_id: str, message: str, max_messages: int) -> list[Message]:
    """The slice's turns up to this turn's user message (appended if the slice lacks it).

    At most `max_messages` messages are kept (the newest), starting with a user message.
    """
    turns: Sequence[Turn] = s.turns
    end = next((i for i, t in enumerate(turns) if t.turn_id == turn_id and t.role == "user"), None)
    chosen = list(turns[: end + 1]) if end is not None else [*turns, Turn(turn_id, "", "user", message)]
    out: list[Message] = []
    for turn in chosen:
        if turn.role not in ("user", "agent") or not turn.content.strip():
            continue
        msg = _message(turn)
        if out and type(out[-1]) is type(msg):
            out[-1] = _join(out[-1], msg)
        else:
            out.append(msg)
    users = sum(1 for m in out if isinstance(m, UserMessage))
    return slice_window(
        out, lambda m: "user" if isinstance(m, UserMessage) else "assistant", users, max_messages
    )
