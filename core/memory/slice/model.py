"""The slice model — one burst of conversation — and its file, `timeline/core.md`.

`parse_core_md` reads a core.md as the original did (gray-matter + js-yaml 3, then the slice
turn parser); `render_core_md` writes it byte for byte as the original would (docs/FORMAT.md,
"core.md"). Deliberate differences, all lossless: an unquoted date keeps its source text, a
number or boolean where text belongs becomes its text, unknown keys survive in `extra`, and a
legacy numbered header keeps its number.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

from core.errors import InvalidInput
from core.memory.formats import matter
from core.memory.formats.escape import (
    FLAG_KEY,
    FLAG_VALUE,
    escape_turn,
    has_flag_line,
    is_flagged,
    needs_escape,
    unescape_turn,
)
from core.memory.formats.yaml_types import js_to_string
from core.memory.slice.turns import (
    SLICE_HEADER_RE,
    TURN_MARK,
    count_turns,
    is_numeric_label,
    slice_turn_spans,
)
from core.text import js_trim

__all__ = [
    "CLOSED_BY_VALUES",
    "KEY_ORDER",
    "Slice",
    "Turn",
    "count_turns",
    "new_slice",
    "parse_core_frontmatter",
    "parse_core_md",
    "parse_frontmatter",
    "render_core_md",
    "render_turn",
    "slice_from_data",
    "slice_to_data",
]

KEY_ORDER = (
    "slice_id",
    "focus",
    "status",
    "start",
    "end",
    "timezone",
    "summary",
    "open_loops",
    "decisions",
    "tags",
    "related_slices",
    "loops",
    "emotional_tone",
    "closed_by",
    "evolution_summary",
    "marked_by",
)
LIST_KEYS = frozenset({"open_loops", "decisions", "tags", "related_slices", "loops"})
CLOSED_BY_VALUES = frozenset({"time_cap", "capacity", "context_lost", "time_silence", "user_explicit"})
_DEFAULTS = {"status": "active", "timezone": "UTC"}


@dataclass
class Turn:
    """One message in a slice. `turn_id` is None for legacy numeric headers (`## Turn 3 — …`)."""

    turn_id: str | None
    timestamp: str
    role: str
    content: str
    # The number of a legacy `## Turn 3 — …` header, written back instead of `?`.
    legacy_label: str = ""

    @property
    def header(self) -> str:
        """The `## Turn <id> — <timestamp> (<role>)` line (`?` when there is no id at all)."""
        label = self.turn_id if self.turn_id is not None else (self.legacy_label or "?")
        return f"## Turn {label} — {self.timestamp} ({self.role})"


@dataclass
class Slice:
    """A slice's frontmatter and turns — the one model of a core.md, read and written whole.
    Empty strings mean "absent" on disk.

    The other shapes of "a slice" are views for one reader each, not copies of this one:
    `CatalogEntry` (core/memory/catalog/entry.py) is what the catalog stores about a slice, in
    its own file format; `SliceMeta` is the cheap read the weave makes of a core.md (frontmatter
    left unmodelled, turns only counted); `SliceText` (core/search/reader.py) is the searchable
    text, marks the slicer wrote taken out; `SliceDetail` (view.py) is a Slice with its side files.
    """

    slice_id: str
    status: str = "active"
    start: str = ""
    timezone: str = "UTC"
    focus: str = ""
    end: str = ""
    summary: str = ""
    open_loops: list[str] = field(default_factory=list)
    decisions: list[str] = field(default_factory=list)
    tags: list[str] = field(default_factory=list)
    related_slices: list[str] = field(default_factory=list)
    loops: list[str] = field(default_factory=list)
    emotional_tone: str = ""
    closed_by: str = ""
    evolution_summary: str = ""
    # Ours: "fallback" when the focus/summary came from the deterministic mark (a model may redo it).
    marked_by: str = ""
    # Frontmatter keys we do not model, kept in file order so a rewrite loses nothing.
    extra: dict[str, Any] = field(default_factory=dict)
    turns: list[Turn] = field(default_factory=list)

    @property
    def closed(self) -> bool:
        return self.status == "closed"

    def copy(self) -> Slice:
        """A deep copy (edits on it never touch this slice)."""
        return copy.deepcopy(self)


def as_text(value: Any) -> str:
    """A frontmatter value where text belongs, coerced as the original does (losslessly where we can).

    A one-key mapping (an unquoted `a: b` inside a list) becomes its key, as in the original.
    Numbers and booleans become their text (the original blanked them); null and lists become "".
    """
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        return str(next(iter(value), ""))
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return js_to_string(value)
    return ""


def as_text_list(value: Any) -> list[str]:
    """A list field: element-wise `as_text`; anything but a list reads as empty."""
    return [as_text(v) for v in value] if isinstance(value, list) else []


def slice_from_data(data: dict[str, Any]) -> Slice:
    """Build a Slice from loaded frontmatter (turns left empty)."""
    text = {k: as_text(data.get(k)) for k in KEY_ORDER if k not in LIST_KEYS}
    lists = {k: as_text_list(data.get(k)) for k in LIST_KEYS}
    for key, default in _DEFAULTS.items():
        text[key] = text[key] or default
    closed_by = text["closed_by"]
    if text["status"] != "closed":
        closed_by = ""
    elif closed_by not in CLOSED_BY_VALUES:
        closed_by = "user_explicit"
    text["closed_by"] = closed_by
    # Our escape flag is re-derived on every render (an unknown value of it is kept as is).
    extra = {k: v for k, v in data.items() if k not in KEY_ORDER and not (k == FLAG_KEY and is_flagged(data))}
    return Slice(**text, **lists, extra=extra)  # type: ignore[arg-type]


def slice_to_data(s: Slice) -> dict[str, Any]:
    """The frontmatter mapping to write: known keys in order, empty text dropped, then `extra`.

    `turn_escape: v1` comes last, only when some turn's text needs escaping (core/memory/escape.py).
    """
    data: dict[str, Any] = {}
    for key in KEY_ORDER:
        value = getattr(s, key)
        if key in LIST_KEYS:
            data[key] = list(value)
        elif value:
            data[key] = value
    data.update((k, v) for k, v in s.extra.items() if k not in data)
    if escaped(s):
        data[FLAG_KEY] = FLAG_VALUE
    return data


def escaped(s: Slice) -> bool:
    """Whether the slice's core.md is written with escaped turn text (some text needs it)."""
    return any(needs_escape(t.content) for t in s.turns)


