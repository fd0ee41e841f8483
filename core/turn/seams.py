"""Stand-ins for the prompt and the main tools until the agent part lands (same signatures).

The `agent` part provides `build_system_prompt`, `main_tools`, `ToolContext` and `tool_label`;
the steps import them from here only, so switching to the real modules touches this file alone.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from core.clock import Clock
from core.errors import NotFound
from core.llm.registry import Resolution
from core.llm.tools import Tool
from core.memory.config import UserConfig
from core.memory.paths import core_md
from core.memory.slice import Slice
from core.storage.base import Reader, WriteBatch

# ---------------------------------------------------------------- prompt and tools (agent part)


def build_system_prompt(
    view: Any,
    current: Slice,
    *,
    card_text: str | None,
    config: UserConfig,
    timezone: str,
    demo: bool,
    closed_slice: Slice | None = None,
) -> str:
    """A minimal slice-frozen prompt: every input is fixed at the slice's start."""
    parts = [
        "You are Previously, a personal assistant with an episodic memory of your conversations.",
        f"This conversation is slice {current.slice_id}, started {current.start} (UTC); "
        f"the user's time zone is {current.timezone or timezone}.",
    ]
    if card_text and card_text.strip():
        parts.append("What you know about the user:\n\n" + card_text.strip())
    if demo:
        parts.append("Demo mode: nothing said here is saved.")
    return "\n\n".join(parts)


def _ignore(*_: Any) -> None:
    return None


@dataclass(kw_only=True)
class ToolContext:
    """What a main-agent tool may use during one step (the agent part's fields)."""

    view: Reader
    clock: Clock
    batch: WriteBatch | None = None
    models: Resolution | None = None
    slice_id: str | None = None
    timezone: str | None = None
    locale: str = "en"
    config: UserConfig = field(default_factory=UserConfig)
    progress: Callable[[str, str], None] = _ignore
    hits: Callable[[str, dict[str, Any]], None] = _ignore
    system_prompt: str = ""
    monotonic: Callable[[], float] = time.monotonic


def main_tools(ctx: ToolContext) -> list[Tool]:
    """The main agent's tools: a plain `readSlice` until the agent part lands."""

    def readSlice(sliceId: str) -> str:
        """Read one slice of the timeline (its core.md) by id, YYYY-MM-DD-HHMM (UTC)."""
        text = ctx.view.read(core_md(sliceId))
        if text is None:
            raise NotFound(f"Slice {sliceId} does not exist. Check the id against the timeline.")
        return str(text)

    return [Tool.from_function(readSlice)]


def tool_label(
    name: str,
    args: Any,
    state: str,
    locale: str = "en",
    *,
    timezone: str | None = None,
    output: str | None = None,
) -> str:
    """A short human label for a tool call."""
    shown = json.dumps(args, ensure_ascii=False)[:60] if args else ""
    return f"{name} {shown}".strip()
