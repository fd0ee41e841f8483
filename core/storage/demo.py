"""The demo backend: a bundled sample persona, read-only, under an in-memory overlay.

Chat works as usual: every commit lands in the overlay (turns, indexes, card changes) and
reads see the overlay first, for the life of the process. Nothing ever reaches the disk;
`demo = True` lets the UI say so. `find_personas` lists the personas a demo folder offers;
each gets its own DemoStorage, so one persona's overlay never shows in another's.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from core.errors import ReadOnly, StorageError
from core.storage.base import Change, CommitResult, Delete, Snapshot, blob_sha, is_hidden, resolve_changes
from core.storage.local import LocalSnapshot
from core.storage.paths import MemoryPath, check_size


class DemoSnapshot:
    """The overlay at one version over the persona's files."""

    def __init__(self, base: LocalSnapshot, overlay: dict[MemoryPath, str], version: str) -> None:
        self._base = base
        self._overlay = overlay
        self.version: str | None = version

    def read(self, path: MemoryPath) -> str | None:
        if path in self._overlay:
            text = self._overlay[path]
            check_size(path, text)
            return text
        return self._base.read(path)

    def list(self, prefix: MemoryPath) -> list[MemoryPath]:
        added = {p for p in self._overlay if p.is_under(prefix) and p != prefix and not is_hidden(p.value)}
        return sorted(added.union(self._base.list(prefix)))

    def version_of(self, path: MemoryPath) -> str | None:
        if path in self._overlay:
            return blob_sha(self._overlay[path])
        return self._base.version_of(path)


class DemoStorage:
    """The sample memory at `base` (a folder holding `memory/`), never written to."""

    name = "demo"
    read_only = False  # writes are accepted, into memory only
    demo = True

    def __init__(self, base: Path) -> None:
        self.base = Path(base).expanduser().absolute()
        if not (self.base / "memory").is_dir():
            raise StorageError(
                f"The demo memory is missing: {self.base} has no memory/ folder. "
                "Reinstall the project or point --memory at a folder that holds memory/."
            )
        self._base = LocalSnapshot(self.base)
        self._overlay: dict[MemoryPath, str] = {}
        self._commits = 0
        self._lock = threading.Lock()

    def snapshot(self) -> DemoSnapshot:
        """The persona with every overlay write so far."""
        with self._lock:
            return DemoSnapshot(self._base, dict(self._overlay), f"demo-{self._commits}")

    def commit(self, changes: Sequence[Change], message: str, base: Snapshot | None = None) -> CommitResult:
        """Apply the batch to the overlay (the persona on disk is never touched).

        Deleting is refused: the sample persona is read-only, so there is nothing to forget.
        """
        if any(isinstance(c, Delete) for c in changes):
            raise ReadOnly("The demo memory is read-only: nothing in it can be forgotten or deleted.")
        with self._lock:
            view = DemoSnapshot(self._base, self._overlay, "")
            written = resolve_changes(changes, view.read)
            if not written:
                return CommitResult(version=f"demo-{self._commits}")
            self._overlay.update(written)
            self._commits += 1
            return CommitResult(version=f"demo-{self._commits}", written=tuple(sorted(written)))

    @property
    def overlay_paths(self) -> list[MemoryPath]:
        """Files changed in this process (what the UI may list as 'not saved')."""
        with self._lock:
            return sorted(self._overlay)


PERSONA_FILE = "persona.json"
PERSONA_ID_RE = re.compile(r"^[a-z][a-z0-9-]{0,31}\Z")
DEFAULT_PERSONA = "default"  # the id of a demo folder without persona.json


@dataclass(frozen=True)
class Persona:
    """One demo persona: a memory root (it holds memory/), its id and a one-line blurb per locale."""

    id: str
    root: Path
    blurb: Mapping[str, str] = field(default_factory=dict)


def read_persona(root: Path, fallback_id: str) -> Persona:
    """The persona at `root` as its `persona.json` describes it (id and blurb are optional)."""
    file = root / PERSONA_FILE
    raw: object = {}
    if file.is_file():
        try:
            raw = json.loads(file.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, ValueError) as exc:
            raise StorageError(f"{file}: not readable JSON ({exc}); fix or remove it.") from exc
    if not isinstance(raw, dict):
        raise StorageError(f'{file}: expected an object like {{"id": "nell", "blurb": {{"en": "…"}}}}.')
    pid = raw.get("id", fallback_id)
    blurb = raw.get("blurb", {})
    if not isinstance(pid, str) or not PERSONA_ID_RE.match(pid):
        raise StorageError(f"{file}: id {pid!r} must be lowercase letters, digits or '-' (at most 32).")
    if not isinstance(blurb, dict) or not all(isinstance(v, str) for v in blurb.values()):
        raise StorageError(f'{file}: blurb must map a locale to one line, like {{"en": "…"}}.')
    return Persona(pid, root, {str(k): " ".join(v.split()) for k, v in blurb.items()})


def find_personas(root: Path) -> list[Persona]:
    """The personas of a demo folder: `root` itself first (the default), then every
    `root/personas/<id>/` that holds memory/, by folder name. Ids must differ."""
    root = Path(root).expanduser().absolute()
    found = [read_persona(root, DEFAULT_PERSONA)]
    extra = root / "personas"
    if extra.is_dir():
        found += [read_persona(d, d.name) for d in sorted(extra.iterdir()) if (d / "memory").is_dir()]
    ids = [p.id for p in found]
    if len(set(ids)) != len(ids):
        raise StorageError(f"{root}: two demo personas share an id ({', '.join(ids)}); give each its own.")
    return found
