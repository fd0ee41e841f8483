"""One owner per file kind: where it lives, how it is read and written, its cap, and what a damaged
copy costs (docs/FORMAT.md "Who owns each file").

The path rule is `core.memory.paths.classify` (the one classifier); an owner names the
`PathKind` it answers for, narrowed by a prefix inside the slice folder where one kind holds
several (pictures and other files in a slice folder are both `SLICE_FILE`). Reading goes
through `read`: the storage's text, then the size cap, then the kind's own check (frontmatter,
JSON), each failure a `DamagedFile` naming the file. Writing goes through `write`: the text as
given, so what `read` returns after a `write` is the same text, byte for byte. A kind stored as
bytes (pictures: real image files) goes through `read_bytes` and `write_bytes` instead, and its
check is over the bytes (a whole image of the kind its name says), not UTF-8.

An **authored** file holds the user's words or choices: when damaged it is skipped, named and
left byte for byte, and nothing else waits for it. A **derived** file is rebuilt from the
authored ones: when damaged it is read as absent and written afresh by the next weave,
maintenance pass or search refresh.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from core.errors import Damage, DamagedFile, InvalidInput, SliceFormatError
from core.memory import paths
from core.memory.damage import LEFT_AS_IS, read_text
from core.memory.paths import MemoryPath, PathKind, SliceId
from core.memory.slice.image_bytes import picture_problem
from core.memory.slice.model import parse_frontmatter
from core.storage.base import WriteBatch

REBUILT = "Previously reads it as missing and rebuilds it from the slices on the next maintain or weave."
_EXAMPLE_SLICE = SliceId("2026", "08", "11", "1115")


class Reader(Protocol):
    def read(self, path: MemoryPath) -> str | None: ...


class BytesReader(Reader, Protocol):
    def read_bytes(self, path: MemoryPath) -> bytes | None: ...


def _json_object(text: str) -> None:
    try:
        value = json.loads(text)
    except ValueError as exc:
        raise InvalidInput(f"not valid JSON ({exc})") from exc
    if not isinstance(value, dict):
        raise InvalidInput("not a JSON object")


def _whole_picture(data: bytes, name: str) -> None:
    if (problem := picture_problem(data, name)) is not None:
        raise InvalidInput(f"damaged picture: {problem}")


def _frontmatter(text: str) -> None:
    try:
        parse_frontmatter(text)
    except SliceFormatError as exc:
        raise InvalidInput(str(exc)) from exc


@dataclass(frozen=True)
class Owner:
    """One file kind and everything the product does with it."""

    name: str
    kind: PathKind | None  # None: kept outside the memory repository
    where: str  # the path rule in words (the table in docs/FORMAT.md)
    authored: bool
    example: MemoryPath | None  # one path of this kind (tests damage it; the docs show it)
    named_by: str  # where a damaged one is named
    check: Callable[[str], None] | None = None  # the kind's own parse; InvalidInput when broken
    inner_prefix: str = ""  # narrows a slice-folder kind (`images/` for pictures)
    # A kind stored as bytes (pictures): read with `read_bytes`, its own check over the bytes
    # and the file name (InvalidInput when broken); `read` and `write` are then not used.
    check_bytes: Callable[[bytes, str], None] | None = None

    @property
    def binary(self) -> bool:
        return self.check_bytes is not None

    @property
    def cap(self) -> int:
        """The size cap in bytes (`core.storage.paths.size_limit`, the one rule)."""
        return paths.size_limit(self.example) if self.example else paths.MAX_FILE_BYTES

    @property
    def when_damaged(self) -> str:
        return LEFT_AS_IS if self.authored else REBUILT

    def owns(self, path: MemoryPath | str) -> bool:
        found = paths.classify(path)
        return found.kind is self.kind and found.inner.startswith(self.inner_prefix)

    def read(self, view: Reader, path: MemoryPath) -> str | None:
        """The file's text (None when absent); DamagedFile naming it when it cannot be used."""
        text = read_text(view, path)  # type: ignore[arg-type]  # read_text only reads
        if text is not None and self.check is not None:
            try:
                self.check(text)
            except InvalidInput as exc:
                raise DamagedFile(f"{exc}. {self.when_damaged}", path.value) from exc
        return text

    def read_bytes(self, view: BytesReader, path: MemoryPath) -> bytes | None:
        """A binary file's bytes (None when absent); DamagedFile naming it when it cannot be used."""
        try:
            data = view.read_bytes(path)
        except InvalidInput as exc:  # the storage's own words: over the cap
            raise DamagedFile(f"{exc} {self.when_damaged}", path.value) from exc
        if data is not None and self.check_bytes is not None:
            try:
                self.check_bytes(data, path.name)
            except InvalidInput as exc:
                raise DamagedFile(f"{exc}. {self.when_damaged}", path.value) from exc
        return data

    def write_bytes(self, batch: WriteBatch, path: MemoryPath, data: bytes) -> None:
        """Queue `data` exactly as given (a picture's image file)."""
        paths.check_size(path, data)
        batch.put_bytes(path, data)

    def damage(self, view: BytesReader, path: MemoryPath) -> Damage | None:
        """What keeps the file at `path` from being used (its text or, for a binary kind, its
        bytes); None when it reads or is absent."""
        try:
            if self.binary:
                self.read_bytes(view, path)
            else:
                self.read(view, path)
        except DamagedFile as exc:
            return exc.damage
        return None

    def read_or_none(self, view: Reader, path: MemoryPath) -> str | None:
        """For derived files: damaged reads as absent (its writer rebuilds it)."""
        try:
            return self.read(view, path)
        except DamagedFile:
            return None

    def write(self, batch: WriteBatch, path: MemoryPath, text: str) -> None:
        """Queue `text` exactly as given (the cap is enforced at the commit)."""
        paths.check_size(path, text)
        batch.put(path, text)


