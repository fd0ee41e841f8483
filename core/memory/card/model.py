"""The user card (`current-previously.md`, per-slice `previously.md`): model, parser, renderer.

The parser is tolerant of hand edits (bullets with or without blank lines, `*`/`+` bullets,
HTML comments, the legacy `## Profile` / `## Recent` headings, any heading case). Lines it
cannot place in a section are kept in `Card.unplaced` and rendered under `## Unsorted`, so a
round trip never loses what a person wrote. The renderer is deterministic (docs/CARD.md).
Legacy formats are upgraded in `core.memory.card.migrate`.
"""

from __future__ import annotations

import copy
import re
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from typing import Any

from core.clock import iso
from core.ids import DayKey
from core.reltime import day_diff
from core.text import js_trim

CARD_STAMP = "Format: user card v2"
LEGACY_CARD_STAMP = "Format: user card"
# The stamp of the older "dimension archive" (core.memory.card.migrate): never a card.
ARCHIVE_STAMP = "Format: user profile + self-model"
CARD_TITLE = "# Previously On"
UNSORTED_HEADING = "## Unsorted"

IDENTITY_MAX_LINES = 8
IDENTITY_VALUE_MAX_CHARS = 300
CARD_PROFILE_MAX_CHARS = 2400
PAST_ANCHORS_MAX = 8
PAST_ANCHOR_MAX_CHARS = 300
CARD_NOW_MAX = 5
NOW_ITEM_MAX_CHARS = 300
CARD_NOW_EXPIRY_DAYS = 7
HORIZON_MAX = 5
HORIZON_ITEM_MAX_CHARS = 200
CARD_SELF_MODEL_MAX = 10
SELF_MODEL_LINE_MAX_CHARS = 300
# Advisory only: the per-section caps keep a card well under it; nothing enforces it.
CARD_TOTAL_MAX_CHARS = 8192

_HEADER_RE = re.compile(r"_Active slice: ([^\s|]+).*?Updated: (.+?)_")
_COMMENT_RE = re.compile(r"<!--.*?-->", re.DOTALL)
_BULLET_RE = re.compile(r"^[-*+](?:\s+(.*))?$")
_REFS_RE = re.compile(r"—\s*refs:\s*(.*)$")
_BRACKET_RE = re.compile(r"\[([^\]]+)\]")
_SINCE_RE = re.compile(r"\|\s*since:\s*(\d{4}-\d{2}-\d{2})")
_BY_RE = re.compile(r"—\s*by:\s*(\d{4}-\d{2}-\d{2})")
_TRAILING_PAREN_RE = re.compile(r"\s*[(（][^()（）]*[)）]\s*$")

# Section headings, compared after lowercasing and folding spaces/hyphens.
_SECTIONS = {
    "identity": "identity",
    "past": "past",
    "profile": "past",
    "now": "now",
    "recent": "now",
    "horizon": "horizon",
    "selfmodel": "self_model",
    "unsorted": "unsorted",
}


@dataclass
class Anchor:
    """A durable Past fact with the slices that evidence it."""

    text: str
    refs: list[str] = field(default_factory=list)


@dataclass
class NowItem:
    """A current-state hook; `since` is the `YYYY-MM-DD` it became true."""

    text: str
    refs: list[str] = field(default_factory=list)
    since: str = ""


@dataclass
class HorizonItem:
    """A commitment or deadline; `by` is `YYYY-MM-DD` or "" when undated."""

    text: str
    by: str = ""
    refs: list[str] = field(default_factory=list)


@dataclass
class Past:
    """The rolling profile paragraph plus anchor facts."""

    profile: str = ""
    anchors: list[Anchor] = field(default_factory=list)


