"""Validation shared by the card tools (the card pass) and hand edits (the user).

Each check returns None when the value is fine, or a `Problem` whose message is an
instruction the caller can act on. Lengths count UTF-16 units, as the caps were set in.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

from core.ids import DayKey
from core.memory.card import model as c
from core.memory.paths import SliceId
from core.text import js_trim, utf16_len, utf16_slice

ProblemKind = Literal[
    "argument",
    "empty",
    "multiline",
    "too_long",
    "refs",
    "slice_missing",
    "duplicate",
    "date",
    "cap",
    "match",
    "invariant",
]

# A ref names a slice (UTC minute) and optionally one turn in it. Turn ids are base64url, so
# `-` and `_` are allowed in the turn part (the original's pattern refused them).
_TURN_PART_RE = re.compile(r"-([A-Za-z0-9_-]+)\Z")
_ID_CHARS = len("YYYY-MM-DD-HHMM")
_OVERRIDE_RE = re.compile(r"\boverrides\s*[:=]", re.IGNORECASE)
_MEMORY_TOOLS_RULE = "reading slices and calling recall are how memory is consulted"
_STANDING_RULES = (
    (re.compile(r"never\s+use\s+(the\s+)?recall", re.IGNORECASE), "recall is the memory-search tool"),
    (re.compile(r"don'?t\s+(use|call)\s+(the\s+)?recall", re.IGNORECASE), "recall is the memory-search tool"),
    (re.compile(r"never\s+read\s+(the\s+)?(memory|slices)", re.IGNORECASE), _MEMORY_TOOLS_RULE),
)


@dataclass(frozen=True)
class Problem:
    """Why a value was refused; `length`/`limit` are set for over-length text."""

    kind: ProblemKind
    message: str
    length: int = 0
    limit: int = 0


def reject(kind: ProblemKind, text: str, **extra: int) -> Problem:
    """A Problem whose message starts with `REJECTED: `."""
    return Problem(kind, f"REJECTED: {text}", **extra)


def check_text(label: str, text: str, limit: int) -> Problem | None:
    """Non-blank, one line, at most `limit` UTF-16 units (measured on the trimmed text)."""
    value = js_trim(text or "")
    if not value:
        return reject("empty", f"{label} is empty. Send the text you want stored.")
    if "\n" in value or "\r" in value:
        return reject(
            "multiline",
            f"{label} must be a single line, and yours contains a line break ({utf16_len(value)} chars). "
            "Join it into one line and retry.",
        )
    n = utf16_len(value)
    if n > limit:
        return reject(
            "too_long",
            f"{label} is {n} chars; the limit is {limit}. Compress it — keep the substance, drop "
            f"wording — to at most {limit} chars and retry.",
            length=n,
            limit=limit,
        )
    return None


def truncate(text: str, limit: int) -> str:
    """The first `limit` UTF-16 units of the trimmed text (what a forced write keeps)."""
    return js_trim(utf16_slice(js_trim(text), 0, limit))


def ref_slice_id(ref: str) -> str | None:
    """The slice id (`YYYY-MM-DD-HHMM`) a slash- or dash-form ref points into."""
    split = _split_ref(ref)
    return split[0].dash if split else None


def normalize_ref(ref: str) -> str | None:
    """A ref in slash form (`2026/08/07/0709[-turn]`); None when it is not a ref."""
    value = js_trim(ref or "")
    split = _split_ref(value)
    if not split:
        return None
    sid, turn = split
    return f"{sid.slash}-{turn}" if turn else sid.slash


def _split_ref(ref: str) -> tuple[SliceId, str] | None:
    """A ref's slice (slash or dash form) and its optional `-<turn>` part ("" when absent)."""
    sid = SliceId.from_either(ref[:_ID_CHARS])
    rest = ref[_ID_CHARS:]
    turn = _TURN_PART_RE.match(rest) if rest else None
    if sid is None or (rest and turn is None):
        return None
    return sid, turn[1] if turn else ""


