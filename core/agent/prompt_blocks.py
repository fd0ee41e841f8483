"""The text blocks of the main agent's system prompt, each a pure function of its inputs.

Every block that mentions time is anchored to the slice start (never to "now"), which is what
keeps the assembled prompt byte-identical for every turn of a slice.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from core.agent import identity_text
from core.memory.card.identity import identity_block_for
from core.reltime import Instant, local_date_key, normalize_locale, rel_phrase
from core.reltime_blocks import annotate_card_times, slice_start_iso

MENU_SIZE = 20
_SLICE_PATH_LEN = len("2026/08/11/1115")

CARD_RULES = (
    "Each line of the card above is an inference, and its refs name the slices it was drawn from. "
    "It tells you who the user is and what is going on for them — not what was said. Before you quote, "
    "date or rely on a specific from it, open the referenced slice with readSlice. When the user tells "
    "you something that contradicts the card, believe the user."
)
POINTER_RULE = (
    "- These lines are pointers, not sources: open a slice with readSliceSummary or readSlice before "
    "you say what happened in it."
)
TOPICS_RULE = (
    "When the user's message touches one of these topics — or anything else from the past — call recall "
    "once. If it finds nothing, there is nothing to find: do not search again."
)
DEMO_NOTICE = (
    "## Demo mode (read-only)\n"
    "This memory belongs to a fictional person and exists to show how Previously works. Nothing said "
    "here is kept: new turns and card changes vanish when the server stops (on a public demo, a day "
    "after the first change at the latest). If the user asks how to "
    "keep a memory of their own, point them to docs/DEPLOY.md in the project — their own AWS account "
    "with a private GitHub repository for the memory, or `previously serve` on their own machine."
)


def identity_layer(card_text: str) -> str:
    """L0: the agent's character, who it is assisting (from the card's Identity), its standing rules."""
    parts = [identity_text.SOUL, identity_block_for(card_text or ""), identity_text.DIRECTIVES]
    return "\n\n".join(p for p in parts if p.strip())


def date_anchor(start: str, timezone: str | None) -> str:
    """The slice start's date on the user's calendar (the first 10 characters when unparseable)."""
    return local_date_key(start, timezone) or start[:10]


def card_header(anchor: str) -> str:
    """The line introducing the user card."""
    return f"## The user card — what I infer about them (as of {anchor})"


def card_layer(card_text: str, start: str, timezone: str | None, locale: str) -> str:
    """L1: the live card with `since:` / `by:` dates made relative to the slice start."""
    return annotate_card_times(card_text.strip(), start, timezone, locale)


def strands_menu(
    strands: Mapping[str, Sequence[str]],
    *,
    before: str,
    anchor: Instant,
    timezone: str | None,
    locale: str,
) -> str:
    """`Known topics: …` — up to 20 strands, most recently touched first, each with its last date.

    Only slices before `before` (a slice path `YYYY/MM/DD/HHMM`) count, so tags the current slice
    adds while it runs do not change the menu.
    """
    latest: dict[str, str] = {}
    for key, paths in strands.items():
        last = _latest_before(paths, before)
        if last is not None and key.strip():
            latest[key] = last
    ranked = sorted(latest, key=lambda k: (latest[k], k), reverse=True)[:MENU_SIZE]
    if not ranked:
        return ""
    zh = normalize_locale(locale) == "zh"
    shown = [_topic(k, latest[k], anchor, timezone, locale) for k in ranked]
    return ("已知话题：" + "、".join(shown)) if zh else ("Known topics: " + ", ".join(shown))


def _latest_before(paths: Sequence[str], before: str) -> str | None:
    """The latest slice path in `paths` before `before`; None when there is none."""
    if set(map(type, paths)) <= {str}:  # a strand of thousands of paths: compared in C
        last = max(filter(before.__gt__, paths), default=None)
        if last is None or len(last) == _SLICE_PATH_LEN:
            return last
    earlier = [p for p in paths if isinstance(p, str) and len(p) == _SLICE_PATH_LEN and p < before]
    return max(earlier) if earlier else None


def _topic(key: str, path: str, anchor: Instant, timezone: str | None, locale: str) -> str:
    start = slice_start_iso(path)
    if not timezone or start is None:
        return key
    day = local_date_key(start, timezone)
    phrase = rel_phrase(start, anchor, timezone, locale, weekday=True)
    if not day or not phrase:
        return key
    if normalize_locale(locale) == "zh":
        return f"{key}（最近 {day[5:]} {phrase}）"
    return f"{key} (last {day[5:]} · {phrase})"


def strands_layer(menu: str) -> str:
    """L5: the topic menu with its one instruction; "" when there are no topics yet."""
    return f"## Memory topics\n\n{menu}\n{TOPICS_RULE}" if menu else ""