def render_turn(turn: Turn, escape: bool = False) -> str:
    """One turn block: its header, a blank line, the content (verbatim, or escaped in an escaped file).

    Raises InvalidInput for a header that would not read back as a turn (it would be lost).
    """
    header = turn.header
    if not SLICE_HEADER_RE.fullmatch(header):
        raise InvalidInput(
            f"Cannot write turn header {header!r}: the turn id and timestamp must be non-empty and "
            "free of spaces, and the role a single word (user, agent)."
        )
    return f"{header}\n\n{escape_turn(turn.content) if escape else turn.content}"


def render_core_md(s: Slice) -> str:
    """The exact bytes of a slice's core.md."""
    escape = escaped(s)
    return matter.stringify(slice_to_data(s), "\n\n".join(render_turn(t, escape) for t in s.turns))


def body_turns(body: str, escape: bool = False) -> list[Turn]:
    """The turns the slice parser finds in a core.md body (`escape`: the file says `turn_escape: v1`)."""
    trimmed = js_trim(body)
    turns = []
    for span in slice_turn_spans(trimmed):
        numeric = is_numeric_label(span.label)
        stored = trimmed[span.content_start : span.content_end]
        turns.append(
            Turn(
                turn_id=None if numeric else span.label,
                timestamp=span.timestamp,
                role=span.role,
                content=unescape_turn(stored) if escape else stored,
                legacy_label=span.label if numeric else "",
            )
        )
    return turns


def salvage_turns(text: str) -> list[Turn]:
    """The turns of a core.md whose frontmatter does not parse (the flag is looked for as a line)."""
    split = matter.split(text)
    # Without a closing `---` the turns are still in the file, after the opening line.
    body = split.body if split.closed else split.yaml_text
    head = split.yaml_text if split.closed else split.yaml_text.split("\n" + TURN_MARK, 1)[0]
    return body_turns(body, has_flag_line(head))


def parse_core_md(text: str) -> Slice:
    """Read a core.md; SliceFormatError (naming the line) when its YAML does not parse."""
    split = matter.split(text)
    data = matter.load(split, source="core.md frontmatter")
    s = slice_from_data(data)
    s.turns = body_turns(split.body, is_flagged(data))
    return s


def parse_frontmatter(text: str) -> dict[str, Any]:
    """Only the frontmatter of a core.md, as loaded (no coercion, no turn parsing); cheap."""
    return matter.load_text(text, source="core.md frontmatter")


def parse_core_frontmatter(text: str) -> Slice:
    """A Slice from the frontmatter alone (turns left empty): what catalog entries need."""
    return slice_from_data(parse_frontmatter(text))


def new_slice(slice_id: str, start_iso: str, timezone: str, first_turn: Turn) -> Slice:
    """A freshly opened slice holding its first (user) turn."""
    return Slice(
        slice_id=slice_id, status="active", start=start_iso, timezone=timezone or "UTC", turns=[first_turn]
    )
