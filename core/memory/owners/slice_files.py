"""The files of a slice folder other than core.md — agent.md and its parts, the appendix, the card
snapshot, pictures, attachments — checked for damage when their folder changes.

core.md is watched by the search index (a damaged one is never indexed, so `maintain` sees the
gap). These files are not indexed, so `timeline/checked.json` (a derived record, docs/FORMAT.md
"Damaged files") keeps, per slice folder, a digest of its files' change tokens
(`core.storage.base.change_token`: the blob sha from GitHub's listing, a local file's size and
mtime) and the damaged files found. A pass reads the files of the folders whose digest moved and
nothing else, so an unchanged memory costs one listing it makes anyway and one small read. A
missing or unreadable record checks every folder (the full scan, `damaged_slice_files`).

On a local folder the digest is of the folders' times instead (`base.folder_times`: free after
the listing the pass makes anyway), so an unchanged memory costs no stat per file. A folder's
time moves whenever a file in it is added, removed or renamed into place — every write of the
product and of most editors — but not when a file is rewritten in place, so each folder's files
are also looked at (their tokens compared) once every six hours of clock time (`SWEEP_EVERY`):
a slice belongs to one of 360 parts, a minute each, and a pass looks at the parts due since the
last pass. The scheduled pass, 15 minutes apart, looks at a 24th each; one after six hours or
more, or the first, at everything.
The last pass's time is this process's own, or the record's (`swept`, written only along with
another change, so an unchanged memory is never rewritten).

A damaged file is only named here: it is left byte for byte, and nothing waits for it.
"""

from __future__ import annotations

import hashlib
import json
import zlib
from bisect import bisect_left
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Protocol

from core.clock import iso, try_parse_iso
from core.errors import Damage
from core.memory import paths
from core.memory.formats import jsjson
from core.memory.owners.registry import by_name, owner_of
from core.storage.base import change_token, folder_times, prefetch, version_of

SCHEMA = 1
DIGEST_LEN = 12  # per folder: enough to tell one state of a folder's files from the next
RECORD = by_name("slice file checks")
CORE_INNER = "timeline/core.md"  # watched by the search index instead (module docstring)
SWEEP_EVERY = timedelta(hours=6)  # folder times miss in-place rewrites: every file is looked at this often
SWEEP_PARTS = 360  # in this many parts (a minute each): a pass looks at the parts due since the last one
# This process's last pass per memory folder: the record is not rewritten only to say when.
_LOOKED: dict[str, datetime] = {}
FOLDERS_LISTED_ALONE = 2_000  # past this many folders to look at, one listing of every slice is cheaper
FOLDER_MARK = "d"  # a digest of folder times starts so (one of file tokens never does: hex)


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
    swept: datetime | None = None  # the last pass that checked every folder (folder times only)


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


def refresh_slice_checks(batch: Batch, now: datetime | None = None) -> list[Damage]:
    """Re-check the folders whose files changed since the last pass, queue the record when it
    moved, and return every damaged slice file other than core.md, by path.

    `now` (maintenance's clock) tells a pass over folder times which part of the hourly look at
    every file is due (module docstring); without it only the folders that moved are looked at."""
    text = RECORD.read_or_none(batch, paths.SLICE_CHECKS_JSON)
    old = parse_checks(text)
    times = folder_times(batch, paths.SLICES)
    if times is None:  # file tokens: exact (GitHub's blob shas), so no hourly look is needed
        grouped = folder_files(batch.list(paths.SLICES))
        digests = {sid: _digest(batch, files) for sid, files in grouped.items()}
    else:
        digests, grouped = _timed_digests(batch, times, old, _last_look(batch, old.swept), now)
    new = Checks(swept=old.swept)
    changed: list[tuple[str, str | None]] = []
    for sid, digest in digests.items():
        if digest is not None and old.folders.get(sid) == digest:
            new.folders[sid] = digest
        else:
            changed.append((sid, digest))
    for value, row in old.damaged.items():
        found = paths.classify(value).folder_id
        if found is not None and found.dash in new.folders:  # its folder did not move: still so
            new.damaged[value] = row
    prefetch(batch, [p for sid, _ in changed for p in grouped.get(sid, ())])
    for sid, digest in changed:
        for path in grouped.get(sid, ()):
            if (damage := file_damage(batch, path)) is not None:
                new.damaged[path.value] = (damage.problem, change_token(batch, path) or "")
        if digest is not None:
            new.folders[sid] = digest
    _save(batch, new, text, now if times is not None else None)
    return [Damage(p, problem) for p, (problem, _) in sorted(new.damaged.items())]


def _save(batch: Batch, new: Checks, text: str | None, looked: datetime | None) -> None:
    """Queue the record when it moved; `looked`, the time of a pass over folder times, rides
    along with another change and is never written alone (an unchanged memory is not rewritten)."""
    rendered = render_checks(new)
    if rendered != text and (new.folders or new.damaged or text is not None):
        if looked is not None:
            new.swept = looked
            rendered = render_checks(new)
        batch.put(paths.SLICE_CHECKS_JSON, rendered)
    if looked is not None:
        _LOOKED[_memory_key(batch)] = looked


