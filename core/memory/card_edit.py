"""The user in control of the card: entries numbered by section, edited or deleted one at a time.

Entries are addressed as `card show` prints them — `identity 1`, `profile`, `past 2`, `now 1`,
`horizon 3`, `self-model 1`, `unsorted 1` — numbered from 1 in file order. Every function
returns a new `Card` and touches nothing but the addressed entry; bad input raises
`InvalidInput` / `NotFound` with a message that says what to do. The caps are the same as the
evolution agent's; the agent-only rules (refs required, the Self-model invariants) do not bind
the user.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from core.errors import InvalidInput, NotFound
from core.memory import card as c
from core.memory import card_rules as r
from core.memory.card import Card
from core.text import js_trim, utf16_len

SECTIONS = ("identity", "profile", "past", "now", "horizon", "self-model", "unsorted")
_ALIASES = {
    "self": "self-model",
    "selfmodel": "self-model",
    "self_model": "self-model",
    "anchor": "past",
    "anchors": "past",
    "recent": "now",
}
_TEXT_LIMITS = {
    "identity": c.IDENTITY_VALUE_MAX_CHARS,
    "profile": c.CARD_PROFILE_MAX_CHARS,
    "past": c.PAST_ANCHOR_MAX_CHARS,
    "now": c.NOW_ITEM_MAX_CHARS,
    "horizon": c.HORIZON_ITEM_MAX_CHARS,
    "self-model": c.SELF_MODEL_LINE_MAX_CHARS,
    "unsorted": c.CARD_PROFILE_MAX_CHARS,
}
_LABEL_MAX = 20  # "Address them as" and friends: an Identity cap applies to the value after the label


@dataclass(frozen=True)
class NumberedEntry:
    """One card entry with its address (`section`, `n`) and the text `card show` prints."""

    section: str
    n: int
    text: str

    @property
    def address(self) -> str:
        """`now 2`, or `profile` for the single profile paragraph."""
        return self.section if self.section == "profile" else f"{self.section} {self.n}"


def normalize_section(name: str) -> str:
    """A section name as addressed (`Self-model`, `self`, `anchors` …) → its canonical form."""
    key = js_trim(name or "").lower().replace(" ", "-")
    key = _ALIASES.get(key, key)
    if key not in SECTIONS:
        raise InvalidInput(f'Unknown card section "{name}". Use one of: {", ".join(SECTIONS)}.')
    return key


def parse_address(address: str) -> tuple[str, int]:
    """`"now 2"` → `("now", 2)`; `"profile"` → `("profile", 1)`."""
    parts = js_trim(address or "").rsplit(None, 1)
    if len(parts) == 2 and parts[1].isdigit():
        return normalize_section(parts[0]), int(parts[1])
    section = normalize_section(js_trim(address or ""))
    if section != "profile":
        raise InvalidInput(f'"{address}" needs a position, e.g. "{section} 1" (see `card show`).')
    return section, 1


def _texts(card: Card, section: str) -> list[str]:
    if section == "identity":
        return list(card.identity)
    if section == "profile":
        return [card.past.profile] if js_trim(card.past.profile) else []
    if section == "past":
        return [c.anchor_line(a) for a in card.past.anchors]
    if section == "now":
        return [c.now_line(n) for n in card.now]
    if section == "horizon":
        return [c.horizon_line(h) for h in card.horizon]
    if section == "self-model":
        return list(card.self_model)
    return list(card.unplaced)


def numbered_entries(card: Card) -> list[NumberedEntry]:
    """Every entry of the card, in file order, numbered from 1 within its section."""
    return [
        NumberedEntry(section, i, text)
        for section in SECTIONS
        for i, text in enumerate(_texts(card, section), start=1)
    ]


def format_numbered(card: Card) -> str:
    """The listing `card show` prints: one entry per line, address first."""
    entries = numbered_entries(card)
    if not entries:
        return "(the card is empty)"
    width = max(len(e.address) for e in entries)
    return "\n".join(f"{e.address:<{width}}  {e.text}" for e in entries)


def _locate(card: Card, section: str, n: int) -> int:
    count = len(_texts(card, section))
    if not 1 <= n <= count:
        where = f"{section} 1 … {section} {count}" if count > 1 else (f"{section} 1" if count else "none")
        noun = "entry" if count == 1 else "entries"
        raise NotFound(f"There is no {section} {n}: {section} has {count} {noun} ({where}); see `card show`.")
    return n - 1


def _limit(section: str, value: str) -> int:
    limit = _TEXT_LIMITS[section]
    if section == "identity":
        label, sep, _ = value.partition(":")
        if sep and utf16_len(label) <= _LABEL_MAX:
            limit += utf16_len(label) + 2  # the value after "Label: " gets the whole cap
    return limit


def _check_text(section: str, text: str) -> str:
    value = js_trim(text or "")
    problem = r.check_text(f"The {section} text", value, _limit(section, value))
    if problem:
        raise InvalidInput(problem.message.removeprefix("REJECTED: "))
    return value


def _check_duplicate(section: str, text: str, others: Sequence[str]) -> None:
    problem = r.check_duplicate(section, text, others)
    if problem:
        raise InvalidInput(f"An identical {section} entry is already on the card; nothing to change.")


def _refs(refs: Sequence[str] | None, slice_exists: Callable[[str], bool] | None) -> list[str] | None:
    if refs is None:
        return None
    norm, problem = r.check_refs(list(refs), slice_exists or (lambda _sid: True), required=False)
    if problem:
        raise InvalidInput(problem.message.removeprefix("REJECTED: "))
    return norm


def _date(label: str, value: str | None, *, allow_empty: bool) -> str | None:
    if value is None:
        return None
    day = js_trim(value)
    if allow_empty and not day:
        return ""
    problem = r.check_date(label, day)
    if problem:
        raise InvalidInput(problem.message.removeprefix("REJECTED: "))
    return day


def edit_entry(
    card: Card,
    section: str,
    n: int,
    text: str | None = None,
    *,
    refs: Sequence[str] | None = None,
    since: str | None = None,
    by: str | None = None,
    slice_exists: Callable[[str], bool] | None = None,
) -> Card:
    """A copy of the card with one entry's text (and, where the section has them, refs/dates) changed."""
    section = normalize_section(section)
    idx = _locate(card, section, n)
    out = card.copy()
    new_refs = _refs(refs, slice_exists)
    new_since = _date("since", since, allow_empty=False)
    new_by = _date("by", by, allow_empty=True)
    if text is not None:
        value = _check_text(section, text)
        _check_duplicate(
            section, value, _plain_texts(out, section)[:idx] + _plain_texts(out, section)[idx + 1 :]
        )
        _set_text(out, section, idx, value)
    _set_extras(out, section, idx, new_refs, new_since, new_by)
    return out


