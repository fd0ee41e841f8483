"""The arrival briefing ("Previously on…"): who the user is, where they left off, what is open.

Pure: it gets the newest slices (newest first) and the live card's text and returns only what
those hold — never a placeholder. An empty memory gives an empty briefing.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime

from core.errors import NotFound
from core.i18n import t
from core.memory.card.identity import parse_identity
from core.memory.card.model import Card, overdue_horizon, render_card
from core.memory.card.store import StoredCard
from core.memory.catalog.entry import CatalogEntry
from core.memory.catalog.recent import Lister, recent_slices
from core.memory.owners.card import live_card
from core.memory.slice.model import Turn
from core.memory.slice.slicer import fallback_opening, opening_line
from core.memory.slice.view import read_slice_detail
from core.reltime import local_date_key, normalize_locale
from core.search.tokenize import tokenize
from core.text import js_trim, utf16_len, utf16_slice

MAX_LOOPS = 4
LABEL_MAX = 30
LOOP_SLICES = 3  # open loops come from this many newest slices
RECENT_SLICES = 8


@dataclass(frozen=True)
class Suggestion:
    """A chip: a label of at most 30 characters and the full message it sends."""

    label: str
    prompt: str


@dataclass(frozen=True)
class Briefing:
    """The briefing's parts; each is empty when memory holds nothing for it."""

    name: str | None = None
    last_topic: str | None = None
    last_slice_id: str | None = None
    open_loops: list[str] = field(default_factory=list)
    suggestions: list[Suggestion] = field(default_factory=list)
    card_excerpt: str | None = None


def shorten(text: str, limit: int = LABEL_MAX) -> str:
    """`text` cut to `limit` UTF-16 units, ending in an ellipsis when cut."""
    text = js_trim(" ".join(text.split()))
    if utf16_len(text) <= limit:
        return text
    return js_trim(utf16_slice(text, 0, limit - 1)) + "…"


# A first word that reads lower-case after "Talk about" ("the flight", "planning the move").
_LOWER_FIRST = {
    "the",
    "a",
    "an",
    "my",
    "our",
    "your",
    "this",
    "that",
    "these",
    "those",
    "some",
    "how",
    "what",
    "why",
}


def _own_topic(s: CatalogEntry) -> str:
    """The focus or summary a model or the user wrote (not the deterministic fallback line)."""
    focus = js_trim(s.focus)
    if fallback_opening(focus) is not None:
        return ""
    return focus or js_trim(s.summary)


def _quoted(opening: str) -> str:
    opening = js_trim(opening)
    return f"“{opening}”" if opening else ""


def _topic(s: CatalogEntry, openings: Mapping[str, str], quote: bool = True) -> str:
    """What the slice was about: its own topic, else the user's opening words — quoted, except in
    a chip's label, whose 30 characters are better spent on the words than on a quote left open
    where the label is cut."""
    own = _own_topic(s)
    if own:
        return own
    opening = fallback_opening(js_trim(s.focus)) or openings.get(s.id, "")
    return _quoted(opening) if quote else js_trim(opening)


# A topic that already says "talking about …" would read "Talk about talking about …" in a chip.
_TALK_LEAD = {
    "en": re.compile(
        r"^(?:(?:a |the )?(?:chat|talk|conversation|discussion)s? (?:about|on|of) |"
        r"(?:talk(?:ing|ed)?|chat(?:ting|ted)?|discuss(?:ing|ed)?|thinking|thought)"
        r" (?:about |over |through )?)",
        re.IGNORECASE,
    ),
    "zh": re.compile(r"^(?:聊聊|聊一聊|谈谈|谈一谈|讨论了?|关于)[：:，, ]?"),
}


def _without_talk(topic: str, locale: str) -> str:
    """`topic` without a lead that repeats the chip's own verb; the topic whole when that is all
    it says."""
    rest = js_trim(_TALK_LEAD[locale].sub("", topic, count=1))
    return rest or topic


def _last_topic(slices: Sequence[CatalogEntry], openings: Mapping[str, str]) -> CatalogEntry | None:
    """The newest slice (the one in progress too) with a topic of its own, else the newest
    slice whose opening words are known."""
    own = next((s for s in slices if _own_topic(s)), None)
    return own or next((s for s in slices if _topic(s, openings)), None)


def _mid_sentence(topic: str, locale: str) -> str:
    """`topic` as it reads after "Talk about": a leading article or -ing word lower-cased."""
    first, _, rest = topic.partition(" ")
    if locale != "en" or not first[:1].isupper() or not first[1:].islower():
        return topic
    if first.lower() in _LOWER_FIRST or first.endswith("ing"):
        return " ".join(filter(None, (first.lower(), rest)))
    return topic


def _same_loop(a: frozenset[str], b: frozenset[str]) -> bool:
    """Two loops are one when every term of the shorter (two at least) is in the longer: "Book the
    flights to Chengdu" and "Book the Chengdu flights with Leo on Saturday" (stems, stopwords
    dropped, CJK as character pairs — the search index's terms)."""
    short, long_ = (a, b) if len(a) <= len(b) else (b, a)
    return len(short) >= 2 and short <= long_


