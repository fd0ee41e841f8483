"""Pictures saved as base64 text (`images/<turn id>-<n>.<ext>.b64`) become the image files their
links point at (`images/<turn id>-<n>.<ext>`): `maintain` queues them all in one batch (one
commit), each image file written and its `.b64` removed in that same commit.

Where a commit is not atomic on disk (the local folder renames the new files into place before
it removes any), a kill in between leaves both files, never neither: the next pass finds the
image already there with the same bytes and only removes the `.b64`. A `.b64` that is not base64,
or whose image file already holds other bytes, is left exactly as it is and named.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from core.errors import InvalidInput
from core.media.attach import image_path
from core.media.images import read_stored
from core.memory import paths
from core.memory.slice.pictures import is_legacy, is_picture, linked_name
from core.storage.base import WriteBatch, prefetch

COMMIT_MESSAGE = "Maintenance — pictures as image files"


@dataclass
class PictureMigration:
    """What one pass queued: the image files written (their paths) and the `.b64` files kept."""

    migrated: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)  # "path: why", left as they are


def legacy_pictures(batch: WriteBatch) -> list[paths.MemoryPath]:
    """Every `.b64` picture of every slice folder (from one listing, no read)."""
    found = []
    for path in batch.list(paths.SLICES):
        kind = paths.classify(path)
        if kind.folder_id is not None and is_picture(kind.inner) and is_legacy(path):
            found.append(path)
    return found


def migrate_pictures(batch: WriteBatch) -> PictureMigration:
    """Queue every `.b64` picture as its image file, and the `.b64`'s removal, in `batch`."""
    report = PictureMigration()
    legacy = legacy_pictures(batch)
    if not legacy:
        return report
    prefetch(batch, legacy)  # on GitHub: several at a time, or one archive
    for path in legacy:
        kind = paths.classify(path)
        assert kind.folder_id is not None
        target = image_path(kind.folder_id.dash, linked_name(path))
        try:
            text = batch.read(path)
            data = read_stored(text or "")
            existing = batch.read_bytes(target)
        except InvalidInput as exc:  # not base64, not UTF-8, over the cap
            report.kept.append(f"{path}: {exc} It is left as it is.")
            continue
        if existing is not None and existing != data:
            report.kept.append(f"{path}: {target.name} already holds another image; both are left as is.")
            continue
        if existing is None:
            batch.put_bytes(target, data)
        batch.delete(path)
        report.migrated.append(target.value)
    return report
