"""Legacy card formats, read and upgraded in one place: v1/v2 → v3 archive → the current card.

v3 is the "dimension archive" (`Format: user profile + self-model`): `## User profile` and
`## Self-model`, each split into `### <Label>` dimensions whose bullets carry an indented meta
line (`refs: […] | confidence: … | updated: … | obs: N | expires: …`). v2 grouped beliefs under
`## 长期记忆` / `## 短期记忆` with `### User identity` etc. and an `evidence:` key; v1 had the
same headings flat at `##`. Nothing in a bullet is dropped on the way to v3.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from core.clock import iso
from core.memory.card.model import ARCHIVE_STAMP, Card, NowItem, is_card, is_date, parse_card
from core.text import js_trim

V3_STAMP = ARCHIVE_STAMP

PROFILE_DIMENSIONS = (
    ("identity", "Identity & background"),
    ("personality", "Personality & decision style"),
    ("communication", "Communication preferences"),
    ("cognitive_style", "Cognitive style"),
    ("domain_knowledge", "Domain knowledge"),
    ("values", "Values & priorities"),
    ("work_style", "Work style"),
    ("goals", "Goals & direction"),
    ("current_state", "Current state"),
    ("boundaries", "Boundaries & sensitivities"),
)
SELF_MODEL_DIMENSIONS = (
    ("tool_discipline", "Tool discipline"),
    ("reasoning", "Reasoning & decomposition"),
    ("answer_form", "Answer form"),
    ("recurring_errors", "Recurring errors"),
    ("recall_discipline", "Recall discipline"),
    ("corrections", "Corrections"),
)
# Dimensions whose texts become the card's Now items; identity becomes Identity lines; every
# other profile dimension feeds the Past paragraph.
_NOW_DIMENSIONS = ("current_state", "boundaries")
_NOT_PAST = ("identity", *_NOW_DIMENSIONS)

# v1/v2 headings (any level) → (bucket, dimension).
_LEGACY_HEADINGS = {
    "user identity": ("profile", "identity"),
    "user patterns": ("profile", "work_style"),
    "agent strategies": ("self", "tool_discipline"),
    "current context": ("profile", "current_state"),
}
_HEADER_RE = re.compile(r"_Active slice: ([^\s|]+).*?Updated: (.+?)_")
_HEADING_RE = re.compile(r"^(#{2,3})\s+(.*)$")
_BRACKET_RE = re.compile(r"\[([^\]]+)\]")
_CONFIDENCE = ("high", "medium", "low")
_OPTIONAL_META = ("expires", "superseded_by", "refuted_by")


@dataclass
class Belief:
    """One archived observation with its evidence and bookkeeping."""

    text: str
    refs: list[str] = field(default_factory=list)
    updated: str = ""
    confidence: str = ""
    obs: int = 0
    expires: str = ""
    superseded_by: str = ""
    refuted_by: str = ""

    def to_dict(self) -> dict[str, Any]:
        """The original's JSON shape: optional keys only when set."""
        data: dict[str, Any] = {"text": self.text, "refs": list(self.refs), "updated": self.updated}
        if self.confidence:
            data["confidence"] = self.confidence
        data["obs"] = self.obs
        for key in _OPTIONAL_META:
            if getattr(self, key):
                data[key] = getattr(self, key)
        return data

    def meta_line(self) -> str:
        """The indented line under the bullet ("" when there is nothing to record)."""
        parts = [f"refs: {', '.join(f'[{r}]' for r in self.refs)}"] if self.refs else []
        if self.confidence:
            parts.append(f"confidence: {self.confidence}")
        if self.updated:
            parts.append(f"updated: {self.updated}")
        if self.obs > 0:
            parts.append(f"obs: {self.obs}")
        parts += [f"{k}: {getattr(self, k)}" for k in _OPTIONAL_META if getattr(self, k)]
        return " | ".join(parts)


