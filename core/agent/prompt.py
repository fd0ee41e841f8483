"""The main agent's system prompt, frozen for the life of a slice.

docs/ARCHITECTURE.md "The prompt and the tools" describes it.

Layers, joined by blank lines (empty ones left out):
  L0  identity: character, who the agent assists (the card's Identity), standing rules
  L1  the user card, dates made relative to the slice start, under a dated header
  L2  how to treat the card; L2b Horizon items already overdue at the slice start
  L3  the slice head: start time, date anchors, continuity with the previous slice
  L4  the timeline brief: the newest slices closed before this one, as pointers
  L5  the topic (strand) menu; the demo notice; the no-web note
Every time in it is anchored to the slice start and every list stops at the slices before the
current one, so each turn of a slice gets the same bytes (and the provider's prompt cache).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from core.agent import prompt_blocks as blocks
from core.agent.catalog_view import read_recent_catalog, settle_before
from core.agent.timeline_brief import RECENT, newest, timeline_brief
from core.agent.web_tools import NO_WEB_NOTE
from core.clock import try_parse_iso
from core.errors import InvalidInput
from core.memory import paths
from core.memory.card.timing import overdue_block
from core.memory.catalog.strand_shards import read_menu
from core.memory.catalog.timeline_md import entries_of
from core.memory.config import UserConfig
from core.memory.slice.model import Slice
from core.reltime_blocks import PrevSlice, continuity, slice_head_block, slice_start_iso
from core.storage.base import Reader

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def build_system_prompt(
    view: Reader,
    current: Slice,
    *,
    card_text: str | None,
    config: UserConfig,
    timezone: str,
    demo: bool,
    closed_slice: Slice | None = None,
    web: bool | None = None,
) -> str:
    """The system prompt for every turn of `current`.

    `card_text` is the live card (None: read it from `view`). The zone is the one the slice
    recorded when it opened (`timezone` only when it recorded none). `closed_slice` is the
    slice closed by this very turn, if any (otherwise the catalog says which came before).
    To keep the prompt unchanged after a mid-slice card evolution, pass the card as it was
    when the slice opened. `web` False adds the note that the agent has no web (None: unknown, no note).
    """
    tz = current.timezone or timezone or "UTC"
    start = current.start or slice_start_iso(current.slice_id) or ""
    locale = config.locale
    card = _card(view, card_text)
    anchor = try_parse_iso(start) or _EPOCH
    index = settle_before(view, read_recent_catalog(view, anchor, current.slice_id, RECENT), current.slice_id)
    prev = _previous(index, current.slice_id, closed_slice)
    head = slice_head_block(
        start, tz, continuity(start, prev), locale=locale, evolution_summary=current.evolution_summary
    )
    brief = timeline_brief(index, as_of=current.slice_id, timezone=tz, locale=locale)
    menu = blocks.strands_menu(
        {key: entry.latest for key, entry in read_menu(view).items()},
        before=paths.slice_rel(current.slice_id),
        anchor=start,
        timezone=tz,
        locale=locale,
    )
    layers = [
        blocks.identity_layer(card),
        *_card_layers(card, start, tz, locale),
        head,
        f"{brief}\n{blocks.POINTER_RULE}",
        blocks.strands_layer(menu),
        blocks.DEMO_NOTICE if demo else "",
        NO_WEB_NOTE if web is False else "",
    ]
    return "\n\n".join(layer for layer in layers if layer)


def _card_layers(card: str, start: str, tz: str, locale: str) -> list[str]:
    if not card.strip():
        return []
    return [
        blocks.card_header(blocks.date_anchor(start, tz)),
        blocks.card_layer(card, start, tz, locale),
        blocks.CARD_RULES,
        overdue_block(card, blocks.date_anchor(start, tz), locale),
    ]


def _card(view: Reader, card_text: str | None) -> str:
    return card_text if card_text is not None else (_read(view, paths.CARD) or "")


def _read(view: Reader, path: paths.MemoryPath) -> str | None:
    try:
        return view.read(path)
    except InvalidInput:  # unreadable (too large, not UTF-8): the prompt goes without it
        return None


def _previous(index: Mapping[str, Any] | None, current_id: str, closed: Slice | None) -> PrevSlice | None:
    """The slice before the current one: the one closed this turn, else the newest closed before it."""
    if closed is not None and closed.slice_id < current_id:
        return PrevSlice(closed.slice_id, closed.focus, closed.start, closed.end)
    earlier = [e for e in entries_of(index or {}) if e.closed and e.id < current_id]
    if not earlier:
        return None
    e = newest(earlier, 1)[0]
    return PrevSlice(e.id, e.focus, e.start, e.end)
