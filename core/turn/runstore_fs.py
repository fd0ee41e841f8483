"""A RunStore in a folder beside the memory (docs/FORMAT.md, "Runs").

    <runs>/<turn_id>/events.jsonl      one event per line, in seq order (append-only)
    <runs>/<turn_id>/<key>.json        one JSON value per key (request, rounds, tool results …)

Never inside the memory repository: runs are scratch data, git history holds only memory.
Appends take the folder's lock file (`flock`), read the last seq and write their lines while
holding it, so writers in several threads or processes get distinct, gap-free seqs. Values
are written to a temporary file and renamed, so a reader never sees half a value. Followers in
this process are woken at once; a follower in another process (a second `previously` command)
notices new lines by polling.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import shutil
import threading
import time
from datetime import datetime
from pathlib import Path
from typing import Any

from core.ids import RunKey, RunName
from core.turn.events import Event
from core.turn.runstore import numbered_from

EVENTS_FILE = "events.jsonl"
LOCK_FILE = ".events.lock"
POLL_SECONDS = 0.1
TEMP_GRACE_SECONDS = 60.0


class FolderRunStore:
    """Runs as files under `root` (created on first write)."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        self._cond = threading.Condition()
        self._cache: dict[str, tuple[int, list[Event]]] = {}

    def _dir(self, turn_id: str) -> Path:
        return self.root / RunName.parse(turn_id)

    def append(self, turn_id: str, events: list[Event]) -> list[Event]:
        """Number the events on from the last stored seq and append them as JSON lines."""
        folder = self._dir(turn_id)
        folder.mkdir(parents=True, exist_ok=True)
        with self._cond, (folder / LOCK_FILE).open("a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
            stored = self._load(turn_id)
            numbered = numbered_from(stored[-1]["seq"] if stored else 0, events)
            data = "".join(json.dumps(e, ensure_ascii=False) + "\n" for e in numbered)
            with (folder / EVENTS_FILE).open("a", encoding="utf-8") as fh:
                fh.write(data)
            self._cond.notify_all()
            return numbered

    def events(self, turn_id: str, after: int = 0) -> list[Event]:
        """The turn's events with seq > after."""
        with self._cond:
            return [e for e in self._load(turn_id) if e["seq"] > after]

    def wait(self, turn_id: str, after: int, timeout: float) -> list[Event]:
        """Block up to `timeout` seconds for events with seq > after."""
        with self._cond:
            remaining = timeout
            while True:
                found = [e for e in self._load(turn_id) if e["seq"] > after]
                if found or remaining <= 0:
                    return found
                step = min(remaining, POLL_SECONDS)
                self._cond.wait(step)
                remaining -= step

    def _load(self, turn_id: str) -> list[Event]:
        """Parse only the bytes appended since the last read (callers hold the lock)."""
        path = self._dir(turn_id) / EVENTS_FILE
        offset, cached = self._cache.get(turn_id, (0, []))
        try:
            with path.open("rb") as fh:
                fh.seek(offset)
                chunk = fh.read()
        except FileNotFoundError:
            return []
        complete = chunk[: chunk.rfind(b"\n") + 1]  # a line still being written waits for the next read
        if complete:
            cached = cached + [json.loads(line) for line in complete.splitlines() if line.strip()]
            self._cache[turn_id] = (offset + len(complete), cached)
        return cached

    def put(self, turn_id: str, key: str, value: Any) -> None:
        """Store one JSON value, replacing the previous one atomically."""
        folder = self._dir(turn_id)
        folder.mkdir(parents=True, exist_ok=True)
        target = folder / f"{RunKey.parse(key)}.json"
        tmp = folder / f".{key}.{threading.get_ident()}.tmp"
        tmp.write_text(json.dumps(value, ensure_ascii=False), encoding="utf-8")
        os.replace(tmp, target)

    def get(self, turn_id: str, key: str) -> Any | None:
        """The stored value, or None."""
        path = self._dir(turn_id) / f"{RunKey.parse(key)}.json"
        try:
            return json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return None

    def exists(self, turn_id: str) -> bool:
        """Whether anything was stored for the turn."""
        return self._dir(turn_id).is_dir()

    def turn_ids(self) -> list[str]:
        """Every turn folder."""
        if not self.root.is_dir():
            return []
        return sorted(p.name for p in self.root.iterdir() if p.is_dir() and RunName.matches(p.name))

    def clean_temp(self, older_than: float = TEMP_GRACE_SECONDS) -> int:
        """Remove the temporary files a crash left behind (a live writer renames its own at once)."""
        cutoff = time.time() - older_than
        removed = 0
        for turn_id in self.turn_ids():
            for tmp in (self.root / turn_id).glob(".*.tmp"):
                with contextlib.suppress(OSError):
                    if tmp.stat().st_mtime < cutoff:
                        tmp.unlink()
                        removed += 1
        return removed

    def prune(self, before: datetime) -> int:
        """Delete runs last touched before `before`; returns how many went."""
        if not self.root.is_dir():
            return 0
        cutoff = before.timestamp()
        removed = 0
        for folder in self.root.iterdir():
            if folder.is_dir() and RunName.matches(folder.name) and _touched(folder) < cutoff:
                with contextlib.suppress(OSError):
                    shutil.rmtree(folder)
                    removed += 1
                    self._cache.pop(folder.name, None)
        return removed


def _touched(folder: Path) -> float:
    """When a run last changed: the newest mtime of its folder and files."""
    times = [folder.stat().st_mtime]
    times += [p.stat().st_mtime for p in folder.iterdir() if p.is_file()]
    return max(times)
