"""The request both passes take and the card pass's outcome (shared by the passes, the triggers, callers)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from core.agent.evolution.card_prompt import Signal
from core.memory.slice.model import Turn


@dataclass(frozen=True)
class EvolutionRequest:
    """One evolution pass: why it runs, the slice it is about, and the conversation to learn from.

    `slice_id` is the closed slice for `slice_closed`, else the current one; its `previously.md`
    receives the evolved card (unless `snapshot` is False: a pass run on request after the slice
    closed must not rewrite how the card stood then). `force` writes the card back even when its
    substance is unchanged.
    """

    signal: Signal
    slice_id: str
    turns: Sequence[Turn] = ()
    tags: Sequence[str] = ()
    focus_hint: str = ""
    timezone: str = "UTC"
    force: bool = False
    snapshot: bool = True


@dataclass(frozen=True)
class EvolutionOutcome:
    """What a pass did. `summary` is for the user; `reason` explains a pass that changed nothing."""

    changed: bool
    summary: str = ""
    diff: str = ""
    reason: str = ""
    mutations: tuple[str, ...] = ()
    partial: bool = False
    error: str | None = None
    card_text: str | None = field(default=None, repr=False)

    def event(self) -> tuple[str, dict[str, Any]]:
        """The turn event for this outcome: `card.evolved` {summary, diff} or `card.skipped` {reason}."""
        if self.changed:
            return "card.evolved", {"summary": self.summary, "diff": self.diff}
        return "card.skipped", {"reason": self.reason}


def skipped(reason: str) -> EvolutionOutcome:
    """The outcome of a pass that did not run."""
    return EvolutionOutcome(changed=False, reason=reason)
