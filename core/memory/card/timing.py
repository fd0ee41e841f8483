"""Time on the card: aged Now items and overdue Horizon items, for the card pass and the prompt.

Nothing here removes anything. Now items 7+ days old are listed to the card pass, which
decides whether to promote or drop them; overdue Horizon items are listed to it too and, for
the main agent, rendered as the prompt's overdue block so it asks how they turned out.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from core.memory.card.migrate import to_current_card
from core.memory.card.model import (
    Card,
    HorizonItem,
    NowItem,
    aged_now_items,
    is_date,
    overdue_horizon,
)
from core.reltime import day_diff, local_date_key, normalize_locale

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def user_today(now: datetime, timezone: str | None) -> str:
    """The user's local calendar date (`YYYY-MM-DD`); UTC when the zone is unknown."""
    return local_date_key(now, timezone) or now.astimezone(UTC).date().isoformat()


def card_from_text(text: str | None, now: datetime) -> Card:
    """Any stored card text as a Card (legacy formats upgraded in memory; blank → empty)."""
    if not text or not text.strip():
        return Card()
    return to_current_card(text, slice_id="", now=now)


@dataclass(frozen=True)
class CardTimeFlags:
    """What the card pass must look at on the user's `today`."""

    today: str
    aged_now: tuple[NowItem, ...]
    overdue: tuple[HorizonItem, ...]

    @property
    def empty(self) -> bool:
        return not self.aged_now and not self.overdue


def time_flags(card: Card, today: str) -> CardTimeFlags:
    """The aged Now items and overdue Horizon items of `card` on `today`."""
    return CardTimeFlags(
        today, tuple(aged_now_items(card, today)), tuple(overdue_horizon(card.horizon, today))
    )


def aged_line(item: NowItem, today: str) -> str:
    """`- "text" (since 2026-08-01, 10 days ago)` for the evolution prompt."""
    age = day_diff(today, item.since) if is_date(item.since) else None
    ago = f", {age} days ago" if age is not None else ""
    return f'- "{item.text}" (since {item.since}{ago})'


def overdue_line(item: HorizonItem, today: str) -> str:
    """`- "text" (by 2026-08-05, 6 days overdue)` for the evolution prompt."""
    late = day_diff(today, item.by)
    overdue = f", {late} days overdue" if late is not None else ""
    return f'- "{item.text}" (by {item.by}{overdue})'


_OVERDUE_TEXT = {
    "en": (
        "## Overdue commitments",
        "These dates have passed and the card holds no outcome yet — when it fits the "
        "conversation, ask the user how they went",
    ),
    "zh": (
        "## 逾期承诺",
        "以下事项已过约定日期，卡片上还没有结果——在合适的时候问问用户进展如何",
    ),
}


def overdue_block(card_text: str | None, anchor_date: str, locale: str | None) -> str:
    """The prompt block listing Horizon items due before `anchor_date` ("" when there are none).

    `anchor_date` is the slice start's local date, so the block stays the same for every turn
    of a slice. Computed from the stored card text (no relative tags).
    """
    if not is_date(anchor_date):
        return ""
    # Only `by` dates matter here, so the clock used to fill defaults is irrelevant.
    late = overdue_horizon(card_from_text(card_text, _EPOCH).horizon, anchor_date)
    if not late:
        return ""
    lang = normalize_locale(locale)
    heading, sentence = _OVERDUE_TEXT[lang]
    if lang == "zh":
        items = "；".join(f"「{h.text}」（by {h.by}）" for h in late)
        return f"{heading}\n{sentence}：{items}"
    items = "; ".join(f'"{h.text}" (by {h.by})' for h in late)
    return f"{heading}\n{sentence}: {items}"