_SLICE = _EXAMPLE_SLICE
_BY_CHECK = "check"
_BY_MAINTAIN = "maintain, check, the page"
_BY_SLICE_VIEW = "maintain, check, the timeline, the slice view"
_BY_FOLDER = "maintain, check, the page"  # checked again when their folder changes (owners/slice_files.py)

REGISTRY: tuple[Owner, ...] = (
    Owner("slice core.md", PathKind.CORE_MD, "slices/YYYY/MM/DD/HHMM/timeline/core.md", True,
          _SLICE.core_md, _BY_SLICE_VIEW, _frontmatter),
    Owner("agent.md and its parts", PathKind.AGENT_MD, "slices/…/timeline/agent.md, agent-N.md", True,
          _SLICE.agent_md, _BY_FOLDER),
    Owner("appendix", PathKind.APPENDIX_MD, "slices/…/timeline/appendix.md", True,
          _SLICE.appendix_md, _BY_FOLDER),
    Owner("card snapshot", PathKind.CARD_SNAPSHOT, "slices/…/previously.md", True,
          _SLICE.card_snapshot, _BY_FOLDER),
    Owner("pictures", PathKind.SLICE_FILE, "slices/…/images/<turn>-<n>.jpg, .png, .webp", True,
          _SLICE.dir / "images/t1-1.jpg", _BY_FOLDER, inner_prefix="images/", check_bytes=_whole_picture),
    Owner("attachments and other slice files", PathKind.SLICE_FILE, "slices/…/<anything else>", True,
          _SLICE.dir / "attachments/notes.txt", _BY_FOLDER),
    Owner("legacy flat slice", PathKind.LEGACY_FLAT, "slices/YYYY/MM/DD/HHMM.md", True,
          _SLICE.legacy_flat_md, "maintain, check", _frontmatter),
    Owner("user card", PathKind.CARD, "memory/episodic/current-previously.md", True,
          paths.CARD, _BY_MAINTAIN),
    Owner("card history", PathKind.CARD_HISTORY, "memory/episodic/card-history/<seq>-<time>-<by>-<hash>.md",
          True, paths.CARD_HISTORY_DIR / "000001-20261203T125350Z-user-0a1b2c3d.md", _BY_CHECK),
    Owner("config", PathKind.CONFIG, "memory/user/config.json", True,
          paths.CONFIG_JSON, _BY_MAINTAIN, _json_object),
    Owner("notes", PathKind.NOTE, "memory/inbox/notes/<id>.json", True,
          paths.NOTES_DIR / "20261130-100211-Qx3v_A.json", _BY_MAINTAIN, _json_object),
    Owner("evolution files", PathKind.EVOLUTION, "memory/evolution/…, memory/agent-playbooks/…", True,
          paths.EVOLUTION_DIR / "direction.md", _BY_MAINTAIN),
    Owner("strands, single file (until converted)", PathKind.STRANDS, "memory/episodic/strands.json", False,
          paths.STRANDS_JSON, _BY_CHECK, _json_object),
    Owner("strand shards", PathKind.STRAND_SHARD, "memory/episodic/strands/NN.json", False,
          paths.strand_shard(0), _BY_CHECK, _json_object),
    Owner("strand menu", PathKind.STRAND_MENU, "memory/episodic/strands/menu.json", False,
          paths.STRANDS_MENU, _BY_CHECK, _json_object),
    Owner("catalog top", PathKind.CATALOG_TOP, "memory/episodic/timeline/catalog.json", False,
          paths.CATALOG_TOP_JSON, _BY_CHECK, _json_object),
    Owner("catalog month", PathKind.CATALOG_MONTH, "memory/episodic/timeline/index/YYYY-MM.json", False,
          paths.catalog_month("2026-08"), _BY_CHECK, _json_object),
    Owner("catalog index (single file)", PathKind.CATALOG, "memory/episodic/timeline/index.json", False,
          paths.CATALOG_JSON, _BY_CHECK, _json_object),
    Owner("catalog pending and head", PathKind.PENDING, "memory/episodic/timeline/pending.json", False,
          paths.PENDING_JSON, _BY_CHECK, _json_object),
    Owner("catalog shas (single file)", PathKind.CATALOG_SHAS, "memory/episodic/timeline/shas.json", False,
          paths.CATALOG_SHAS_JSON, _BY_CHECK, _json_object),
    Owner("catalog damaged list", PathKind.CATALOG_DAMAGED, "memory/episodic/timeline/damaged.json", False,
          paths.CATALOG_DAMAGED_JSON, _BY_CHECK, _json_object),
    Owner("slice file checks", PathKind.SLICE_CHECKS, "memory/episodic/timeline/checked.json", False,
          paths.SLICE_CHECKS_JSON, _BY_CHECK, _json_object),
    Owner("timeline.md", PathKind.TIMELINE_MD, "memory/episodic/timeline.md", False,
          paths.TIMELINE_MD, _BY_CHECK),
    Owner("monthly index", PathKind.MONTHLY_INDEX, "slices/YYYY/MM/_index.json", False,
          _SLICE.monthly_index, _BY_CHECK, _json_object),
    Owner("search index", PathKind.SEARCH, "memory/episodic/search/…", False,
          paths.SEARCH_DIR / "manifest.json", "maintain (rebuilt)", _json_object),
    Owner("run records", None, 'outside the memory ("Runs (outside the memory)" below)', False,
          None, "serve, maintain"),
)  # fmt: skip


