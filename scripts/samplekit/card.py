"""The user card (REFERENCE §5): a small model, the evolution operations the sample uses, the renderer.

The operations mirror the card-evolution tools (§6.3) and enforce the same caps, so the sample's
card history is one the real evolution agent could have produced.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from core.text import utf16_len

STAMP = "Format: user card v2"
IDENTITY_LABELS = {"name": "Name", "address_as": "Address them as", "pronouns": "Pronouns", "alias": "Alias"}
CAPS = {"identity": 8, "anchors": 8, "now": 5, "horizon": 5, "self_model": 10}
LENGTHS = {"identity": 300, "profile": 2400, "anchor": 300, "now": 300, "horizon": 200, "self_model": 300}
_DATE_RE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_REF_RE = re.compile(r"^\d{4}/\d{2}/\d{2}/\d{4}(-[A-Za-z0-9]+)?$")


class CardError(ValueError):
    """An evolution operation the real card tools would reject."""


@dataclass
class Anchor:
    """A durable Past fact with its evidence."""

    text: str
    refs: list[str]


@dataclass
class NowItem:
    """Something currently alive, with the date it became so."""

    text: str
    refs: list[str]
    since: str


@dataclass
class HorizonItem:
    """A commitment or deadline ahead."""

    text: str
    by: str
    refs: list[str]


@dataclass
class Card:
    """The five sections of the card plus its header stamp."""

    slice_id: str = ""
    updated: str = ""
    identity: list[str] = field(default_factory=list)
    profile: str = ""
    anchors: list[Anchor] = field(default_factory=list)
    now: list[NowItem] = field(default_factory=list)
    horizon: list[HorizonItem] = field(default_factory=list)
    self_model: list[str] = field(default_factory=list)


def strip_comments(text: str) -> str:
    """Bullet text with inline `<!-- … -->` comments removed, then trimmed."""
    return re.sub(r"<!--[\s\S]*?-->", "", text).strip()


def _refs(refs: list[str]) -> str:
    return ", ".join(f"[{r}]" for r in refs)


def render_card(card: Card) -> str:
    """The exact bytes of `current-previously.md` / `previously.md` (§5.1)."""
    stamp = f"_Active slice: {card.slice_id} | {STAMP} | Updated: {card.updated}_"
    lines = ["# Previously On", "", stamp, ""]
    if card.identity:
        lines += ["## Identity", ""]
        for line in card.identity:
            lines += [f"- {strip_comments(line)}", ""]
    if card.profile.strip() or card.anchors:
        lines += ["## Past", ""]
        if card.profile.strip():
            lines += [card.profile.strip(), ""]
        for a in card.anchors:
            lines += [f"- {strip_comments(a.text)}" + (f" — refs: {_refs(a.refs)}" if a.refs else ""), ""]
    if card.now:
        lines += ["## Now", ""]
        for n in card.now:
            refs = f" — refs: {_refs(n.refs)}" if n.refs else ""
            lines += [f"- {strip_comments(n.text)}{refs} | since: {n.since}", ""]
    if card.horizon:
        lines += ["## Horizon", ""]
        for h in card.horizon:
            by = f" — by: {h.by}" if h.by else ""
            refs = f" — refs: {_refs(h.refs)}" if h.refs else ""
            lines += [f"- {strip_comments(h.text)}{by}{refs}", ""]
    if card.self_model:
        lines += ["## Self-model", ""]
        for line in card.self_model:
            lines += [f"- {strip_comments(line)}", ""]
    text = re.sub(r"\n{3,}", "\n\n", "\n".join(lines))
    return text.rstrip() + "\n"


def substance(card: Card) -> tuple[Any, ...]:
    """What a change is judged on: everything but the header stamp (§6.1)."""
    return (card.identity, card.profile, card.anchors, card.now, card.horizon, card.self_model)


# ---------------------------------------------------------------- operations


def _text(value: str, kind: str) -> str:
    if not value or not value.strip():
        raise CardError(f"{kind} is empty")
    if "\n" in value:
        raise CardError(f"{kind} must be a single line: {value!r}")
    if utf16_len(value) > LENGTHS[kind]:
        raise CardError(f"{kind} is {utf16_len(value)} chars, the limit is {LENGTHS[kind]}: {value!r}")
    return value.strip()


def _check_refs(refs: list[str]) -> list[str]:
    if not refs:
        raise CardError("refs are required")
    for ref in refs:
        if not _REF_RE.match(ref):
            raise CardError(f"malformed ref {ref!r}")
    return refs


def _date(value: str, what: str) -> str:
    if not _DATE_RE.match(value):
        raise CardError(f"{what} must be YYYY-MM-DD, got {value!r}")
    return value


def _room(items: list[Any], cap: str) -> None:
    if len(items) >= CAPS[cap]:
        raise CardError(f"{cap} already holds {CAPS[cap]} entries; remove one first")


def _no_dup(texts: list[str], text: str, section: str) -> None:
    if any(t.strip().lower() == text.lower() for t in texts):
        raise CardError(f"this {section} entry is already on the card: {text!r}")


def _find(texts: list[str], match: str, section: str) -> int:
    needle = match.strip().lower()
    for i, t in enumerate(texts):
        if needle in t.lower():
            return i
    raise CardError(f"no {section} entry contains {match!r}; entries: {texts}")


def _arg(args: Any, key: str) -> Any:
    return args.get(key) if isinstance(args, dict) else (args if key == "text" else None)


def _set_identity(card: Card, args: dict[str, str], refs: list[str], today: str) -> None:
    label = IDENTITY_LABELS[args["field"]]
    line = f"{label}: {_text(args['value'], 'identity')}"
    for i, existing in enumerate(card.identity):
        if existing.lower().startswith(f"{label.lower()}:"):
            card.identity[i] = line
            return
    _room(card.identity, "identity")
    card.identity.append(line)


def _profile(card: Card, args: str, refs: list[str], today: str) -> None:
    card.profile = _text(args, "profile")


def _add_anchor(card: Card, args: Any, refs: list[str], today: str) -> None:
    text = _text(_arg(args, "text"), "anchor")
    _no_dup([a.text for a in card.anchors], text, "Past")
    _room(card.anchors, "anchors")
    card.anchors.append(Anchor(text, _check_refs(refs)))


def _add_now(card: Card, args: Any, refs: list[str], today: str) -> None:
    text = _text(_arg(args, "text"), "now")
    _no_dup([n.text for n in card.now], text, "Now")
    since = _date(str(_arg(args, "since") or today), "since")
    _room(card.now, "now")
    card.now.insert(0, NowItem(text, _check_refs(refs), since))  # newest first, as addNow does


def _add_horizon(card: Card, args: dict[str, Any], refs: list[str], today: str) -> None:
    text = _text(args["text"], "horizon")
    _no_dup([h.text for h in card.horizon], text, "Horizon")
    _room(card.horizon, "horizon")
    card.horizon.append(HorizonItem(text, _date(str(args["by"]), "by"), _check_refs(refs)))


def _add_self_model(card: Card, args: str, refs: list[str], today: str) -> None:
    text = _text(args, "self_model")
    _no_dup(card.self_model, text, "Self-model")
    _room(card.self_model, "self_model")
    card.self_model.append(text)


def _promote(card: Card, match: str, refs: list[str], today: str) -> None:
    i = _find([n.text for n in card.now], match, "Now")
    _room(card.anchors, "anchors")
    item = card.now.pop(i)
    card.anchors.append(Anchor(item.text, item.refs))


def _remove_anchor(card: Card, match: str, refs: list[str], today: str) -> None:
    card.anchors.pop(_find([a.text for a in card.anchors], match, "Past"))


def _remove_now(card: Card, match: str, refs: list[str], today: str) -> None:
    card.now.pop(_find([n.text for n in card.now], match, "Now"))


def _resolve_horizon(card: Card, match: str, refs: list[str], today: str) -> None:
    card.horizon.pop(_find([h.text for h in card.horizon], match, "Horizon"))


def _remove_self_model(card: Card, match: str, refs: list[str], today: str) -> None:
    card.self_model.pop(_find(card.self_model, match, "Self-model"))


Operation = Callable[[Card, Any, list[str], str], None]
OPERATIONS: dict[str, Operation] = {
    "set_identity": _set_identity,
    "profile": _profile,
    "add_anchor": _add_anchor,
    "add_now": _add_now,
    "add_horizon": _add_horizon,
    "add_self_model": _add_self_model,
    "promote": _promote,
    "remove_anchor": _remove_anchor,
    "remove_now": _remove_now,
    "resolve_horizon": _resolve_horizon,
    "remove_self_model": _remove_self_model,
}


def apply_op(card: Card, op: dict[str, Any], refs: list[str], today: str) -> None:
    """Apply one `{name: args}` operation; `refs`/`today` are the defaults for new entries."""
    if not isinstance(op, dict) or len(op) != 1:
        raise CardError(f"an operation is a single-key mapping, got {op!r}")
    ((name, args),) = op.items()
    if name not in OPERATIONS:
        raise CardError(f"unknown card operation {name!r}; known: {', '.join(OPERATIONS)}")
    if isinstance(args, dict) and "refs" in args:
        refs = [slash_ref(r) for r in args["refs"]]
    OPERATIONS[name](card, args, refs, today)


def slash_ref(ref: str) -> str:
    """`2026-08-07-0709` → `2026/08/07/0709` (a turn-id suffix stays after the dash)."""
    return ref.replace("-", "/", 3)