@dataclass
class ArchiveDoc:
    """A v3 archive: beliefs per dimension, profile and self-model."""

    slice_id: str = ""
    updated: str = ""
    profile: dict[str, list[Belief]] = field(default_factory=dict)
    self_model: dict[str, list[Belief]] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """The original's JSON shape."""
        return {
            "sliceId": self.slice_id,
            "updated": self.updated,
            "profile": {k: [b.to_dict() for b in v] for k, v in self.profile.items()},
            "selfModel": {k: [b.to_dict() for b in v] for k, v in self.self_model.items()},
        }


# ---------------------------------------------------------------- detection


def is_v3(text: str) -> bool:
    """A v3 dimension archive."""
    return V3_STAMP in (text or "")


def is_v2(text: str) -> bool:
    """A v2 long/short-term memory document."""
    return "## 长期记忆" in (text or "") or "## 短期记忆" in (text or "")


def is_v1(text: str) -> bool:
    """A v1 flat document (`## User identity` …) that is none of the later formats."""
    t = text or ""
    if is_card(t) or is_v2(t) or is_v3(t):
        return False
    return any(h in t for h in ("## User identity", "## User patterns", "## Agent strategies"))


def is_legacy(text: str) -> bool:
    """Any pre-card format this module can upgrade."""
    return not is_card(text) and (is_v3(text) or is_v2(text) or is_v1(text))


# ---------------------------------------------------------------- parse / render v3


def _dimension(bucket: str, heading: str) -> tuple[str, str] | None:
    legacy = _LEGACY_HEADINGS.get(heading.lower())
    if legacy:
        return legacy
    table = PROFILE_DIMENSIONS if bucket == "profile" else SELF_MODEL_DIMENSIONS
    key = next((k for k, label in table if label.lower() == heading.lower()), heading)
    return bucket, key


def _apply_meta(belief: Belief, meta: str) -> None:
    for part in meta.split("|"):
        key, _, value = part.partition(":")
        key, value = js_trim(key).lower(), js_trim(value)
        if key in ("refs", "evidence"):
            belief.refs = [js_trim(r) for r in _BRACKET_RE.findall(value)]
        elif key == "obs":
            belief.obs = int(value) if value.isdigit() else 0
        elif key in ("confidence", "updated", "expires", "superseded_by", "refuted_by"):
            setattr(belief, key, value)


def parse_archive(text: str) -> ArchiveDoc:
    """Parse a v3 archive, or the beliefs of a v1/v2 document (headings mapped to dimensions)."""
    doc = ArchiveDoc()
    m = _HEADER_RE.search(text or "")
    if m:
        doc.slice_id, doc.updated = m.group(1), m.group(2)
    bucket, target, last = "profile", None, None
    for raw in (text or "").split("\n"):
        line = js_trim(raw)
        heading = _HEADING_RE.match(line)
        if heading:
            name = js_trim(heading.group(2))
            if name.lower() in ("user profile", "self-model"):
                bucket, target = ("profile" if name.lower() == "user profile" else "self"), None
            elif heading.group(1) == "###" or name.lower() in _LEGACY_HEADINGS:
                target = _dimension(bucket, name)
            else:
                target = None
            last = None
        elif line.startswith("- ") and target and js_trim(line[2:]):
            last = Belief(text=js_trim(line[2:]))
            store = doc.profile if target[0] == "profile" else doc.self_model
            store.setdefault(target[1], []).append(last)
        elif last is not None and raw[:1].isspace() and ":" in line:
            _apply_meta(last, line)
    return doc


def _render_bucket(lines: list[str], beliefs: dict[str, list[Belief]], table: tuple) -> None:
    labels = dict(table)
    keys = [k for k, _ in table if beliefs.get(k)] + [k for k in beliefs if k not in labels and beliefs[k]]
    for key in keys:
        lines += [f"### {labels.get(key, key)}", ""]
        for b in beliefs[key]:
            meta = b.meta_line()
            lines += [f"- {b.text}"] + ([f"  {meta}"] if meta else []) + [""]