def owner_of(path: MemoryPath | str) -> Owner | None:
    """The owner of the file at `path` (the most specific one), or None for a file no kind claims."""
    found = [o for o in REGISTRY if o.kind is not None and o.owns(path)]
    return max(found, key=lambda o: len(o.inner_prefix)) if found else None


def by_name(name: str) -> Owner:
    return next(o for o in REGISTRY if o.name == name)


class Writer(Reader, Protocol):
    def put(self, path: MemoryPath, text: str) -> None: ...

    def update(self, path: MemoryPath, fn: Callable[[str | None], str | None]) -> None: ...


def update_derived(batch: Writer, path: MemoryPath, fn: Callable[[str | None], str | None]) -> None:
    """Queue `fn` over a derived file's current text; one that cannot be read (not UTF-8, over
    its cap) is rebuilt from nothing rather than stopping the commit."""
    try:
        batch.read(path)
    except InvalidInput:
        new = fn(None)
        if new is not None:
            batch.put(path, new)
        return
    batch.update(path, fn)


_AUTHORED = "skipped, named, left byte for byte; nothing else waits for it"
_DERIVED = "read as missing and rebuilt from the authored files"


def registry_table() -> str:
    """The registry as the Markdown table in docs/FORMAT.md "Who owns each file" (a test keeps
    the two equal)."""
    rows = [
        "| file kind | path | stored as | authored / derived | cap | when damaged | named by |",
        "|---|---|---|---|---|---|---|",
    ]
    for o in REGISTRY:
        cap = "—" if o.kind is None else f"{o.cap // 1_000_000} MB"
        kind = "authored" if o.authored else "derived"
        damaged = _AUTHORED if o.authored else _DERIVED
        where = f"`{o.where}`" if o.kind is not None else o.where
        if o.kind is None:
            damaged = "not memory: what a turn keeps while it runs; its words are in the memory files"
        stored = "—" if o.kind is None else "bytes" if o.binary else "text"
        rows.append(f"| {o.name} | {where} | {stored} | {kind} | {cap} | {damaged} | {o.named_by} |")
    return "\n".join(rows) + "\n"
