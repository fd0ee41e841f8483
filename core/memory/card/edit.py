"""The user in control of the card: entries numbered by section, edited or deleted one at a time.

Entries are addressed as `card show` prints them and as the API names them (`CardEntry`):
`identity 1`, `past` (the profile paragraph), `anchor 2`, `now 1`, `horizon 3`, `self_model 1`,
and `unsorted 1` for lines kept from hand edits — numbered from 1 in file order. Every function
returns a new `Card` and touches nothing but the addressed entry; bad input raises
`InvalidInput` / `NotFound` with a message that says what to do. The caps are the same as the
card pass's; the agent-only rules (refs required, the Self-model invariants) do not bind
the user.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from core.errors import InvalidInput, NotFound
from core.memory.card import model as c
from core.memory.card import rules as r
from core.memory.card.model import Card
from core.text import js_trim, utf16_len

SECTIONS = ("identity", "past", "anchor", "now", "horizon", "self_model", "unsorted")
_ALIASES = {
    "profile": "past",
    "anchors": "anchor",
    "past_anchor": "anchor",
    "self": "self_model",
    "selfmodel": "self_model",
    "recent": "now",
}
_TEXT_LIMITS = {
    "identity": c.IDENTITY_VALUE_MAX_CHARS,
    "past": c.CARD_PROFILE_MAX_CHARS,
    "anchor": c.PAST_ANCHOR_MAX_CHARS,
    "now": c.NOW_ITEM_MAX_CHARS,
    "horizon": c.HORIZON_ITEM_MAX_CHARS,
    "self_model": c.SELF_MODEL_LINE_MAX_CHARS,
    "unsorted": c.CARD_PROFILE_MAX_CHARS,
}
_LABEL_MAX = 20  # "Address them as" and friends: an Identity cap applies to the value after the label


@dataclass(frozen=True)
class NumberedEntry:
    """One card entry: its address (`section`, `n`), its parts, and the `line` `card show` prints."""

    section: str
    n: int
    text: str
    line: str
    refs: list[str] = field(default_factory=list)
    since: str | None = None
    by: str | None = None
    flag: str | None = None  # "stale" (Now ≥ 7 days old) or "overdue" (Horizon past its date)

    @property
    def address(self) -> str:
        """`now 2`, or `past` for the single profile paragraph."""
        return self.section if self.section == "past" else f"{self.section} {self.n}"


def normalize_section(name: str) -> str:
    """A section name as addressed (`Self-model`, `self`, `profile`, `anchors` …) → its canonical form."""
    key = js_trim(name or "").lower().replace("-", "_").replace(" ", "_")
    key = _ALIASES.get(key, key)
    if key not in SECTIONS:
        raise InvalidInput(f'Unknown card section "{name}". Use one of: {", ".join(SECTIONS)}.')
    return key


def parse_address(address: str) -> tuple[str, int]:
    """`"now 2"` → `("now", 2)`; `"past"` (the profile paragraph) → `("past", 1)`."""
    parts = js_trim(address or "").rsplit(None, 1)
    if len(parts) == 2 and parts[1].isdigit():
        return normalize_section(parts[0]), int(parts[1])
    section = normalize_section(js_trim(address or ""))
    if section != "past":
        raise InvalidInput(f'"{address}" needs a position, e.g. "{section} 1" (see `card show`).')
    return section, 1


def _plain_texts(card: Card, section: str) -> list[str]:
    """Each entry's own text (no refs or dates)."""
    if section == "identity":
        return list(card.identity)
    if section == "past":
        return [card.past.profile] if js_trim(card.past.profile) else []
    if section == "anchor":
        return [a.text for a in card.past.anchors]
    if section == "now":
        return [n.text for n in card.now]
    if section == "horizon":
        return [h.text for h in card.horizon]
    if section == "self_model":
        return list(card.self_model)
    return list(card.unplaced)