def _dedupe_add(
    out: list[str], seen: list[tuple[str, frozenset[str]]], item: str, shown: str | None = None
) -> None:
    """Add `shown` (else `item`) unless a loop already added says the same as `item`, word for
    word or in fewer words; the first, newer one is kept."""
    text = " ".join(item.lower().split())
    if not text or len(out) >= MAX_LOOPS:
        return
    terms = frozenset(tokenize(text))
    if any(text == other or _same_loop(terms, other_terms) for other, other_terms in seen):
        return
    seen.append((text, terms))
    out.append(js_trim(shown if shown is not None else item))


def open_loops(
    slices: Sequence[CatalogEntry], card: Card | None, today: str, locale: str = "en"
) -> list[str]:
    """Up to four loops: the newest slice's, overdue Horizon items, then older slices', each said
    once (a loop that repeats an earlier one in the same or fewer words is left out)."""
    lang = normalize_locale(locale)
    recent = list(slices[:LOOP_SLICES])
    out: list[str] = []
    seen: list[tuple[str, frozenset[str]]] = []
    for loop in recent[0].open_loops if recent else []:
        _dedupe_add(out, seen, loop)
    for item in overdue_horizon(card.horizon, today) if card else []:
        # Compared by its words, not by the date added to them.
        _dedupe_add(out, seen, item.text, t("briefing.overdue", lang, text=js_trim(item.text), by=item.by))
    for s in recent[1:]:
        for loop in s.open_loops:
            _dedupe_add(out, seen, loop)
    return out


def suggestions(
    slices: Sequence[CatalogEntry],
    last: CatalogEntry | None,
    has_loops: bool,
    locale: str = "en",
    openings: Mapping[str, str] | None = None,
) -> list[Suggestion]:
    """The chips: continue the last topic, show open threads, talk about another recent topic."""
    lang = normalize_locale(locale)
    known = openings or {}
    out: list[Suggestion] = []
    if last is not None:
        out.append(
            Suggestion(
                shorten(t("briefing.continue.label", lang, focus=_topic(last, known, quote=False))),
                t("briefing.continue.prompt", lang, focus=_topic(last, known)),
            )
        )
    if has_loops:
        out.append(Suggestion(shorten(t("briefing.threads.label", lang)), t("briefing.threads.prompt", lang)))
    last_topic = _topic(last, known).lower() if last else ""
    other = next(
        (s for s in slices if s is not last and _own_topic(s) and _own_topic(s).lower() != last_topic), None
    )
    if other is not None:
        focus = _own_topic(other)
        subject = _without_talk(focus, lang)
        out.append(
            Suggestion(
                shorten(t("briefing.talk.label", lang, focus=_mid_sentence(subject, lang))),
                t("briefing.talk.prompt", lang, focus=subject),
            )
        )
    return out


def card_excerpt(card: Card | None) -> str | None:
    """The card's Now and Horizon sections as Markdown (what is live for the user), or None."""
    if card is None or not (card.now or card.horizon):
        return None
    part = Card(now=card.now, horizon=card.horizon)
    text = render_card(part)
    start = text.find("\n## ")
    return text[start + 1 :] if start != -1 else None


def build_briefing(
    slices: Sequence[CatalogEntry],
    card_text: str | None,
    card: Card | None,
    now: datetime,
    tz: str | None = None,
    locale: str = "en",
    openings: Mapping[str, str] | None = None,
) -> Briefing:
    """The briefing from the newest slices (newest first) and the live card (text and parsed);
    `openings` holds the user's first line of slices not yet marked (the one in progress)."""
    known = openings or {}
    profile = parse_identity(card_text) if card_text else None
    today = local_date_key(now, tz) or now.date().isoformat()
    last = _last_topic(slices, known)
    loops = open_loops(slices, card, today, locale)
    return Briefing(
        name=(profile.name or profile.address_as or None) if profile else None,
        last_topic=_topic(last, known) if last else None,
        last_slice_id=last.id if last else None,
        open_loops=loops,
        suggestions=suggestions(slices, last, bool(loops), locale, known),
        card_excerpt=card_excerpt(card),
    )


@dataclass(frozen=True)
class Arrival:
    """What a returning user sees: the briefing, the newest slices, the open slice with its turns."""

    briefing: Briefing
    recent: list[CatalogEntry]
    active: CatalogEntry | None
    active_turns: list[Turn]
    empty: bool


def arrival(view: Lister, now: datetime, tz: str | None = None, locale: str = "en") -> Arrival:
    """Read the newest slices and the card through `view` and build the arrival state."""
    slices = recent_slices(view, RECENT_SLICES)
    live = live_card(view)  # a damaged card: the newest readable snapshot stands in
    stored = StoredCard(live.text)
    card = stored.card(now) if stored.text else None
    active = slices[0] if slices and not slices[0].closed else None
    turns: list[Turn] = []
    if active is not None:
        try:
            turns = read_slice_detail(view, active.id).slice.turns
            active = replace(active, turn_count=len(turns))  # the catalog counts only at creation
        except NotFound:
            active = None
    openings = {active.id: opening_line(turns)} if active is not None else {}
    return Arrival(
        briefing=build_briefing(slices, stored.text, card, now, tz, locale, openings),
        recent=[s for s in slices if active is None or s.id != active.id][:3],
        active=active,
        active_turns=turns,
        empty=not slices and not stored.text,
    )