def render_archive(doc: ArchiveDoc) -> str:
    """A v3 archive's file text."""
    stamp = f"_Active slice: {doc.slice_id} | {V3_STAMP} | Updated: {doc.updated}_"
    lines = ["# Previously On", "", stamp, "", "## User profile", ""]
    _render_bucket(lines, doc.profile, PROFILE_DIMENSIONS)
    lines += ["## Self-model", ""]
    _render_bucket(lines, doc.self_model, SELF_MODEL_DIMENSIONS)
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).rstrip() + "\n"


def new_archive(slice_id: str, now: datetime) -> ArchiveDoc:
    """An empty v3 archive."""
    return ArchiveDoc(slice_id=slice_id, updated=iso(now))


def validate_archive(doc: ArchiveDoc) -> list[str]:
    """Problems in a v3 archive (empty when valid)."""
    errors = []
    for bucket, dims in (("profile", doc.profile), ("selfModel", doc.self_model)):
        for key, beliefs in dims.items():
            for i, b in enumerate(beliefs):
                where = f"{bucket}.{key}[{i}]"
                if not js_trim(b.text):
                    errors.append(f"{where}: empty text")
                if b.confidence and b.confidence not in _CONFIDENCE:
                    errors.append(f"{where}: confidence must be high, medium or low")
                errors += [f"{where}: {k} is not YYYY-MM-DD" for k in ("updated", "expires") if _bad(b, k)]
    return errors


def _bad(b: Belief, key: str) -> bool:
    value = getattr(b, key)
    return bool(value) and not is_date(value)


# ---------------------------------------------------------------- migrations


def migrate_to_archive(text: str, *, slice_id: str, now: datetime) -> ArchiveDoc:
    """v1/v2 → v3 (stamped now; the document's own slice id wins over `slice_id`); v3 as is."""
    doc = parse_archive(text)
    if is_v3(text):
        return doc
    doc.slice_id = doc.slice_id or slice_id
    doc.updated = iso(now)
    return doc


def _ordered(keys: list[str], table: tuple) -> list[str]:
    """Known dimensions in their canonical order, then unknown ones as found."""
    order = [k for k, _ in table]
    return sorted(keys, key=lambda k: order.index(k) if k in order else len(order))


def archive_to_card(doc: ArchiveDoc, now: datetime) -> Card:
    """v3 → card: identity → Identity; current state and boundaries → Now; the rest → Past/Self."""
    today = now.astimezone(UTC).date().isoformat()
    card = Card(slice_id=doc.slice_id, updated=iso(now))
    card.identity = [b.text for b in doc.profile.get("identity", [])]
    past_keys = [k for k in _ordered(list(doc.profile), PROFILE_DIMENSIONS) if k not in _NOT_PAST]
    card.past.profile = " ".join(b.text for k in past_keys for b in doc.profile[k])
    for key in _NOW_DIMENSIONS:
        for b in doc.profile.get(key, []):
            card.now.append(NowItem(b.text, list(b.refs), b.updated if is_date(b.updated) else today))
    for key in _ordered(list(doc.self_model), SELF_MODEL_DIMENSIONS):
        card.self_model += [b.text for b in doc.self_model[key]]
    return card


def migrate_to_card(text: str, *, slice_id: str, now: datetime) -> Card:
    """Any legacy document → the current card (stamped now)."""
    return archive_to_card(migrate_to_archive(text, slice_id=slice_id, now=now), now)


def foreign_to_card(text: str, *, slice_id: str, now: datetime) -> Card:
    """A document in no card format, kept whole: every non-blank line as written, under Unsorted.

    It is not parsed as a card: a title, a `_…_` line or a comment, which the card parser skips
    as card furniture, are the user's words here.
    """
    card = Card(slice_id=slice_id, updated=iso(now))
    card.unplaced = [line for line in (js_trim(raw) for raw in (text or "").split("\n")) if line]
    return card


def to_current_card(text: str, *, slice_id: str, now: datetime) -> Card:
    """Any stored card document as the current card: a card parsed, a legacy one migrated, other text kept."""
    if is_card(text):
        return parse_card(text, now)
    if is_legacy(text):
        return migrate_to_card(text, slice_id=slice_id, now=now)
    return foreign_to_card(text, slice_id=slice_id, now=now)