def _section_entries(card: Card, section: str, today: str | None) -> list[NumberedEntry]:
    out: list[NumberedEntry] = []
    if section == "anchor":
        for i, a in enumerate(card.past.anchors, start=1):
            out.append(NumberedEntry(section, i, a.text, c.anchor_line(a), list(a.refs)))
    elif section == "now":
        stale = {id(n) for n in c.aged_now_items(card, today)} if today else set()
        for i, n in enumerate(card.now, start=1):
            flag = "stale" if id(n) in stale else None
            out.append(
                NumberedEntry(section, i, n.text, c.now_line(n), list(n.refs), since=n.since, flag=flag)
            )
    elif section == "horizon":
        late = {id(h) for h in c.overdue_horizon(card.horizon, today)} if today else set()
        for i, h in enumerate(card.horizon, start=1):
            flag = "overdue" if id(h) in late else None
            out.append(NumberedEntry(section, i, h.text, c.horizon_line(h), list(h.refs), by=h.by, flag=flag))
    elif section == "self_model":
        for i, line in enumerate(card.self_model, start=1):
            body, refs = c.split_refs(line)
            out.append(NumberedEntry(section, i, body, line, refs))
    else:
        out = [NumberedEntry(section, i, t, t) for i, t in enumerate(_plain_texts(card, section), start=1)]
    return out


def numbered_entries(card: Card, today: str | None = None) -> list[NumberedEntry]:
    """Every entry in file order, numbered from 1 per section; `today` (user's date) sets the flags."""
    return [e for section in SECTIONS for e in _section_entries(card, section, today)]


def format_numbered(card: Card, today: str | None = None) -> str:
    """The listing `card show` prints: one entry per line, address first, flags last."""
    entries = numbered_entries(card, today)
    if not entries:
        return "(the card is empty)"
    width = max(len(e.address) for e in entries)
    return "\n".join(f"{e.address:<{width}}  {e.line}" + (f"  [{e.flag}]" if e.flag else "") for e in entries)


def _locate(card: Card, section: str, n: int) -> int:
    count = len(_plain_texts(card, section))
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
    """The entry's text exactly as sent, or InvalidInput: the card keeps each entry as one line
    of Markdown, so text it would read back otherwise (blank ends, a comment) is refused, not changed."""
    value = text or ""
    if js_trim(value) and value != js_trim(value):
        raise InvalidInput(
            f"The {section} text starts or ends with blank space, which a card entry cannot keep "
            "(each entry is one trimmed line of the card); remove it and retry."
        )
    if "<!--" in value:
        raise InvalidInput(
            f"The {section} text holds an HTML comment (<!--), which the card hides when read; "
            "write it without one."
        )
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


def _set_text(card: Card, section: str, idx: int, value: str) -> None:
    if section == "identity":
        card.identity[idx] = value
    elif section == "past":
        card.past.profile = value
    elif section == "anchor":
        card.past.anchors[idx].text = value
    elif section == "now":
        card.now[idx].text = value
    elif section == "horizon":
        card.horizon[idx].text = value
    elif section == "self_model":
        # The entry is shown without its refs; an edit of the words keeps them.
        body, own = c.split_refs(value)
        refs = own or c.split_refs(card.self_model[idx])[1]
        card.self_model[idx] = f"{body} — refs: {', '.join(f'[{x}]' for x in refs)}" if refs else body
    else:
        card.unplaced[idx] = value


def _set_extras(
    card: Card, section: str, idx: int, refs: list[str] | None, since: str | None, by: str | None
) -> None:
    holders: dict[str, list[Any]] = {"anchor": card.past.anchors, "now": card.now, "horizon": card.horizon}
    if refs is not None:
        if section not in holders:
            raise InvalidInput(f"{section} entries carry no refs; only anchor, now and horizon entries do.")
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
    gone = _section_entries(card, section, None)[idx]
    out = card.copy()
    if section == "past":
        out.past.profile = ""
    else:
        lists: dict[str, list[Any]] = {
            "identity": out.identity,
            "anchor": out.past.anchors,
            "now": out.now,
            "horizon": out.horizon,
            "self_model": out.self_model,
            "unsorted": out.unplaced,
        }
        target = lists[section]
        del target[idx]
    return out, gone
