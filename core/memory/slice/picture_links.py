"""The picture links in a turn's text and the files they name (docs/FORMAT.md "Pictures").

Pure memory-layout knowledge, kept here so the memory code reads pictures without the media
layer (core/media/attach.py stores and sends them).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from core.ids import PictureName
from core.memory import paths

IMAGES_DIR = "images"
_LINK_RE = re.compile(rf"!\[(?P<name>[^\]\n]*)\]\(\.\./{IMAGES_DIR}/(?P<file>[^)\s]+)\)")


LEGACY_SUFFIX = PictureName.LEGACY_SUFFIX  # a picture saved as base64 text, before pictures were files


def image_path(slice_id: str, name: str) -> paths.MemoryPath:
    """The image file of a linked picture `name` of a slice: exactly where the link points."""
    return paths.slice_dir(slice_id) / f"{IMAGES_DIR}/{name}"


def legacy_image_path(slice_id: str, name: str) -> paths.MemoryPath:
    """Where a picture saved as base64 text lies (until `maintain` migrates it)."""
    return image_path(slice_id, name + LEGACY_SUFFIX)


@dataclass(frozen=True)
class StoredPicture:
    """A picture saved with an earlier turn: its slice, its file (as linked), its display name."""

    slice_id: str
    file: str
    name: str


def split_turn_text(content: str, slice_id: str, turn_id: str) -> tuple[str, list[StoredPicture]]:
    """The inverse of `turn_text` for a stored turn: the words, and the pictures it links (only
    the trailing link block `turn_text` writes, numbered 1, 2 … under this turn id)."""
    head, _, block = content.rpartition("\n\n")  # no blank line: a picture sent with no words
    lines = block.split("\n")
    found = [_LINK_RE.fullmatch(line) for line in lines]
    if not all(found):
        return content, []
    pictures = []
    for n, m in enumerate(found, 1):
        assert m is not None
        if not PictureName.matches(m["file"]) or not m["file"].startswith(f"{turn_id}-{n}."):
            return content, []
        pictures.append(StoredPicture(slice_id, m["file"], m["name"]))
    return head, pictures


def linked_pictures(content: str) -> set[str]:
    """The stored pictures a turn's text links to (their names as linked, `<turn id>-<n>.<ext>`)."""
    return {m["file"] for m in _LINK_RE.finditer(content) if PictureName.matches(m["file"])}