def check_refs(
    refs: Sequence[str], slice_exists: Callable[[str], bool], *, required: bool = True
) -> tuple[list[str], Problem | None]:
    """Refs normalised to slash form, each well-formed and naming a slice that exists."""
    if isinstance(refs, str):  # one ref sent bare, not as a list
        refs = [refs]
    if not refs:
        if not required:
            return [], None
        return [], reject(
            "refs",
            "refs are required — cite at least one slice that shows this (e.g. 2026/08/07/0709, "
            "optionally with -<turnId>). No evidence, no entry.",
        )
    out: list[str] = []
    for raw in refs:
        ref = normalize_ref(raw if isinstance(raw, str) else "")
        if ref is None:
            return [], reject(
                "refs",
                f'"{raw}" is not a slice ref. Write YYYY/MM/DD/HHMM or YYYY-MM-DD-HHMM (the slice id), '
                "optionally followed by -<turnId>.",
            )
        sid = ref_slice_id(ref) or ""
        if not slice_exists(sid):
            return [], reject(
                "slice_missing",
                f'ref "{raw}" points at slice {sid}, which does not exist. Cite a slice you actually '
                "read (check the id) and retry.",
            )
        if ref not in out:
            out.append(ref)
    return out, None


def check_duplicate(section: str, text: str, existing: Sequence[str]) -> Problem | None:
    """Refuse an entry equal (ignoring case and outer spaces) to one already in the section."""
    needle = js_trim(text).lower()
    if any(js_trim(e).lower() == needle for e in existing):
        return reject("duplicate", f"this {section} entry is already on the card. Nothing to add; move on.")
    return None


def is_calendar_date(value: str) -> bool:
    """`YYYY-MM-DD` naming a real day."""
    return DayKey.matches(value)


def check_date(label: str, value: str) -> Problem | None:
    """A real calendar date written `YYYY-MM-DD`."""
    if is_calendar_date(value):
        return None
    return reject("date", f'{label} must be a date written YYYY-MM-DD (got "{value}").')


_CAPS = {
    "identity": (
        c.IDENTITY_MAX_LINES,
        "Identity already has {cap} lines (the cap). Replace an existing field instead (setting the "
        "same field overwrites its line).",
    ),
    "past": (
        c.PAST_ANCHORS_MAX,
        "Past already holds {cap} anchors (the cap). Remove the least durable one with "
        "remove_past_anchor, then add this.",
    ),
    "promote": (
        c.PAST_ANCHORS_MAX,
        "Past already holds {cap} anchors, so nothing can be promoted. Remove an anchor first "
        "(remove_past_anchor), or drop the Now item with remove_now.",
    ),
    "now": (
        c.CARD_NOW_MAX,
        "Now already holds {cap} items (the cap). Free a slot first: promote_now_to_past for lasting "
        "substance, remove_now for a stale hook.",
    ),
    "horizon": (
        c.HORIZON_MAX,
        "Horizon already holds {cap} items (the cap). Resolve one that is done or dropped "
        "(resolve_horizon), then add this.",
    ),
    "self_model": (
        c.CARD_SELF_MODEL_MAX,
        "Self-model already holds {cap} lessons (the cap). Remove or merge one (remove_self_model), "
        "then add this.",
    ),
}


def cap_of(section: str) -> int:
    """How many entries a section may hold."""
    return _CAPS[section][0]


def check_cap(section: str, count: int) -> Problem | None:
    """Refuse to grow a section that already holds its cap of entries."""
    cap, message = _CAPS[section]
    return reject("cap", message.format(cap=cap)) if count >= cap else None


def find_match(section: str, match: str, entries: Sequence[str]) -> tuple[int, Problem | None]:
    """Index of the first entry containing `match` (case-insensitive), or an instructive Problem."""
    needle = js_trim(match or "").lower()
    if not needle:
        return -1, reject("match", f"match is empty. Quote a few words of the {section} entry you mean.")
    for i, entry in enumerate(entries):
        if needle in entry.lower():
            return i, None
    listing = ", ".join(f'"{utf16_slice(e, 0, 60)}"' for e in entries) or "(none)"
    return -1, reject(
        "match",
        f'no {section} entry contains "{js_trim(match)}". Current entries: {listing}. '
        "Copy a few words from one of them exactly.",
    )


def check_self_model_rules(text: str) -> Problem | None:
    """A lesson may not switch off a standing rule unless it records an explicit user override."""
    if _OVERRIDE_RE.search(text):
        return None
    for pattern, rule in _STANDING_RULES:
        if pattern.search(text):
            return reject(
                "invariant",
                f"this lesson contradicts a standing rule ({rule}). Self-model lines are deltas on top "
                "of the standing rules; only an explicit request from the user may override one — then "
                'write it with "overrides: <what the user said>".',
            )
    return None