@dataclass
class Card:
    """The whole card. `unplaced` holds hand-written lines no section could take."""

    slice_id: str = ""
    updated: str = ""
    identity: list[str] = field(default_factory=list)
    past: Past = field(default_factory=Past)
    now: list[NowItem] = field(default_factory=list)
    horizon: list[HorizonItem] = field(default_factory=list)
    self_model: list[str] = field(default_factory=list)
    unplaced: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """The original's JSON shape (camelCase keys), as the vectors record it."""
        return {
            "sliceId": self.slice_id,
            "updated": self.updated,
            "identity": list(self.identity),
            "past": asdict(self.past),
            "now": [asdict(n) for n in self.now],
            "horizon": [asdict(h) for h in self.horizon],
            "selfModel": list(self.self_model),
        }

    def substance(self) -> dict[str, Any]:
        """Everything but the header stamps: two cards with equal substance need no write."""
        data = self.to_dict()
        del data["sliceId"], data["updated"]
        data["unplaced"] = list(self.unplaced)
        return data

    def copy(self) -> Card:
        """A deep copy, so edits to one never reach the other."""
        return copy.deepcopy(self)


def same_substance(a: Card | None, b: Card | None) -> bool:
    """True when the cards differ at most in slice id and updated stamp (None ≡ empty card)."""
    return (a or Card()).substance() == (b or Card()).substance()


# ---------------------------------------------------------------- helpers


def strip_inline_comments(text: str) -> str:
    """Drop `<!-- … -->` comments, then trim."""
    return js_trim(_COMMENT_RE.sub("", text))


def strip_trailing_parentheticals(text: str, limit: int = 3) -> str:
    """Drop up to `limit` trailing `(…)` asides: `Name: Bob (also Bobby)` → `Name: Bob`."""
    for _ in range(limit):
        stripped = _TRAILING_PAREN_RE.sub("", text)
        if stripped == text:
            break
        text = stripped
    return text


def is_date(value: str) -> bool:
    """`YYYY-MM-DD` shape (the original's test; calendar validity is checked by the tools)."""
    return DayKey.has_shape(value)


def is_card(text: str) -> bool:
    """Whether text is a card (any stamp `Format: user card…`, or Identity plus Past/Profile).

    A document stamped as the older archive is not one, whatever headings it holds: its
    `### Identity & background` would otherwise pass for `## Identity`, and a card parser would
    half-read it (the migration reads it whole).
    """
    text = text or ""
    if LEGACY_CARD_STAMP in text:
        return True
    has_past = "## Profile" in text or "## Past" in text
    return ARCHIVE_STAMP not in text and "## Identity" in text and has_past


def split_refs(text: str) -> tuple[str, list[str]]:
    """Split `text — refs: [a], [b]` into the text and its refs (bare refs tolerated)."""
    m = _REFS_RE.search(text)
    if not m:
        return js_trim(text), []
    tail = m.group(1)
    refs = _BRACKET_RE.findall(tail) or [r for r in re.split(r"[,\s]+", tail) if r]
    return js_trim(text[: m.start()]), [js_trim(r) for r in refs if js_trim(r)]


def _section_key(line: str) -> str:
    name = re.sub(r"[\s\-_]+", "", line[3:]).lower()
    return _SECTIONS.get(name, "other")


# ---------------------------------------------------------------- parse


def read_card(text: str, now: datetime) -> Card | None:
    """The card a document holds, or None when it is not a card (a legacy or foreign document)."""
    return parse_card(text, now) if is_card(text) else None


def parse_card(text: str, now: datetime) -> Card:
    """Parse a card; `now` fills a missing `updated` and a Now item's missing `since` (UTC date)."""
    card = Card()
    m = _HEADER_RE.search(text or "")
    card.slice_id, card.updated = (m.group(1), m.group(2)) if m else ("", iso(now))
    today = now.astimezone(UTC).date().isoformat()
    section: str | None = None
    profile: list[str] = []
    for raw in _COMMENT_RE.sub("", text or "").split("\n"):
        line = js_trim(raw)
        if not line:
            continue
        if line.startswith("## "):
            section = _section_key(line)
            if section == "other":
                card.unplaced.append(line)
            continue
        if section is None:
            if not line.startswith(("# ", "_")):
                card.unplaced.append(line)
            continue
        _place(card, section, line, profile, today)
    card.past.profile = "\n".join(profile)
    return card


def _place(card: Card, section: str, line: str, profile: list[str], today: str) -> None:
    bullet = _BULLET_RE.match(line)
    if section in ("other", "unsorted"):
        card.unplaced.append(line)
    elif bullet is None:
        if section == "past" and not line.startswith(("_", "#")):
            profile.append(line)
        else:
            card.unplaced.append(line)
    elif entry := js_trim(bullet.group(1) or ""):
        _add_entry(card, section, entry, today)


