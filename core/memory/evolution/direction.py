"""`memory/evolution/direction.md`: the Portrait (confirmed traits) and the Hypotheses pool.

One parse/render pair with deterministic bytes. A line no section takes is kept under
`## Unsorted` (a hand edit is never lost); rendering a parsed file gives it back unchanged when
it was written by `render_direction`. Caps and the TTL live here so the tools, the user's
edits and `check` share them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from datetime import date, timedelta

PORTRAIT_MAX = 12
TRAIT_MAX_CHARS = 280
HYPOTHESES_MAX = 6
CLAIM_MAX_CHARS = 240
TEST_MAX_CHARS = 200
REJECTED_MAX = 12
TTL_DAYS_DEFAULT = 21
TTL_DAYS_MAX = 45

HEADER = "# Direction"
SECTIONS = {"portrait": "## Portrait", "hypotheses": "## Hypotheses", "rejected": "## Rejected"}
UNSORTED = "## Unsorted"
REFS_SEP = " — refs: ["
TEST_SEP = " — test: "

_UPDATED_RE = re.compile(r"^updated: (\S+)$")
_TRAIT_RE = re.compile(r"^- (?P<text>.+) — refs: \[(?P<refs>[^\]]*)\]$")
_HYPOTHESIS_RE = re.compile(
    r"^- (?P<id>h\d+): (?P<claim>.+?) — test: (?P<test>.+) — refs: \[(?P<refs>[^\]]*)\]"
    r" \| opened: (?P<opened>\d{4}-\d{2}-\d{2}) \| expires: (?P<expires>\d{4}-\d{2}-\d{2})$"
)
_REJECTED_RE = re.compile(r"^- (?P<claim>.+) \| rejected: (?P<on>\d{4}-\d{2}-\d{2})$")


@dataclass
class Trait:
    """A confirmed, cross-context trait, written descriptively, with its evidence."""

    text: str
    refs: list[str]


@dataclass
class Hypothesis:
    """A falsifiable guess about the user: the claim, what would test it, evidence, its TTL."""

    id: str
    claim: str
    test: str
    refs: list[str]
    opened: str
    expires: str

    def expired(self, today: str) -> bool:
        """Past its TTL on the user's today: it must be confirmed or dropped."""
        return self.expires < today


@dataclass
class Rejected:
    """A hypothesis the user (or the agent) ruled out, kept so it is not proposed again."""

    claim: str
    on: str


@dataclass
class Direction:
    """The whole file as values."""

    updated: str = ""
    portrait: list[Trait] = field(default_factory=list)
    hypotheses: list[Hypothesis] = field(default_factory=list)
    rejected: list[Rejected] = field(default_factory=list)
    unsorted: list[str] = field(default_factory=list)

    def copy(self) -> Direction:
        return replace(
            self,
            portrait=[replace(t, refs=list(t.refs)) for t in self.portrait],
            hypotheses=[replace(h, refs=list(h.refs)) for h in self.hypotheses],
            rejected=[replace(r) for r in self.rejected],
            unsorted=list(self.unsorted),
        )

    def substance(self) -> tuple[object, ...]:
        """Everything but the stamp (a pass that only re-stamps changed nothing)."""
        return (self.portrait, self.hypotheses, self.rejected, self.unsorted)

    def next_id(self) -> str:
        """A hypothesis id not used by any hypothesis in the pool."""
        used = {int(h.id[1:]) for h in self.hypotheses}
        return f"h{max(used, default=0) + 1}"


def expiry(opened: str, days: int) -> str:
    """The day a hypothesis opened on `opened` expires after `days` (capped at the maximum TTL)."""
    span = max(1, min(days, TTL_DAYS_MAX))
    return (date.fromisoformat(opened) + timedelta(days=span)).isoformat()


def _refs(raw: str) -> list[str]:
    return [r.strip() for r in raw.split(",") if r.strip()]


def _take(direction: Direction, section: str, line: str) -> bool:
    if section == "portrait" and (m := _TRAIT_RE.match(line)):
        direction.portrait.append(Trait(m["text"], _refs(m["refs"])))
    elif section == "hypotheses" and (m := _HYPOTHESIS_RE.match(line)):
        h = Hypothesis(m["id"], m["claim"], m["test"], _refs(m["refs"]), m["opened"], m["expires"])
        direction.hypotheses.append(h)
    elif section == "rejected" and (m := _REJECTED_RE.match(line)):
        direction.rejected.append(Rejected(m["claim"], m["on"]))
    else:
        return False
    return True


def parse_direction(text: str | None) -> Direction:
    """The direction file as values; an absent or blank file is an empty direction."""
    out = Direction()
    section = ""
    headings = {v: k for k, v in SECTIONS.items()} | {UNSORTED: "unsorted"}
    for raw in (text or "").split("\n"):
        line = raw.rstrip()
        if not line.strip() or line == HEADER:
            continue
        if line in headings:
            section = headings[line]
            continue
        if not section and (m := _UPDATED_RE.match(line)):
            out.updated = m[1]
            continue
        if section == "unsorted" or not _take(out, section, line):
            out.unsorted.append(line)
    return out


def trait_line(t: Trait) -> str:
    return f"- {t.text}{REFS_SEP}{', '.join(t.refs)}]"


def hypothesis_line(h: Hypothesis) -> str:
    refs = ", ".join(h.refs)
    return (
        f"- {h.id}: {h.claim}{TEST_SEP}{h.test}{REFS_SEP}{refs}] | opened: {h.opened} | expires: {h.expires}"
    )


def render_direction(d: Direction) -> str:
    """The file text: header, stamp, then every section (empty ones too, so the shape is visible)."""
    lines = [HEADER, *([f"updated: {d.updated}"] if d.updated else []), ""]
    blocks = (
        ("portrait", [trait_line(t) for t in d.portrait]),
        ("hypotheses", [hypothesis_line(h) for h in d.hypotheses]),
        ("rejected", [f"- {r.claim} | rejected: {r.on}" for r in d.rejected]),
    )
    for key, body in blocks:
        lines += [SECTIONS[key], *body, ""]
    if d.unsorted:
        lines += [UNSORTED, *d.unsorted, ""]
    return "\n".join(lines)
