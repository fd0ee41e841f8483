"""The slice-frozen system prompt, and how a mid-slice card change reaches the model.

The prompt is built once per slice (on its first turn) and kept in the run store under the
slice, so every turn of the slice sends the same bytes — the provider's prompt cache stays warm
and the model's picture of the past does not shift mid-conversation — and once per turn, so
every round and retry of a turn sends exactly what its first round did. When an explicit
"remember this" changes the card mid-slice, the prompt stays as it is and this turn's message
carries a short note saying what changed.
"""

from __future__ import annotations

from core.agent.prompt import build_system_prompt
from core.llm.types import Message, UserMessage
from core.memory.config import UserConfig
from core.memory.owners.card import live_card
from core.memory.slice.model import Slice
from core.storage.base import WriteBatch
from core.turn.closing import read_slice
from core.turn.deps import TurnDeps
from core.turn.steps.common import PROMPT_KEY


def slice_runs_id(slice_id: str) -> str:
    """Where the run store keeps what belongs to a slice rather than to one turn."""
    return f"slice-{slice_id}"


def frozen_prompt(
    deps: TurnDeps,
    turn_id: str,
    batch: WriteBatch,
    current: Slice,
    config: UserConfig,
    closed_id: str | None,
    timezone: str,
) -> str:
    """This turn's system prompt: the turn's own, else the slice's, else built now and kept for both."""
    stored = deps.run_store.get(turn_id, PROMPT_KEY)
    if isinstance(stored, str):
        return stored
    slice_key = slice_runs_id(current.slice_id)
    text = deps.run_store.get(slice_key, PROMPT_KEY)
    if not isinstance(text, str):
        text = build_system_prompt(
            batch,
            current,
            card_text=live_card(batch).text,
            config=config,
            timezone=timezone,
            demo=deps.demo,
            closed_slice=read_slice(batch, str(closed_id)) if closed_id else None,
            web=None if deps.web is None else deps.web.any,
        )
        deps.run_store.put(slice_key, PROMPT_KEY, text)
    deps.run_store.put(turn_id, PROMPT_KEY, text)
    return text


def with_card_note(history: list[Message], note: str | None) -> list[Message]:
    """History whose last user message says the card changed this turn (unchanged without a note)."""
    if not note or not history or not isinstance(history[-1], UserMessage):
        return history
    added = f"(Memory note, not written by the user: the user card was just updated — {note})"
    return [*history[:-1], UserMessage(f"{history[-1].text}\n\n{added}")]