def _add_entry(card: Card, section: str, text: str, today: str) -> None:
    if section == "identity":
        card.identity.append(text)
    elif section == "self_model":
        card.self_model.append(text)
    elif section == "past":
        body, refs = split_refs(text)
        card.past.anchors.append(Anchor(body, refs))
    elif section == "now":
        since = _SINCE_RE.search(text)
        body, refs = split_refs(_SINCE_RE.sub("", text, count=1) if since else text)
        card.now.append(NowItem(body, refs, since.group(1) if since else today))
    elif section == "horizon":
        by = _BY_RE.search(text)
        body, refs = split_refs(_BY_RE.sub("", text, count=1) if by else text)
        card.horizon.append(HorizonItem(body, by.group(1) if by else "", refs))


# ---------------------------------------------------------------- render


def _clean(text: str) -> str:
    """One bullet's text: comments dropped, line breaks folded so the layout cannot break."""
    return js_trim(re.sub(r"\s*[\r\n]+\s*", " ", strip_inline_comments(text)))


def _refs_text(refs: list[str]) -> str:
    return ", ".join(f"[{r}]" for r in refs)


def anchor_line(a: Anchor) -> str:
    """An anchor as it appears after `- `."""
    return f"{_clean(a.text)} — refs: {_refs_text(a.refs)}" if a.refs else _clean(a.text)


def now_line(n: NowItem) -> str:
    """A Now item as it appears after `- `."""
    refs = f" — refs: {_refs_text(n.refs)}" if n.refs else ""
    return f"{_clean(n.text)}{refs} | since: {n.since}"


def horizon_line(h: HorizonItem) -> str:
    """A Horizon item as it appears after `- `."""
    by = f" — by: {h.by}" if h.by else ""
    refs = f" — refs: {_refs_text(h.refs)}" if h.refs else ""
    return f"{_clean(h.text)}{by}{refs}"


def _bullets(lines: list[str], bullets: list[str]) -> None:
    for b in bullets:
        lines += [f"- {b}", ""]


def _section(lines: list[str], heading: str, bullets: list[str]) -> None:
    if bullets:
        lines += [heading, ""]
        _bullets(lines, bullets)


def render_card(card: Card) -> str:
    """The card's file text: fixed section order, a blank line after every block, one final LF."""
    stamp = f"_Active slice: {card.slice_id} | {CARD_STAMP} | Updated: {card.updated}_"
    lines = [CARD_TITLE, "", stamp, ""]
    _section(lines, "## Identity", [_clean(t) for t in card.identity])
    profile = js_trim(card.past.profile)
    if profile or card.past.anchors:
        lines += ["## Past", ""]
        if profile:
            lines += [profile, ""]
        _bullets(lines, [anchor_line(a) for a in card.past.anchors])
    _section(lines, "## Now", [now_line(n) for n in card.now])
    _section(lines, "## Horizon", [horizon_line(h) for h in card.horizon])
    _section(lines, "## Self-model", [_clean(t) for t in card.self_model])
    if card.unplaced:
        lines += [UNSORTED_HEADING, ""]
        for u in card.unplaced:
            lines += [u, ""]
    text = re.sub(r"\n{3,}", "\n\n", "\n".join(lines))
    return text.rstrip() + "\n"


def new_card(slice_id: str, now: datetime) -> Card:
    """An empty card stamped for `slice_id`."""
    return Card(slice_id=slice_id, updated=iso(now))


# ---------------------------------------------------------------- time rules


def aged_now_items(card: Card, today: str) -> list[NowItem]:
    """Now items at least 7 days old on the user's `today` (flagged for review, never removed)."""
    aged = []
    for item in card.now:
        age = day_diff(today, item.since) if is_date(item.since) else None
        if age is not None and age >= CARD_NOW_EXPIRY_DAYS:
            aged.append(item)
    return aged


def overdue_horizon(items: list[HorizonItem], today: str) -> list[HorizonItem]:
    """Horizon items whose valid `by` date is before the user's `today`."""
    return [h for h in items if is_date(h.by) and h.by < today]
