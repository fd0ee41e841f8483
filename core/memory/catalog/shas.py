"""`timeline/shas.json`: which version of each re-readable slice its catalog entry was made from.

The weave re-reads entries that are dry or dated today (they may have changed since). A file
whose git blob sha is still the one its entry was made from cannot have changed, so it is not
read again — on GitHub the sha comes with the tree listing, so an unchanged memory costs no
slice reads at all. Only those entries are recorded (dry ones and today's): every other entry
is never re-read anyway, so the file stays small however large the archive grows.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from core.memory.formats import jsjson

SCHEMA = 1
SHA_LEN = 16  # a prefix is plenty to tell versions of one file apart


def parse_shas(text: str | None) -> dict[str, str]:
    """slice id → blob sha prefix; an unreadable file records nothing (everything is re-read)."""
    if not text:
        return {}
    try:
        raw = json.loads(text)
    except ValueError:
        return {}
    shas = raw.get("core_md") if isinstance(raw, dict) else None
    if not isinstance(shas, dict):
        return {}
    return {str(k): v for k, v in shas.items() if isinstance(v, str)}


def render_shas(shas: Mapping[str, str]) -> str:
    """`{"_schema": 1, "core_md": {id: sha, …}}` by id, 2-space JSON without a trailing newline."""
    return jsjson.dumps({"_schema": SCHEMA, "core_md": dict(sorted(shas.items()))})


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
