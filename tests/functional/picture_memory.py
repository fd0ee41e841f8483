"""A real memory folder with pictures, for the forget-preview and check tests: an active slice
whose second exchange (with one picture) was taken back by Answer again (`retract_exchange`)."""

from __future__ import annotations

from pathlib import Path

from core.actions.retract import retract_exchange
from core.clock import FixedClock
from core.media.attach import image_path, legacy_image_path, turn_text
from core.media.images import Upload, prepare_images, stored_text
from core.memory import paths
from core.storage.base import WriteBatch
from core.storage.local import LocalStorage
from tests.fakes.images import png
from tests.fakes.slices import slice_text

SLICE = "2026-08-11-1115"
CLOCK = FixedClock.at("2026-08-11T11:20:00.000Z")
QUESTION = "What is in this?"


def picture(slice_id: str, name: str) -> paths.MemoryPath:
    """The image file of picture `name` (`<turn id>-<n>.<ext>`)."""
    return image_path(slice_id, name)


def seed(
    root: Path, turns: list[tuple[str, str]], pictures: list[str], notes: list[str], legacy: bool = False
) -> LocalStorage:
    """A memory folder at `root` with one active slice (turns t00000, t00001 …), these picture
    files (one PNG each; with `legacy`, as the base64 text older memories hold) and a cognition
    entry for each turn id in `notes`."""
    storage = LocalStorage(root)
    [image] = prepare_images([Upload("b.png", png())])
    batch = WriteBatch.open(storage)
    batch.put(paths.core_md(SLICE), slice_text(SLICE, turns, status="active"))
    for name in pictures:
        if legacy:
            batch.put(legacy_image_path(SLICE, name), stored_text(image))
        else:
            batch.put_bytes(picture(SLICE, name), image.raw)
    if notes:
        note = "— 2026-08-11T11:15:30.000Z\n\n### Thinking\nLooked at it.\n"
        entries = [f"## Cognition {t} {note}" for t in notes]
        batch.put(paths.agent_md(SLICE), "\n".join(entries))
    batch.commit("seed")
    return storage


def taken_back(root: Path) -> LocalStorage:
    """Turn t00000 ("Hi."), then t00001 (a question with picture t00001-1.png) taken back."""
    [image] = prepare_images([Upload("b.png", png())])
    turns = [
        ("user", "Hi."),
        ("agent", "Hello."),
        ("user", turn_text(QUESTION, "t00001", [image])),
        ("agent", "One square."),
    ]
    storage = seed(root, turns, ["t00001-1.png"], ["t00000", "t00001"])
    retract_exchange(storage, SLICE, "t00001", CLOCK)
    return storage


def files(root: Path) -> dict[str, bytes]:
    """Every file under memory/, by path."""
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}
