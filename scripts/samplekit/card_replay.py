"""Replay the card's history through the product's card tools: one `CardSession` per evolution.

A close-time evolution runs when the next slice opens: it is stamped with the closed slice's id
and a time just after the next slice starts, and both slices' snapshots show its result. New Now
items are dated by the conversation they came from, not by the evolution's own day.
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any
from zoneinfo import ZoneInfo

from core.agent.evolution.card_tools import CardSession
from core.llm.types import ToolCall
from core.memory.card.model import Card, new_card, render_card

from .source import SourceError
from .timing import Timed

# Source operation -> (CardSession tool, the argument a bare string fills).
OPS: dict[str, tuple[str, str]] = {
    "set_identity": ("set_identity", "value"),
    "profile": ("update_past_profile", "text"),
    "add_anchor": ("add_past_anchor", "text"),
    "add_now": ("add_now", "text"),
    "add_horizon": ("add_horizon", "text"),
    "add_self_model": ("add_self_model", "text"),
    "promote": ("promote_now_to_past", "match"),
    "remove_anchor": ("remove_past_anchor", "match"),
    "remove_now": ("remove_now", "match"),
    "resolve_horizon": ("resolve_horizon", "match"),
    "remove_self_model": ("remove_self_model", "match"),
}
_WITH_REFS = frozenset({"add_past_anchor", "add_now", "add_horizon"})
# Self-model lessons and the profile cite their evidence inline: `… — refs: [2026/08/12/2155]`.
_INLINE_REF_RE = re.compile(r"\[(\d{4})/(\d{2})/(\d{2})/(\d{4})(?:-[A-Za-z0-9_-]+)?\]")


@dataclass
class CardHistory:
    """The card after every slice (its `previously.md`), the summaries of changes, the live card."""

    snapshots: dict[str, str] = field(default_factory=dict)
    summaries: dict[str, str] = field(default_factory=dict)  # on the slice after the evolution
    live: str = ""


def tool_call(op: Any, closed_rel: str, today: str) -> tuple[str, dict[str, Any]]:
    """A source operation `{name: args}` as a CardSession tool name and its arguments.

    New anchors, Now and Horizon items cite the closed slice unless the op gives `refs`, and
    Now items start on `today` unless it gives `since`.
    """
    if not isinstance(op, dict) or len(op) != 1:
        raise SourceError(f"a card operation is a single `name: args` entry, got {op!r}")
    ((name, args),) = op.items()
    if name not in OPS:
        raise SourceError(f"unknown card operation {name!r}; known: {', '.join(OPS)}")
    tool, primary = OPS[name]
    call = dict(args) if isinstance(args, dict) else {primary: args}
    if tool in _WITH_REFS:
        call.setdefault("refs", [closed_rel])
    if tool == "add_now":
        call.setdefault("since", today)
    return tool, call


def replay_card(timed: Sequence[Timed], timezone: str) -> CardHistory:
    """Apply every slice's evolution in order, refusing operations the card tools refuse."""
    first = timed[0]
    text = render_card(new_card(first.slice_id, first.start + timedelta(milliseconds=1200)))
    history = CardHistory()
    for i, t in enumerate(timed):
        evolution = t.src.evolution
        if evolution:
            if i + 1 == len(timed):
                raise SourceError(f"{t.slice_id}: the newest slice cannot evolve the card yet")
            citable = {s.slice_id for s in timed[: i + 1]}
            text = _evolve(text, evolution["ops"], (t, timed[i + 1]), citable, timezone)
            history.summaries[timed[i + 1].slice_id] = evolution["summary"]
        history.snapshots[t.slice_id] = text
    history.live = text
    return history


def _evolve(base: str, ops: list[Any], pair: tuple[Timed, Timed], citable: set[str], timezone: str) -> str:
    """One evolution pass: the closed slice's ops through a CardSession, then the card's text."""
    closed, nxt = pair
    rng = random.Random(f"card:{closed.slice_id}")
    at = nxt.start + timedelta(seconds=rng.uniform(3, 12))
    session = CardSession(
        base, slice_id=closed.slice_id, now=at, slice_exists=citable.__contains__, timezone=timezone
    )
    today = closed.start.astimezone(ZoneInfo(timezone)).date().isoformat()
    tools = {t.spec.name: t for t in session.as_tools()}
    for op in ops:
        try:
            tool, call = tool_call(op, closed.rel, today)
        except SourceError as exc:
            raise SourceError(f"{closed.slice_id}: {exc}") from exc
        if tool not in tools:
            raise SourceError(f"{closed.slice_id}: card operation {op!r} names no tool ({', '.join(tools)})")
        answer = tools[tool].run(ToolCall(f"op-{tool}", tool, call)).content
        if not answer.startswith("OK"):
            future = "does not exist" in answer
            hint = " (it may cite only slices up to the one that closed)" if future else ""
            raise SourceError(f"{closed.slice_id}: card operation {op!r} was refused{hint}: {answer}")
    _check_inline_refs(session.card, citable, closed.slice_id)
    if not session.changed:
        raise SourceError(f"{closed.slice_id}: the evolution changes nothing on the card")
    return session.render()


def _check_inline_refs(card: Card, citable: set[str], closed_id: str) -> None:
    for line in [card.past.profile, *card.self_model]:
        for m in _INLINE_REF_RE.finditer(line):
            if "-".join(m.groups()) not in citable:
                raise SourceError(f"{closed_id}: card ref {m.group(0)} is not a slice that exists by then")
