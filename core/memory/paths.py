"""The memory layout: where each file lives, as `MemoryPath` values built by small helpers.

Path validation and the size caps live one layer down in `core.storage.paths` (storage needs
them and must not import memory); they are re-exported here so memory code has one place to
import paths from.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import StrEnum

from core.errors import InvalidInput
from core.storage.paths import (
    ALLOWED_ROOTS,
    MAX_FILE_BYTES,
    MAX_INDEX_BYTES,
    FileTooLarge,
    MemoryPath,
    _reject_reason,
    check_path,
    check_size,
    is_protected,
    normalize,
    original_allows,
    size_limit,
    writable_path,
)

__all__ = [
    "ALLOWED_ROOTS",
    "MAX_FILE_BYTES",
    "MAX_INDEX_BYTES",
    "SLICE_ID_PATTERN",
    "FileTooLarge",
    "MemoryPath",
    "PathClass",
    "PathKind",
    "SliceId",
    "_reject_reason",
    "check_path",
    "check_size",
    "classify",
    "is_protected",
    "normalize",
    "original_allows",
    "size_limit",
    "writable_path",
]

MEMORY = MemoryPath("memory")
EPISODIC = MemoryPath("memory/episodic")
SLICES = MemoryPath("memory/episodic/slices")
STRANDS_JSON = MemoryPath("memory/episodic/strands.json")  # the single-file layout, read until migrated
STRANDS_DIR = MemoryPath("memory/episodic/strands")  # tag → slice paths in shards (docs/FORMAT.md "strands")
STRANDS_MENU = MemoryPath("memory/episodic/strands/menu.json")
STRAND_SHARDS = 32  # shard files `strands/NN.json`, 00 … 31
CATALOG_JSON = MemoryPath("memory/episodic/timeline/index.json")  # the single-file layout, still read
CATALOG_TOP_JSON = MemoryPath("memory/episodic/timeline/catalog.json")  # the catalog's counters and months
CATALOG_MONTHS = MemoryPath("memory/episodic/timeline/index")  # one YYYY-MM.json per month
TIMELINE_MD = MemoryPath("memory/episodic/timeline.md")
PENDING_JSON = MemoryPath("memory/episodic/timeline/pending.json")
CATALOG_SHAS_JSON = MemoryPath("memory/episodic/timeline/shas.json")
CATALOG_DAMAGED_JSON = MemoryPath("memory/episodic/timeline/damaged.json")
SLICE_CHECKS_JSON = MemoryPath("memory/episodic/timeline/checked.json")
CARD = MemoryPath("memory/episodic/current-previously.md")
CARD_HISTORY_DIR = MemoryPath("memory/episodic/card-history")  # every earlier card (docs/FORMAT.md)
CONFIG_JSON = MemoryPath("memory/user/config.json")
SEARCH_DIR = MemoryPath("memory/episodic/search")
NOTES_DIR = MemoryPath("memory/inbox/notes")


# The same rule as a pattern, for the API's schema (tests/unit/test_slice_id.py keeps them equal).
SLICE_ID_PATTERN = r"^[0-9]{4}-[0-9]{2}-[0-9]{2}-[0-9]{4}$"


def _digits(text: str, width: int) -> bool:
    # ASCII only: `str.isdigit` and regex `\d` alone also take other scripts' digits (`２０２６`).
    return len(text) == width and text.isascii() and text.isdigit()


def _split_id(text: object, sep: str) -> tuple[str, str, str, str] | None:
    """`YYYY<sep>MM<sep>DD<sep>HHMM` in ASCII digits, split; None for anything else."""
    if not isinstance(text, str) or len(text) != 15 or not text.isascii():
        return None
    if text[4] != sep or text[7] != sep or text[10] != sep:
        return None
    digits = text.replace(sep, "")
    if len(digits) != 12 or not digits.isdigit():
        return None
    return text[:4], text[5:7], text[8:10], text[11:]


@dataclass(frozen=True, order=True)
class SliceId:
    """A slice's id, parsed once: the UTC minute its first message arrived (docs/FORMAT.md "Layout").

    Two spellings: the dash form `YYYY-MM-DD-HHMM` (ids in frontmatter, routes, the catalog) and
    the slash form `YYYY/MM/DD/HHMM` (its folder under `memory/episodic/slices/`, strands, refs).
    Each part is exactly 4/2/2/4 ASCII digits; nothing else is an id — in particular not a
    date-only `YYYY-MM-DD`, which the original mapped onto the day folder itself. The digits are
    not checked against the calendar (the original accepted `2026-13-40-9999` as an id), so
    `started` is None for such an id. Ordering is chronological (equal to the dash strings').
    """

    year: str
    month: str
    day: str
    hhmm: str

    def __post_init__(self) -> None:
        parts = (self.year, self.month, self.day, self.hhmm)
        if not all(isinstance(p, str) for p in parts) or _split_id("-".join(parts), "-") is None:
            raise InvalidInput(_bad_id("-".join(map(str, parts))))

    @classmethod
    def parse(cls, text: str | SliceId) -> SliceId:
        """The dash form, or InvalidInput saying which form to use (a `SliceId` passes as is)."""
        if isinstance(text, SliceId):
            return text
        found = _parsed(text, "-") if isinstance(text, str) else None
        if found is None:
            raise InvalidInput(_bad_id(text))
        return found

    @classmethod
    def try_parse(cls, text: object) -> SliceId | None:
        """The dash form, or None."""
        return _parsed(text, "-") if isinstance(text, str) else None

    @classmethod
    def from_slash(cls, rel: object) -> SliceId | None:
        """The slash form (a folder's path under the slices root), or None."""
        return _parsed(rel, "/") if isinstance(rel, str) else None

    @classmethod
    def from_either(cls, text: object) -> SliceId | None:
        """Either form (refs and tool arguments accept both), or None. Separators are not mixed."""
        return cls.try_parse(text) or cls.from_slash(text)

    def __str__(self) -> str:
        return self.dash

    @property
    def dash(self) -> str:
        return f"{self.year}-{self.month}-{self.day}-{self.hhmm}"

    @property
    def slash(self) -> str:
        return f"{self.year}/{self.month}/{self.day}/{self.hhmm}"

    @property
    def date(self) -> str:
        """`YYYY-MM-DD`: the UTC day the slice began (the catalog's `date`)."""
        return f"{self.year}-{self.month}-{self.day}"

    @property
    def start_iso(self) -> str:
        """`YYYY-MM-DDTHH:MM:00.000Z`, spelt from the digits (also for an id `started` refuses)."""
        return f"{self.date}T{self.hhmm[:2]}:{self.hhmm[2:]}:00.000Z"

    @property
    def started(self) -> datetime | None:
        """The UTC minute the id names; None when its digits name no real minute."""
        try:
            hour, minute = int(self.hhmm[:2]), int(self.hhmm[2:])
            return datetime(int(self.year), int(self.month), int(self.day), hour, minute, tzinfo=UTC)
        except ValueError:
            return None

    # Cached: an id is immutable, and a path is checked when made (the weave asks twice per slice).
    @functools.cached_property
    def dir(self) -> MemoryPath:
        return SLICES / self.slash

    @functools.cached_property
    def core_md(self) -> MemoryPath:
        return self.dir / "timeline/core.md"

    @property
    def agent_md(self) -> MemoryPath:
        return self.dir / "timeline/agent.md"

    @property
    def appendix_md(self) -> MemoryPath:
        return self.dir / "timeline/appendix.md"

    @property
    def card_snapshot(self) -> MemoryPath:
        return self.dir / "previously.md"

    @property
    def day_dir(self) -> MemoryPath:
        return day_dir(self.year, self.month, self.day)

    @property
    def legacy_flat_md(self) -> MemoryPath:
        """A legacy flat slice file `…/YYYY/MM/DD/HHMM.md` (read-only compatibility)."""
        return self.day_dir / f"{self.hhmm}.md"

    @property
    def monthly_index(self) -> MemoryPath:
        return monthly_index(self.year, self.month)


@functools.lru_cache(maxsize=1 << 16)
def _parsed(text: str, sep: str) -> SliceId | None:
    """Parsing is pure and a `SliceId` immutable, so each distinct text is parsed once: the weave
    meets every id several times (listing, catalog, path helpers; docs/DEVELOPING.md
    "Slice ids in the weave (`python -m bench ids`)")."""
    parts = _split_id(text, sep)
    return SliceId(*parts) if parts else None


def _bad_id(text: object) -> str:
    return f'Invalid slice id "{text}". Expected YYYY-MM-DD-HHMM (UTC), e.g. 2026-08-11-1115.'


SliceRef = SliceId | str  # what the path helpers take: a parsed id, or its dash form to parse


def parse_slice_id(slice_id: SliceRef) -> SliceId:
    """The `SliceId` of a dash-form id; InvalidInput for anything else."""
    return SliceId.parse(slice_id)


def is_slice_id(slice_id: object) -> bool:
    return SliceId.try_parse(slice_id) is not None


def slice_rel(slice_id: SliceRef) -> str:
    """`2026-08-11-1115` → `2026/08/11/1115`."""
    return SliceId.parse(slice_id).slash


def slice_dir(slice_id: SliceRef) -> MemoryPath:
    return SliceId.parse(slice_id).dir


def core_md(slice_id: SliceRef) -> MemoryPath:
    return SliceId.parse(slice_id).core_md


def agent_md(slice_id: SliceRef) -> MemoryPath:
    return SliceId.parse(slice_id).agent_md


def appendix_md(slice_id: SliceRef) -> MemoryPath:
    return SliceId.parse(slice_id).appendix_md


def card_snapshot(slice_id: SliceRef) -> MemoryPath:
    return SliceId.parse(slice_id).card_snapshot


def legacy_flat_md(slice_id: SliceRef) -> MemoryPath:
    return SliceId.parse(slice_id).legacy_flat_md


def monthly_index(year: str, month: str) -> MemoryPath:
    return SLICES / f"{year}/{int(month):02d}/_index.json"


def catalog_month(month: str) -> MemoryPath:
    """The catalog file of one month (`YYYY-MM`): `timeline/index/YYYY-MM.json`."""
    year, _, mm = month.partition("-")
    if not (_digits(year, 4) and _digits(mm, 2)):
        raise InvalidInput(f"{month!r} is not a month (YYYY-MM).")
    return CATALOG_MONTHS / f"{month}.json"


def day_dir(year: str, month: str, day: str) -> MemoryPath:
    return SLICES / f"{year}/{month}/{day}"


def strand_shard(n: int) -> MemoryPath:
    """`memory/episodic/strands/NN.json`: the shard holding the strands whose key hashes to `n`."""
    if not 0 <= n < STRAND_SHARDS:
        raise InvalidInput(f"No strand shard {n}: there are {STRAND_SHARDS} (0 … {STRAND_SHARDS - 1}).")
    return STRANDS_DIR / f"{n:02d}.json"


def legacy_flat_slice_id(path: MemoryPath | str) -> str | None:
    """The slice id a legacy flat file's path stands for, or None when it is not one."""
    found = classify(path)
    return found.slice_id.dash if found.kind is PathKind.LEGACY_FLAT and found.slice_id else None


class PathKind(StrEnum):
    """What a file in a memory repository is (docs/FORMAT.md names each one)."""

    CARD = "card"
    CONFIG = "config"
    STRANDS = "strands"  # the single strands.json (read, then migrated to the shards)
    STRAND_SHARD = "strand_shard"  # memory/episodic/strands/NN.json
    STRAND_MENU = "strand_menu"  # memory/episodic/strands/menu.json
    CATALOG = "catalog"
    CATALOG_TOP = "catalog_top"
    CATALOG_MONTH = "catalog_month"
    TIMELINE_MD = "timeline_md"
    PENDING = "pending"
    CATALOG_SHAS = "catalog_shas"
    CATALOG_DAMAGED = "catalog_damaged"  # slices the weave could not read (docs/FORMAT.md)
    SLICE_CHECKS = "slice_checks"  # which slice files were last checked for damage (owners/slice_files.py)
    SEARCH = "search"
    NOTE = "note"  # a staged MCP note (docs/FORMAT.md "Staged notes")
    EVOLUTION = "evolution"
    MONTHLY_INDEX = "monthly_index"
    LEGACY_FLAT = "legacy_flat"
    CORE_MD = "core_md"
    AGENT_MD = "agent_md"
    APPENDIX_MD = "appendix_md"
    CARD_SNAPSHOT = "card_snapshot"
    CARD_HISTORY = "card_history"  # an earlier version of the live card
    SLICE_FILE = "slice_file"  # any other file inside a slice folder (pictures, strays)
    SLICES_STRAY = "slices_stray"  # under the slices root but in no slice folder
    OTHER = "other"


@dataclass(frozen=True)
class PathClass:
    """`classify`'s answer: the kind, and for slice files the slice and the path inside its folder."""

    kind: PathKind
    slice_id: SliceId | None = None
    inner: str = ""
    month: tuple[str, str] | None = None  # (YYYY, MM) of a monthly index

    @property
    def folder_id(self) -> SliceId | None:
        """The slice whose folder holds the file (None for a legacy flat file: it has no folder)."""
        return self.slice_id if self.inner else None


EVOLUTION_DIR = MemoryPath("memory/evolution")
PLAYBOOKS_DIR = MemoryPath("memory/agent-playbooks")
_FIXED = {
    CARD.value: PathKind.CARD,
    CONFIG_JSON.value: PathKind.CONFIG,
    STRANDS_JSON.value: PathKind.STRANDS,
    STRANDS_MENU.value: PathKind.STRAND_MENU,
    CATALOG_JSON.value: PathKind.CATALOG,
    CATALOG_TOP_JSON.value: PathKind.CATALOG_TOP,
    TIMELINE_MD.value: PathKind.TIMELINE_MD,
    PENDING_JSON.value: PathKind.PENDING,
    CATALOG_SHAS_JSON.value: PathKind.CATALOG_SHAS,
    CATALOG_DAMAGED_JSON.value: PathKind.CATALOG_DAMAGED,
    SLICE_CHECKS_JSON.value: PathKind.SLICE_CHECKS,
}
_STRAND_SHARD_RE = re.compile(r"^memory/episodic/strands/(?:[0-2][0-9]|3[01])\.json\Z")
_AGENT_PART_RE = re.compile(r"^timeline/agent-[1-9]\d{0,5}\.md\Z")
_SLICE_INNER = {
    "timeline/core.md": PathKind.CORE_MD,
    "timeline/agent.md": PathKind.AGENT_MD,
    "timeline/appendix.md": PathKind.APPENDIX_MD,
    "previously.md": PathKind.CARD_SNAPSHOT,
}


def classify(path: MemoryPath | str) -> PathClass:
    """What the file at `path` is; the one place that reads the layout back from a path."""
    value = str(path)
    if kind := _FIXED.get(value):
        return PathClass(kind)
    if _under(value, SEARCH_DIR):
        return PathClass(PathKind.SEARCH)
    if _is_month_file(value):
        return PathClass(PathKind.CATALOG_MONTH)
    if _STRAND_SHARD_RE.match(value):
        return PathClass(PathKind.STRAND_SHARD)
    if value.startswith(CARD_HISTORY_DIR.value + "/"):
        return PathClass(PathKind.CARD_HISTORY)
    if _under(value, EVOLUTION_DIR) or _under(value, PLAYBOOKS_DIR):
        return PathClass(PathKind.EVOLUTION)
    if value.startswith(NOTES_DIR.value + "/"):
        return PathClass(PathKind.NOTE)
    if not value.startswith(SLICES.value + "/"):
        return PathClass(PathKind.OTHER)
    return _classify_slice_tree(value[len(SLICES.value) + 1 :])


def _is_month_file(value: str) -> bool:
    """`timeline/index/YYYY-MM.json` (a catalog month file)."""
    name = value[len(CATALOG_MONTHS.value) + 1 :]
    if not value.startswith(CATALOG_MONTHS.value + "/") or len(name) != 12 or not name.endswith(".json"):
        return False
    return _digits(name[:4], 4) and name[4] == "-" and _digits(name[5:7], 2)


def _under(value: str, root: MemoryPath) -> bool:
    return value == root.value or value.startswith(root.value + "/")


def _classify_slice_tree(rel: str) -> PathClass:
    parts = rel.split("/")
    if len(parts) == 3 and parts[2] == "_index.json" and _digits(parts[0], 4) and _digits(parts[1], 2):
        return PathClass(PathKind.MONTHLY_INDEX, month=(parts[0], parts[1]))
    if len(parts) == 4 and parts[3].endswith(".md"):
        flat = SliceId.from_slash(rel[: -len(".md")])
        if flat:
            return PathClass(PathKind.LEGACY_FLAT, flat)
    sid = SliceId.from_slash("/".join(parts[:4])) if len(parts) > 4 else None
    if sid is None:
        return PathClass(PathKind.SLICES_STRAY)
    inner = "/".join(parts[4:])
    if _AGENT_PART_RE.match(inner):  # agent.md's later parts (docs/FORMAT.md "agent.md")
        return PathClass(PathKind.AGENT_MD, sid, inner)
    return PathClass(_SLICE_INNER.get(inner, PathKind.SLICE_FILE), sid, inner)
