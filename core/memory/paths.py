"""The memory layout: where each file lives, as `MemoryPath` values built by small helpers.

Path validation and the size caps live one layer down in `core.storage.paths` (storage needs
them and must not import memory); they are re-exported here so memory code has one place to
import paths from.
"""

from __future__ import annotations

import re

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
    "FileTooLarge",
    "MemoryPath",
    "_reject_reason",
    "check_path",
    "check_size",
    "is_protected",
    "normalize",
    "original_allows",
    "size_limit",
    "writable_path",
]

# ASCII digits only, nothing after them (Python's `\d` takes any Unicode digit, `$` a final newline).
_SLICE_ID_RE = re.compile(r"^([0-9]{4})-([0-9]{2})-([0-9]{2})-([0-9]{4})\Z")


MEMORY = MemoryPath("memory")
EPISODIC = MemoryPath("memory/episodic")
SLICES = MemoryPath("memory/episodic/slices")
STRANDS_JSON = MemoryPath("memory/episodic/strands.json")
CATALOG_JSON = MemoryPath("memory/episodic/timeline/index.json")
TIMELINE_MD = MemoryPath("memory/episodic/timeline.md")
PENDING_JSON = MemoryPath("memory/episodic/timeline/pending.json")
CATALOG_SHAS_JSON = MemoryPath("memory/episodic/timeline/shas.json")
CARD = MemoryPath("memory/episodic/current-previously.md")
CONFIG_JSON = MemoryPath("memory/user/config.json")
SEARCH_DIR = MemoryPath("memory/episodic/search")


def parse_slice_id(slice_id: str) -> tuple[str, str, str, str]:
    """Split `YYYY-MM-DD-HHMM` into its parts; InvalidInput for anything else."""
    m = _SLICE_ID_RE.match(slice_id or "")
    if not m:
        raise InvalidInput(
            f'Invalid slice id "{slice_id}". Expected YYYY-MM-DD-HHMM (UTC), e.g. 2026-08-11-1115.'
        )
    return m.group(1), m.group(2), m.group(3), m.group(4)


def is_slice_id(slice_id: str) -> bool:
    return bool(_SLICE_ID_RE.match(slice_id or ""))


def slice_rel(slice_id: str) -> str:
    """`2026-08-11-1115` → `2026/08/11/1115`."""
    return "/".join(parse_slice_id(slice_id))


def slice_id_from_rel(rel: str) -> str:
    """`2026/08/11/1115` → `2026-08-11-1115`."""
    return rel.replace("/", "-")


def slice_dir(slice_id: str) -> MemoryPath:
    return SLICES / slice_rel(slice_id)


def core_md(slice_id: str) -> MemoryPath:
    return slice_dir(slice_id) / "timeline/core.md"


def agent_md(slice_id: str) -> MemoryPath:
    return slice_dir(slice_id) / "timeline/agent.md"


def appendix_md(slice_id: str) -> MemoryPath:
    return slice_dir(slice_id) / "timeline/appendix.md"


def card_snapshot(slice_id: str) -> MemoryPath:
    return slice_dir(slice_id) / "previously.md"


def monthly_index(year: str, month: str) -> MemoryPath:
    return SLICES / f"{year}/{int(month):02d}/_index.json"


def day_dir(year: str, month: str, day: str) -> MemoryPath:
    return SLICES / f"{year}/{month}/{day}"


_LEGACY_FLAT_RE = re.compile(r"^memory/episodic/slices/(\d{4})/(\d{2})/(\d{2})/(\d{4})\.md$")


def legacy_flat_md(slice_id: str) -> MemoryPath:
    """A legacy flat slice file `…/YYYY/MM/DD/HHMM.md` (read-only compatibility)."""
    year, month, day, hhmm = parse_slice_id(slice_id)
    return day_dir(year, month, day) / f"{hhmm}.md"


def legacy_flat_slice_id(path: MemoryPath | str) -> str | None:
    """The slice id a legacy flat file's path stands for, or None when it is not one."""
    m = _LEGACY_FLAT_RE.match(str(path))
    return "-".join(m.groups()) if m else None
