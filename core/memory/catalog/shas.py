"""Which version of each re-readable slice its catalog entry was made from: the `core_md` map of
the catalog's top file (core/memory/catalog/layout.py; `timeline/shas.json` in earlier versions).

The weave re-reads entries that are dry or dated today (they may have changed since). A file
whose git blob sha is still the one its entry was made from cannot have changed, so it is not
read again — on GitHub the sha comes with the tree listing, so an unchanged memory costs no
slice reads at all. Only those entries are recorded (dry ones and today's): every other entry
is never re-read anyway, so the map stays small however large the archive grows.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

SHA_LEN = 16  # a prefix is plenty to tell versions of one file apart


def parse_shas(text: str | None) -> dict[str, str]:
    """slice id → blob sha prefix, from a file's `core_md` map; an unreadable file records
    nothing (everything is re-read)."""
    if not text:
        return {}
    try:
        raw = json.loads(text)
    except ValueError:
        return {}
    return shas_in(raw)


def shas_in(raw: Any) -> dict[str, str]:
    """The `core_md` map of a parsed file; {} when it has none."""
    shas = raw.get("core_md") if isinstance(raw, dict) else None
    if not isinstance(shas, dict):
        return {}
    return {str(k): v for k, v in shas.items() if isinstance(v, str)}


@dataclass(frozen=True)
class Versions:
    """What the last weave recorded, and the current blob sha of a slice's core.md."""

    known: Mapping[str, str]
    current: Callable[[str], str | None]

    def unchanged(self, slice_id: str) -> bool:
        """Whether the slice's file is still the version its entry was made from."""
        sha = self.current(slice_id)
        return sha is not None and self.known.get(slice_id) == sha[:SHA_LEN]

    def record(self, entries: Iterable[Mapping[str, Any]], today: str) -> dict[str, str]:
        """The shas to keep: those of the entries a later weave would re-read."""
        out: dict[str, str] = {}
        for entry in entries:
            if entry.get("needs_marking") or entry.get("date") == today:
                sha = self.current(str(entry["id"]))
                if sha is not None:
                    out[str(entry["id"])] = sha[:SHA_LEN]
        return out
