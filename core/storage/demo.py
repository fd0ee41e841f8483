"""The demo backend: a bundled sample persona, read-only, under an overlay of the visitors' writes.

Chat works as usual: every commit lands in the overlay (turns, indexes, card changes) and
reads see the overlay first. The persona's own files are never written; `demo = True` lets
the UI say so. Where the overlay lives is an `Overlay`: this process's memory for the local
demo (gone when the server stops), or a store every container of a deployment shares (on AWS
the run bucket: functions/aws/demo_overlay.py), which wipes it a while after the first write.
`find_personas` lists the personas a demo folder offers; each gets its own DemoStorage and
overlay, so one persona's overlay never shows in another's.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from core.errors import ReadOnly, StorageError, TooLarge
from core.storage.base import (
    Change,
    CommitResult,
    Content,
    Delete,
    Snapshot,
    blob_sha,
    bytes_of,
    is_hidden,
    resolve_changes,
    text_of,
)
from core.storage.local import LocalSnapshot
from core.storage.paths import MemoryPath, check_size


class OverlayFiles(Protocol):
    """The overlay at one version: the files it holds, their contents and blob shas."""

    @property
    def version(self) -> str: ...

    def paths(self) -> Iterable[MemoryPath]: ...

    def read(self, path: MemoryPath) -> Content | None: ...

    def sha(self, path: MemoryPath) -> str | None: ...


# Given the overlay's current files, the contents a commit writes (only those that change).
Resolve = Callable[[OverlayFiles], dict[MemoryPath, Content]]


class Overlay(Protocol):
    """Where one persona's demo writes live."""

    def files(self) -> OverlayFiles:
        """The overlay as it is now."""
        ...

    def apply(self, resolve: Resolve) -> tuple[str, tuple[MemoryPath, ...]]:
        """Add what `resolve` returns for the current files, atomically (a writer that loses a
        race evaluates it again on the newer files); the new version and the paths written."""
        ...


OverlayFactory = Callable[[str], Overlay]  # a persona id → its overlay


@dataclass(frozen=True)
class TextFiles:
    """Overlay files held as they were written (texts, or bytes for a picture)."""

    version: str
    texts: Mapping[MemoryPath, Content]

    def paths(self) -> Iterable[MemoryPath]:
        return self.texts.keys()

    def read(self, path: MemoryPath) -> Content | None:
        return self.texts.get(path)

    def sha(self, path: MemoryPath) -> str | None:
        text = self.texts.get(path)
        return None if text is None else blob_sha(text)


class ProcessOverlay:
    """The overlay in this process's memory (the local demo): it lasts until the server stops."""

    def __init__(self) -> None:
        self._texts: dict[MemoryPath, Content] = {}
        self._commits = 0
        self._lock = threading.Lock()

    def files(self) -> TextFiles:
        with self._lock:
            return TextFiles(f"demo-{self._commits}", dict(self._texts))

    def apply(self, resolve: Resolve) -> tuple[str, tuple[MemoryPath, ...]]:
        with self._lock:
            written = resolve(TextFiles("", self._texts))
            if written:
                self._texts.update(written)
                self._commits += 1
            return f"demo-{self._commits}", tuple(sorted(written))


def check_overlay_room(used: int, adding: int, limit: int, wiped: str) -> None:
    """TooLarge when writing `adding` more bytes would take a persona's overlay past `limit`."""
    if used + adding > limit:
        raise TooLarge(
            f"This demo overlay has no room for more changes: {used / 1_000_000:.1f} of the "
            f"{limit / 1_000_000:.0f} MB it keeps are written. {wiped} "
            "Nothing was written to the persona; try again then, or pick another persona."
        )


class DemoSnapshot:
    """The overlay at one version over the persona's files."""

    def __init__(self, base: LocalSnapshot, files: OverlayFiles) -> None:
        self._base = base
        self._files = files
        self.version: str | None = files.version

    def read(self, path: MemoryPath) -> str | None:
        return text_of(path, self.read_content(path))

    def read_bytes(self, path: MemoryPath) -> bytes | None:
        return bytes_of(self.read_content(path))

    def read_content(self, path: MemoryPath) -> Content | None:
        """The overlay's content for `path`, else the persona's bytes."""
        content = self._files.read(path)
        if content is not None:
            check_size(path, content)
            return content
        return self._base.read_bytes(path)

    def list(self, prefix: MemoryPath) -> list[MemoryPath]:
        added = {
            p for p in self._files.paths() if p.is_under(prefix) and p != prefix and not is_hidden(p.value)
        }
        return sorted(added.union(self._base.list(prefix)))

    def version_of(self, path: MemoryPath) -> str | None:
        sha = self._files.sha(path)
        return sha if sha is not None else self._base.version_of(path)


class DemoStorage:
    """The sample memory at `base` (a folder holding `memory/`), never written to.

    `overlay_for` picks where the visitors' writes go, by persona id (default: this process).
    """

    name = "demo"
    read_only = False  # writes are accepted, into the overlay only
    demo = True

    def __init__(self, base: Path, overlay_for: OverlayFactory | None = None) -> None:
        self.base = Path(base).expanduser().absolute()
        if not (self.base / "memory").is_dir():
            raise StorageError(
                f"The demo memory is missing: {self.base} has no memory/ folder. "
                "Reinstall the project or point --memory at a folder that holds memory/."
            )
        self.persona = read_persona(self.base, DEFAULT_PERSONA).id
        self._base = LocalSnapshot(self.base)
        self._overlay: Overlay = overlay_for(self.persona) if overlay_for else ProcessOverlay()

    def snapshot(self) -> DemoSnapshot:
        """The persona with every overlay write so far."""
        return DemoSnapshot(self._base, self._overlay.files())

    def commit(self, changes: Sequence[Change], message: str, base: Snapshot | None = None) -> CommitResult:
        """Apply the batch to the overlay (the persona on disk is never touched).

        Deleting is refused: the sample persona is read-only, so there is nothing to forget.
        """
        if any(isinstance(c, Delete) for c in changes):
            raise ReadOnly("The demo memory is read-only: nothing in it can be forgotten or deleted.")

        def resolve(files: OverlayFiles) -> dict[MemoryPath, Content]:
            return resolve_changes(changes, DemoSnapshot(self._base, files).read_content)

        version, written = self._overlay.apply(resolve)
        return CommitResult(version=version, written=written)

    @property
    def overlay_paths(self) -> list[MemoryPath]:
        """Files the visitors changed (what the UI may list as 'not saved')."""
        return sorted(self._overlay.files().paths())


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
