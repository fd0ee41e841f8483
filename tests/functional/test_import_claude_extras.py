"""A Claude export's extras: its images stored beside their slice and linked when the zip
carries them (matched by `file_uuid`, else by a unique `file_name`), named and reported when it
does not; its project instructions and profile text offered to the card (Unsorted), not dropped."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from core.imports.run import apply_plan, preview
from core.imports.source import ExportFile
from core.media.attach import read_image
from core.media.images import Upload, prepare_image
from core.memory import paths
from core.memory.card.model import render_card
from core.memory.card.store import read_card, to_card, undo_card
from core.memory.paths import CARD
from core.memory.slice.model import parse_core_md
from core.storage.base import WriteBatch
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
    stored = storage.files[paths.slice_dir(sid) / f"images/{tid}-1.jpg"]
    assert stored == prepare_image(Upload("photo.jpg", photo)).raw
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


PROJECTS = [
    {"uuid": "p1", "name": "Garden", "prompt_template": "Answer briefly.\nUse metric units.", "docs": []},
    {"uuid": "p2", "name": "Empty", "prompt_template": ""},
]
USERS = [
    {"uuid": "u1", "full_name": "Mara Quinn", "conversation_preferences": "I am vegetarian. ## Not a heading"}
]
GARDEN = 'From the Claude export, project "Garden" instructions: Answer briefly. Use metric units.'
PROFILE = "From the Claude export, your conversation preferences: I am vegetarian. ## Not a heading"


def _zip(tmp_path: Path, projects: bytes, name: str = "claude.zip") -> ExportFile:
    convs, _ = claude_corpus()
    path = write_zip(
        tmp_path / name, convs, {"projects.json": projects, "users.json": json.dumps(USERS).encode()}
    )
    return ExportFile(path, "claude")


def test_instructions_and_profile_text_are_offered_to_the_card_and_land_in_unsorted(tmp_path: Path) -> None:
    storage = InMemoryStorage()
    export = _zip(tmp_path, json.dumps(PROJECTS).encode())
    plan = preview(export, storage)
    assert plan.card_lines == [GARDEN, PROFILE] and plan.as_dict()["card_lines"] == [GARDEN, PROFILE]
    assert CARD not in storage.files, "the preview writes nothing"
    report = apply_plan(export, plan, storage, CLOCK)
    assert report.card_lines == 2
    card = read_card(storage.snapshot()).card(CLOCK.now())
    assert card.unplaced == [GARDEN, PROFILE]
    assert "Mara Quinn" not in storage.files[CARD], "account fields are not copied"
    again = preview(export, storage)
    assert again.card_lines == [] and again.writes == 0, "importing again adds nothing"


def test_the_card_change_can_be_undone(tmp_path: Path) -> None:
    storage = InMemoryStorage()
    before = render_card(to_card(None, CLOCK.now()))
    storage.files[CARD] = before
    export = _zip(tmp_path, json.dumps(PROJECTS).encode())
    apply_plan(export, preview(export, storage), storage, CLOCK)
    assert GARDEN in storage.files[CARD]
    batch = WriteBatch.open(storage)
    undo_card(batch, CLOCK.now())
    batch.commit("undo")
    assert storage.files[CARD] == before


def test_unreadable_instructions_are_named_and_the_conversations_still_import(tmp_path: Path) -> None:
    storage = InMemoryStorage()
    export = _zip(tmp_path, b"{not json", "broken.zip")
    plan = preview(export, storage)
    assert plan.card_lines == [PROFILE]
    assert any(s.what == "instructions" and "projects.json" in s.why for s in plan.skipped)
    report = apply_plan(export, plan, storage, CLOCK)
    assert report.imported and report.card_lines == 1
