"""The files of a slice folder other than core.md — agent.md and its parts, the appendix, the card
snapshot, pictures, attachments — checked for damage when their folder changes.

core.md is watched by the search index (a damaged one is never indexed, so `maintain` sees the
gap). These files are not indexed, so `timeline/checked.json` (a derived record, docs/FORMAT.md
"Damaged files") keeps, per slice folder, a digest of its files' change tokens
(`core.storage.base.change_token`: the blob sha from GitHub's listing, a local file's size and
mtime) and the damaged files found. A pass reads the files of the folders whose digest moved and
nothing else, so an unchanged memory costs one listing it makes anyway and one small read. A
missing or unreadable record checks every folder (the full scan, `damaged_slice_files`).

A damaged file is only named here: it is left byte for byte, and nothing waits for it.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Protocol

from core.errors import Damage
from core.memory import paths
from core.memory.formats import jsjson
from core.memory.owners.registry import by_name, owner_of
from core.storage.base import change_token, prefetch, version_of

SCHEMA = 1
DIGEST_LEN = 12  # per folder: enough to tell one state of a folder's files from the next
RECORD = by_name("slice file checks")
CORE_INNER = "timeline/core.md"  # watched by the search index instead (module docstring)


class View(Protocol):
    def read(self, path: paths.MemoryPath) -> str | None: ...

    def read_bytes(self, path: paths.MemoryPath) -> bytes | None: ...

    def list(self, prefix: paths.MemoryPath) -> list[paths.MemoryPath]: ...


class Batch(View, Protocol):
    def put(self, path: paths.MemoryPath, text: str) -> None: ...


@dataclass
class Checks:
    """What the last pass saw: folder id → digest, and damaged path → (problem, change token)."""

    folders: dict[str, str] = field(default_factory=dict)
    damaged: dict[str, tuple[str, str]] = field(default_factory=dict)


def folder_files(listing: Iterable[paths.MemoryPath]) -> dict[str, list[paths.MemoryPath]]:
    """Slice id → the folder's files this module checks (everything but core.md), from a listing.

    Every file inside a slice folder but core.md is one of the checked kinds (agent.md and its
    parts, the appendix, the snapshot, pictures, other files), so the path is split by hand and
    each folder's id is parsed once (`classify` per file costs more than the rest of a pass).
    """
    root = paths.SLICES.value + "/"
    ids: dict[str, str | None] = {}
    found: dict[str, list[paths.MemoryPath]] = {}
    for path in listing:
        value = path.value
        if not value.startswith(root):
            continue
        parts = value[len(root) :].split("/", 4)
        if len(parts) < 5 or parts[4] == CORE_INNER:
            continue
        folder = "/".join(parts[:4])
        if folder not in ids:  # one parse per folder
            sid = paths.SliceId.from_slash(folder)
            ids[folder] = sid.dash if sid else None
        if (dash := ids[folder]) is not None:
            found.setdefault(dash, []).append(path)
    return found


def file_damage(view: View, path: paths.MemoryPath) -> Damage | None:
    """What keeps one authored slice file from being read, through its owner; None when it reads."""
    owner = owner_of(path)
    return owner.damage(view, path) if owner is not None and owner.authored else None


def damaged_slice_files(view: View) -> list[Damage]:
    """Every damaged slice file other than core.md (the full scan: every file read), by path."""
    grouped = folder_files(view.list(paths.SLICES))
    files = sorted(p for found in grouped.values() for p in found)
    prefetch(view, files)
    return [d for p in files if (d := file_damage(view, p))]


def refresh_slice_checks(batch: Batch) -> list[Damage]:
    """Re-check the folders whose files changed since the last pass, queue the record when it
    moved, and return every damaged slice file other than core.md, by path."""
    text = RECORD.read_or_none(batch, paths.SLICE_CHECKS_JSON)
    old = parse_checks(text)
    grouped = folder_files(batch.list(paths.SLICES))
    new = Checks()
    changed: list[tuple[str, list[paths.MemoryPath], str | None]] = []
    for sid, files in grouped.items():
        digest = _digest(batch, files)
        if digest is not None and old.folders.get(sid) == digest:
            new.folders[sid] = digest
        else:
            changed.append((sid, files, digest))
    for value, row in old.damaged.items():
        found = paths.classify(value).folder_id
        if found is not None and found.dash in new.folders:  # its folder did not move: still so
            new.damaged[value] = row
    prefetch(batch, [p for _, files, _ in changed for p in files])
    for sid, files, digest in changed:
        for path in files:
            if (damage := file_damage(batch, path)) is not None:
                new.damaged[path.value] = (damage.problem, change_token(batch, path) or "")
        if digest is not None:
            new.folders[sid] = digest
    rendered = render_checks(new)
    if rendered != text and (new.folders or text is not None):
        batch.put(paths.SLICE_CHECKS_JSON, rendered)
    return [Damage(p, problem) for p, (problem, _) in sorted(new.damaged.items())]


def recorded_damage(view: View) -> list[Damage]:
    """The damaged slice files the last pass found that are still as it found them (for the page:
    one read; a file changed since is left to the next pass to judge)."""
    checks = parse_checks(RECORD.read_or_none(view, paths.SLICE_CHECKS_JSON))
    found = []
    for value, (problem, token) in sorted(checks.damaged.items()):
        path = paths.MemoryPath(value)
        if token and token in (change_token(view, path), version_of(view, path)):
            found.append(Damage(value, problem))
    return found


def _digest(view: object, files: list[paths.MemoryPath]) -> str | None:
    h = hashlib.sha1()
    for path in sorted(files):
        token = change_token(view, path)
        if token is None:
            return None
        h.update(f"{path.value} {token}\n".encode())
    return h.hexdigest()[:DIGEST_LEN]


def parse_checks(text: str | None) -> Checks:
    """The record; a missing or unreadable one (or another schema's) is empty: all is checked."""
    try:
        raw = json.loads(text or "")
    except ValueError:
        return Checks()
    if not isinstance(raw, dict) or raw.get("_schema") != SCHEMA:
        return Checks()
    folders = raw.get("folders")
    damaged = raw.get("damaged")
    out = Checks()
    if isinstance(folders, dict):
        out.folders = {str(k): v for k, v in folders.items() if isinstance(v, str)}
    if isinstance(damaged, dict):
        for k, v in damaged.items():
            if isinstance(v, dict) and isinstance(v.get("problem"), str) and isinstance(v.get("token"), str):
                out.damaged[str(k)] = (v["problem"], v["token"])
    return out


def render_checks(checks: Checks) -> str:
    """`{"_schema": 1, "damaged": {path: {problem, token}}, "folders": {id: digest}}`, by key."""
    damaged: Mapping[str, dict[str, str]] = {
        k: {"problem": p, "token": t} for k, (p, t) in sorted(checks.damaged.items())
    }
    folders = dict(sorted(checks.folders.items()))
    return jsjson.dumps({"_schema": SCHEMA, "damaged": dict(damaged), "folders": folders})
