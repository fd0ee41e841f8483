"""The read tools both passes use, the card pass's report tool, and the progress labels of their calls.

The read tools are small and read-only: they look at slices through the step's batch (so a
slice created earlier in the same step is visible) and never write. The card itself is edited
only through `CardSession`'s mutation tools.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, Protocol

from pydantic import BaseModel, ConfigDict, Field

from core.agent.evolution.card_tools import CardSession
from core.agent.workers.analysis import Text
from core.errors import InvalidInput
from core.llm.tools import Tool
from core.memory.paths import (
    CARD,
    MemoryPath,
    card_snapshot,
    core_md,
    legacy_flat_md,
    parse_slice_id,
)
from core.memory.slice.agent_parts import log_text, read_parts
from core.memory.slice.segments import read_slice_range
from core.text import utf16_len, utf16_slice

REPORT_TOOL = "finish"
READ_CAP = 16_000
DEFAULT_LAST = 20


class Reader(Protocol):
    """Anything that reads and lists memory files (a Snapshot or a WriteBatch)."""

    def read(self, path: MemoryPath) -> str | None: ...

    def list(self, prefix: MemoryPath) -> list[MemoryPath]: ...


SliceId = Annotated[str, Field(description="A slice id, YYYY-MM-DD-HHMM (UTC start minute)")]


class FinishReport(BaseModel):
    """End the pass: why you changed what you changed, and one sentence for the user."""

    model_config = ConfigDict(extra="ignore")

    reasoning: Text = Field(
        description="What you changed on the card and why, or why nothing needed changing"
    )
    summary: Text = Field(
        default="",
        description="One sentence, in the user's language, on what changed on the card; empty if nothing did",
    )


def slice_exists(view: Reader) -> Callable[[str], bool]:
    """Whether a slice id names a slice in `view` (directory or legacy flat file)."""

    def exists(slice_id: str) -> bool:
        try:
            return view.read(core_md(slice_id)) is not None or view.read(legacy_flat_md(slice_id)) is not None
        except InvalidInput:
            return False

    return exists


def _capped(text: str, hint: str) -> str:
    if utf16_len(text) <= READ_CAP:
        return text
    left_out = utf16_len(text) - READ_CAP
    return f"(the first {left_out} characters are left out; {hint})\n\n{utf16_slice(text, -READ_CAP)}"


def read_tools(view: Reader) -> list[Tool]:
    """readSlice / readPreviously / readAgentTimeline over `view`, as model tools."""

    def read_slice(slice_id: SliceId, last: int | None = None) -> str:
        """Read a slice's conversation: its frontmatter and its last `last` turns (default 20; 0 = all)."""
        parse_slice_id(slice_id)
        raw = view.read(core_md(slice_id)) or view.read(legacy_flat_md(slice_id))
        if raw is None:
            return f"(slice not found: {slice_id})"
        count = DEFAULT_LAST if last is None else max(0, last)
        text = read_slice_range(raw, slice_id, {"type": "last", "count": count})
        return _capped(text, "ask for fewer turns with `last`")

    def read_previously(slice_id: SliceId | None = None) -> str:
        """Read the card as it stood for a slice (its previously.md); without an id, the live card."""
        if slice_id is None:
            return view.read(CARD) or "(there is no live card yet)"
        parse_slice_id(slice_id)
        text = view.read(card_snapshot(slice_id))
        return _capped(text, "the card is unusually long") if text else f"(no card snapshot for {slice_id})"

    def read_agent_timeline(slice_id: SliceId) -> str:
        """Read the assistant's working notes for a slice (agent.md: its thinking and tool calls)."""
        parse_slice_id(slice_id)
        text = log_text(read_parts(view, slice_id))  # every part of the log, in order
        return (
            _capped(text, "the newest entries are shown") if text else f"(no agent timeline for {slice_id})"
        )

    return [Tool.from_function(f) for f in (read_slice, read_previously, read_agent_timeline)]


def card_tools(session: CardSession) -> list[Tool]:
    """The session's mutation tools as model tools."""
    return session.as_tools()


_LABELS = {
    "set_identity": "Updating Identity",
    "update_past_profile": "Rewriting the profile",
    "add_past_anchor": "Adding a lasting fact",
    "remove_past_anchor": "Removing a lasting fact",
    "add_now": "Noting what is current",
    "remove_now": "Dropping a Now item",
    "promote_now_to_past": "Moving a Now item to Past",
    "add_horizon": "Adding a commitment",
    "resolve_horizon": "Resolving a commitment",
    "add_self_model": "Recording a lesson",
    "remove_self_model": "Removing a lesson",
    "read_previously": "Reading an earlier card",
    "read_agent_timeline": "Reading the assistant's notes",
    REPORT_TOOL: "Wrapping up",
}


def progress_label(tool: str, args: dict[str, Any]) -> str:
    """A short human line for one tool call of the card pass or the direction pass."""
    if tool == "read_slice":
        return f"Reading slice {args.get('slice_id', '')}".rstrip()
    return _LABELS.get(tool, f"Running {tool}")
