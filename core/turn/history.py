"""What the main model is sent: the current slice's conversation, then this turn's earlier rounds.

History is trimmed to the slice (REFERENCE §13.4): earlier slices reach the model only through
the frozen prompt and the memory tools. Consecutive turns of one role (a message that got no
reply because no model was configured, say) are joined, since providers expect alternation.
"""

from __future__ import annotations

from collections.abc import Sequence

from core.llm.types import AssistantMessage, Message, UserMessage
from core.memory.slice import Slice, Turn


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
    out = out[-max_messages:] if max_messages > 0 else out
    while out and not isinstance(out[0], UserMessage):
        out.pop(0)
    return out
