"""One catalog entry (the catalog document's `slices[]`, docs/FORMAT.md "Timeline catalog"), typed.

The catalog files (the month files, pending.json) keep their entries as the JSON objects they
were read as, so an entry nobody changed is written back byte for byte — its key order, an odd
value, a key we do not know. Every piece of code that reads or builds an entry goes through
`CatalogEntry`: `from_json` is tolerant (a value of the wrong type reads as empty), and
`to_json` gives back the stored object with only the fields that changed replaced in place and
new ones appended, which is the original's `{...prior, ...fresh}` key order
(docs/FORMAT.md "The catalog document").
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from core.memory.paths import SliceId
from core.memory.slice.model import as_text, as_text_list

# The key order of an entry made fresh (from a slice file, an in-memory slice or a monthly index).
KEY_ORDER = (
    "id",
    "date",
    "start",
    "end",
    "turn_count",
    "status",
    "focus",
    "summary",
    "tags",
    "tone",
    "open_loops",
    "decisions",
    "strands",
    "needs_marking",
    "timezone",
    "problem",
)
# Written only when they hold something (the original omits them otherwise).
_OPTIONAL = frozenset({"end", "turn_count", "tone", "timezone", "problem"})
_KEYS = frozenset(KEY_ORDER)


@dataclass
class CatalogEntry:
    """What the catalog says about one slice (`turn_count` is None on entries migrated from a
    monthly index; `problem` is set only on entries the timeline route makes for a damaged slice)."""

    id: str
    date: str = ""
    start: str = ""
    end: str = ""
    turn_count: int | None = None
    status: str = "active"
    focus: str = ""
    summary: str = ""
    tags: list[str] = field(default_factory=list)
    tone: str = ""
    open_loops: list[str] = field(default_factory=list)
    decisions: list[str] = field(default_factory=list)
    strands: list[str] = field(default_factory=list)
    needs_marking: bool = False
    timezone: str = ""
    problem: str = ""
    # The object this entry was read from, the field values it read as, and the fields assigned
    # since (see `to_json`).
    stored: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)
    _read: dict[str, Any] = field(default_factory=dict, init=False, repr=False, compare=False)
    _assigned: set[str] = field(default_factory=set, init=False, repr=False, compare=False)

    def __setattr__(self, name: str, value: Any) -> None:
        object.__setattr__(self, name, value)
        if name in _KEYS and self.__dict__.get("_read"):
            self._assigned.add(name)

    @classmethod
    def from_json(cls, obj: object) -> CatalogEntry | None:
        """The entry a stored object describes; None when it has no valid slice id."""
        if not isinstance(obj, Mapping) or SliceId.try_parse(obj.get("id")) is None:
            return None
        count = obj.get("turn_count")
        entry = cls(
            id=str(obj["id"]),
            date=as_text(obj.get("date")),
            start=as_text(obj.get("start")),
            end=as_text(obj.get("end")),
            turn_count=count if isinstance(count, int) and not isinstance(count, bool) else None,
            status=as_text(obj.get("status")) or "active",
            focus=as_text(obj.get("focus")),
            summary=as_text(obj.get("summary")),
            tags=as_text_list(obj.get("tags")),
            tone=as_text(obj.get("tone")),
            open_loops=as_text_list(obj.get("open_loops")),
            decisions=as_text_list(obj.get("decisions")),
            strands=as_text_list(obj.get("strands")),
            needs_marking=obj.get("needs_marking") is True,
            timezone=as_text(obj.get("timezone")),
            problem=as_text(obj.get("problem")),
            stored=dict(obj),
        )
        entry._read = {k: list(v) if isinstance(v, list) else v for k, v in entry._values().items()}
        return entry

    def to_json(self) -> dict[str, Any]:
        """The object to store: the one read, with changed fields replaced where they stood and
        new ones appended; a fresh entry in `KEY_ORDER`, optional fields only when set."""
        out = dict(self.stored)
        for key, value in self._values().items():
            if self._read and key not in self._assigned and self._read[key] == value:
                continue  # untouched since it was read: the stored value stays, whatever its type
            if key in out or key not in _OPTIONAL or value not in ("", None):
                out[key] = list(value) if isinstance(value, list) else value
        return out

    @property
    def dry(self) -> bool:
        """Neither focus nor summary: the slice still needs marking."""
        return not self.focus and not self.summary

    @property
    def closed(self) -> bool:
        return self.status == "closed"

    def _values(self) -> dict[str, Any]:
        return {key: getattr(self, key) for key in KEY_ORDER}


def spread(prior: CatalogEntry, fresh: CatalogEntry) -> CatalogEntry:
    """`{...prior, ...fresh, strands: prior's, needs_marking}`: a refreshed entry keeps keys the
    slice file no longer has, and its strands until the next resolve
    (docs/FORMAT.md "The catalog document")."""
    merged = {**prior.to_json(), **fresh.to_json()}
    merged["strands"] = prior.stored.get("strands", []) if "strands" in prior.stored else prior.strands
    merged["needs_marking"] = fresh.dry
    entry = CatalogEntry.from_json(merged)
    assert entry is not None  # fresh has a valid id
    return entry