def _last_look(batch: Batch, recorded: datetime | None) -> datetime | None:
    """When the last pass over this memory looked at the parts due: this process's own last
    pass, or the record's time (written only along with a change, so it may be older: more is
    looked at, never less)."""
    mine = _LOOKED.get(_memory_key(batch))
    return max(t for t in (mine, recorded) if t is not None) if mine or recorded else None


def _memory_key(batch: Batch) -> str:
    return str(getattr(getattr(batch, "snapshot", batch), "root", ""))


def _timed_digests(
    batch: Batch, times: Mapping[str, int], old: Checks, last: datetime | None, now: datetime | None
) -> tuple[dict[str, str | None], dict[str, list[paths.MemoryPath]]]:
    """Slice id → "<folder-times digest> <file-tokens digest>" (None: look again next pass), and
    the files of the folders looked at: those whose folder times moved and those whose part of
    the look at every file is due. Every other folder keeps its recorded digest without a stat."""
    due = _due_parts(last, now)
    by_folder = _folder_digests(times)
    look = [
        sid
        for sid, digest in by_folder.items()
        if digest is None
        or (due is None or _part(sid) in due)
        or not old.folders.get(sid, "").startswith(digest + " ")
    ]
    files = _files_of(batch, look)
    found: dict[str, str | None] = {}
    for sid, digest in by_folder.items():
        if sid not in files:
            found[sid] = old.folders[sid]
        elif digest is not None and (tokens := _digest(batch, files[sid])) is not None:
            found[sid] = f"{digest} {tokens}"
        else:
            found[sid] = None
    return found, files


def _due_parts(last: datetime | None, now: datetime | None) -> set[int] | None:
    """The parts of the hourly look due between the last pass and this one (None: all of them;
    empty without a clock)."""
    if now is None:
        return set()
    if last is None or not timedelta(0) <= now - last < SWEEP_EVERY:
        return None
    step = SWEEP_EVERY.total_seconds() / SWEEP_PARTS
    first, this = int(last.timestamp() // step), int(now.timestamp() // step)
    return {n % SWEEP_PARTS for n in range(first + 1, this + 1)}


def _part(slice_id: str) -> int:
    return zlib.crc32(slice_id.encode()) % SWEEP_PARTS


def _folder_digests(times: Mapping[str, int]) -> dict[str, str | None]:
    """Slice id → a digest of the times of its folder and the folders in it (None when one of
    them is not to be trusted this pass), from `folder_times` of the slices root."""
    root = paths.SLICES.value + "/"
    skip, width = len(root), len("YYYY/MM/DD/HHMM")
    ids: dict[str, str | None] = {}
    stamps: dict[str, list[str]] = {}
    for folder, mtime in times.items():
        top = folder[skip : skip + width]
        if (
            len(top) < width
            or not folder.startswith(root)
            or folder[skip + width : skip + width + 1] not in ("", "/")
        ):
            continue  # the root, a year, a month or a day (or no slice folder at all)
        if top not in ids:  # one parse per slice folder
            sid = paths.SliceId.from_slash(top)
            ids[top] = sid.dash if sid else None
        if (dash := ids[top]) is not None:
            stamps.setdefault(dash, []).append(f"{folder} {mtime}" if mtime >= 0 else "")
    return {
        sid: None
        if "" in rows
        else FOLDER_MARK + hashlib.sha1("\n".join(sorted(rows)).encode()).hexdigest()[: DIGEST_LEN - 1]
        for sid, rows in stamps.items()
    }


def _files_of(batch: Batch, ids: list[str]) -> dict[str, list[paths.MemoryPath]]:
    """The checked files (all but core.md) of these slices' folders: each folder listed on its
    own, or, for many, found in the listing of every slice."""
    if len(ids) <= FOLDERS_LISTED_ALONE:
        return {sid: [p for p in batch.list(paths.slice_dir(sid)) if not _is_core(p, sid)] for sid in ids}
    listing = batch.list(paths.SLICES)
    values = [p.value for p in listing]
    found: dict[str, list[paths.MemoryPath]] = {}
    for sid in ids:
        start = paths.slice_dir(sid).value + "/"
        files = found.setdefault(sid, [])
        for i in range(bisect_left(values, start), len(values)):
            if not values[i].startswith(start):
                break
            if values[i][len(start) :] != CORE_INNER:
                files.append(listing[i])
    return found


def _is_core(path: paths.MemoryPath, slice_id: str) -> bool:
    return path.value == f"{paths.slice_dir(slice_id).value}/{CORE_INNER}"


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
    swept = raw.get("swept")
    out.swept = try_parse_iso(swept) if isinstance(swept, str) else None
    return out


def render_checks(checks: Checks) -> str:
    """`{"_schema": 1, "damaged": {path: {problem, token}}, "folders": {id: digest}}`, by key,
    and `"swept"` (an ISO time) once a pass over folder times checked every folder."""
    damaged: Mapping[str, dict[str, str]] = {
        k: {"problem": p, "token": t} for k, (p, t) in sorted(checks.damaged.items())
    }
    folders = dict(sorted(checks.folders.items()))
    record: dict[str, object] = {"_schema": SCHEMA, "damaged": dict(damaged), "folders": folders}
    if checks.swept is not None:
        record["swept"] = iso(checks.swept)
    return jsjson.dumps(record)
