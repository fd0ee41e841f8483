"""A slice's picture files, and what still shows them (docs/FORMAT.md "Pictures").

A picture `images/<turn id>-<n>.<ext>` (or, not migrated yet, `….<ext>.b64`) belongs to the turn
its name carries. It is shown
while some text of the slice links it: a turn in core.md, the words of a taken-back exchange in
agent.md, text a rewrite moved to appendix.md. Forgetting an exchange takes its pictures except
the ones such text still links (`turn_pictures`); `check` names the pictures that neither a link
nor anything else of their turn is left for (`orphan_pictures`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from core.errors import DamagedFile, SliceFormatError
from core.ids import PictureName
from core.memory import paths
from core.memory.damage import Listing, read_or_skip, read_text
from core.memory.slice.agent_md import remove_cognition
from core.memory.slice.agent_parts import has_entry, read_parts
from core.memory.slice.model import Slice, parse_core_md
from core.memory.slice.picture_links import IMAGES_DIR, LEGACY_SUFFIX, linked_pictures
from core.storage.paths import MemoryPath


def owner(path: MemoryPath) -> str | None:
    """The turn id a picture file is named after (None: not a picture file name)."""
    found = PictureName.from_file(path.name)
    return found[0].turn if found else None


def is_legacy(path: MemoryPath) -> bool:
    """Whether a picture file is the base64 text of an image (not migrated yet)."""
    found = PictureName.from_file(path.name)
    return bool(found and found[1])


def linked_name(path: MemoryPath) -> str:
    """The name core.md links a picture file by (`<turn id>-<n>.<ext>`)."""
    return path.name.removesuffix(LEGACY_SUFFIX)


def is_picture(inner: str) -> bool:
    """Whether a path inside a slice folder (`images/…`) is a picture file."""
    folder, _, name = inner.partition("/")
    return folder == IMAGES_DIR and PictureName.from_file(name) is not None


def picture_files(reader: Listing, slice_id: str) -> list[MemoryPath]:
    """The slice's picture files, in name order."""
    folder = paths.slice_dir(slice_id)
    found = reader.list(folder / IMAGES_DIR)
    mine = (p for p in found if is_picture(p.value.removeprefix(folder.value + "/")))
    return sorted(mine, key=lambda p: p.value)


def links(texts: Iterable[str | None]) -> set[str]:
    """The pictures the texts link (their names as linked, `<turn id>-<n>.<ext>`)."""
    return {name for text in texts if text for name in linked_pictures(text)}


def _shown(path: MemoryPath, linked: set[str]) -> bool:
    return linked_name(path) in linked


def turn_pictures(reader: Listing, slice_id: str, turn_id: str, left: Slice) -> list[MemoryPath]:
    """The pictures forgetting the exchange `turn_id` deletes: the ones named after it that no
    text left in the slice links (`left`: the slice without the exchange; agent.md without its
    entries; appendix.md)."""
    mine = [p for p in picture_files(reader, slice_id) if owner(p) == turn_id]
    if not mine:
        return []
    notes = [remove_cognition(part.text, turn_id) for part in read_parts(reader, slice_id) if part.text]
    appendix = read_or_skip(reader, paths.appendix_md(slice_id))
    linked = links([*(t.content for t in left.turns), *notes, appendix])
    return [p for p in mine if not _shown(p, linked)]


@dataclass(frozen=True)
class Orphan:
    """A picture nothing of the slice refers to: its file and the (gone) turn it was named after."""

    path: MemoryPath
    turn_id: str


def orphan_pictures(reader: Listing, slice_id: str) -> list[Orphan]:
    """The slice's pictures whose turn is gone (not in core.md, no entry in agent.md) and that no
    text of the slice links. Nothing when a file that could refer to one cannot be read: what
    cannot be read is not taken for "no reference"."""
    files = picture_files(reader, slice_id)
    if not files:
        return []
    try:
        core = read_text(reader, paths.core_md(slice_id))
        appendix = read_text(reader, paths.appendix_md(slice_id))
        turns = parse_core_md(core).turns if core is not None else None
    except (DamagedFile, SliceFormatError):
        return []
    parts = read_parts(reader, slice_id)
    if turns is None or any(part.text is None for part in parts):
        return []
    present = {t.turn_id for t in turns}
    linked = links([*(t.content for t in turns), *(part.text for part in parts), appendix])
    found = []
    for path in files:
        turn_id = owner(path)
        if turn_id is None or turn_id in present or _shown(path, linked) or has_entry(parts, turn_id):
            continue
        found.append(Orphan(path, turn_id))
    return found