def _plain_texts(card: Card, section: str) -> list[str]:
    if section == "past":
        return [a.text for a in card.past.anchors]
    if section == "now":
        return [x.text for x in card.now]
    if section == "horizon":
        return [h.text for h in card.horizon]
    return _texts(card, section)


def _set_text(card: Card, section: str, idx: int, value: str) -> None:
    if section == "identity":
        card.identity[idx] = value
    elif section == "profile":
        card.past.profile = value
    elif section == "past":
        card.past.anchors[idx].text = value
    elif section == "now":
        card.now[idx].text = value
    elif section == "horizon":
        card.horizon[idx].text = value
    elif section == "self-model":
        card.self_model[idx] = value
    else:
        card.unplaced[idx] = value


def _set_extras(
    card: Card, section: str, idx: int, refs: list[str] | None, since: str | None, by: str | None
) -> None:
    holders: dict[str, list[Any]] = {"past": card.past.anchors, "now": card.now, "horizon": card.horizon}
    if refs is not None:
        if section not in holders:
            raise InvalidInput(f"{section} entries carry no refs; only past, now and horizon do.")
        holders[section][idx].refs = refs
    if since is not None:
        if section != "now":
            raise InvalidInput("Only now entries have a since date.")
        card.now[idx].since = since
    if by is not None:
        if section != "horizon":
            raise InvalidInput("Only horizon entries have a by date.")
        card.horizon[idx].by = by


def delete_entry(card: Card, section: str, n: int) -> tuple[Card, NumberedEntry]:
    """A copy of the card without one entry, and the entry that was removed."""
    section = normalize_section(section)
    idx = _locate(card, section, n)
    gone = NumberedEntry(section, n, _texts(card, section)[idx])
    out = card.copy()
    if section == "profile":
        out.past.profile = ""
    else:
        lists: dict[str, list[Any]] = {
            "identity": out.identity,
            "past": out.past.anchors,
            "now": out.now,
            "horizon": out.horizon,
            "self-model": out.self_model,
            "unsorted": out.unplaced,
        }
        target = lists[section]
        del target[idx]
    return out, gone
