"""A Claude export's images: stored beside their slice and linked when the zip carries them
(matched by `file_uuid`, else by a unique `file_name`), named and reported when it does not."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest

from core.imports.run import apply_plan, preview
from core.imports.source import ExportFile
from core.media.attach import read_image
from core.media.images import Upload, prepare_image, stored_text
from core.memory import paths
from core.memory.slice.model import parse_core_md
from core.storage.memory import InMemoryStorage
from tests.fakes.exports import claude_corpus, write_zip
from tests.fakes.images import jpeg_with_location, png
from tests.functional.test_import_flow import CLOCK

pytestmark = pytest.mark.functional


def _user_turns(storage: InMemoryStorage) -> list[tuple[str, str, str]]:
    """(slice id, turn id, text) of every imported user turn."""
    out = []
    for path, text in sorted(storage.files.items()):
        if path.name == "core.md":
            s = parse_core_md(text)
            out += [(s.slice_id, t.turn_id or "", t.content) for t in s.turns if t.role == "user"]
    return out


def _run(tmp_path: Path, convs: list[dict], extra: dict[str, bytes]) -> tuple[InMemoryStorage, object]:
    storage = InMemoryStorage()
    export = ExportFile(write_zip(tmp_path / "claude.zip", convs, extra), "claude")
    plan = preview(export, storage)
    apply_plan(export, plan, storage, CLOCK)
    return storage, plan


def test_an_image_the_zip_carries_is_stored_and_linked(tmp_path: Path) -> None:
    convs, _ = claude_corpus()
    photo = jpeg_with_location()
    storage, plan = _run(tmp_path, convs, {"files/photo.jpg": photo})
    assert plan.images == 1 and not any("photo.jpg" in s.what for s in plan.skipped)  # type: ignore[attr-defined]
    [(sid, tid, text)] = [u for u in _user_turns(storage) if "Read my notes" in u[2]]
    assert text.endswith(f"[file: photo.jpg]\n\n![photo.jpg](../images/{tid}-1.jpg)")
    stored = storage.files[paths.slice_dir(sid) / f"images/{tid}-1.jpg.b64"]
    assert stored == stored_text(prepare_image(Upload("photo.jpg", photo)))
    data, media = read_image(storage.snapshot(), sid, f"{tid}-1.jpg")
    assert media == "image/jpeg" and b"Mara Quinn" not in data
    again, _ = _run(tmp_path, convs, {"files/photo.jpg": photo})
    assert again.files == storage.files, "importing the same export twice writes the same bytes"


def test_an_image_is_found_by_its_uuid_and_a_missing_one_is_reported(tmp_path: Path) -> None:
    convs, _ = claude_corpus()
    convs = copy.deepcopy(convs)
    files = next(m for c in convs for m in c["chat_messages"] if m["files"])["files"]
    files[:] = [
        {"file_name": "shot.png", "file_uuid": "9f1c-aa"},
        {"file_name": "gone.png", "file_uuid": "0000-bb"},
        {"file_name": "report.pdf"},
    ]
    storage, plan = _run(tmp_path, convs, {"9f1c-aa.png": png(), "report.pdf": b"%PDF"})
    [(_, tid, text)] = [u for u in _user_turns(storage) if "Read my notes" in u[2]]
    assert text.endswith(f"[file: report.pdf]\n\n![9f1c-aa.png](../images/{tid}-1.png)")
    assert "[file: gone.png]" in text
    skipped = {s.what for s in plan.skipped}  # type: ignore[attr-defined]
    assert {"file gone.png", "file report.pdf"} <= skipped and "file shot.png" not in skipped
