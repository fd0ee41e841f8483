"""A picture through a turn, the API and `previously chat --attach`: stored with the user's turn,
linked from core.md, sent to the model as image input byte for byte; bad files refused, nothing lost."""

from __future__ import annotations

import base64
import io
from pathlib import Path
from typing import Any

import httpx
import pytest
from PIL import Image

from core.clock import FixedClock
from core.llm.registry import ModelRegistry, ProviderConfig
from core.media.attach import image_path, legacy_image_path
from core.media.images import Upload, prepare_images, stored_text
from core.memory.paths import core_md
from core.memory.slice.picture_links import split_turn_text
from core.storage.local import LocalStorage
from core.storage.memory import InMemoryStorage
from core.turn.service import TurnInput
from functions.api.app import create_app
from tests.fakes.fake_model_server import FakeModelServer, RecordedRequest
from tests.fakes.images import jpeg_with_location, png
from tests.fakes.live_server import live_server
from tests.functional.api_env import harness_deps, with_key
from tests.functional.turn_support import Harness, make_harness

pytestmark = pytest.mark.functional
SLICE = "2026-08-11-1115"
CLOCK = "2026-08-11T11:15:00.000Z"


def sent_images(request: RecordedRequest) -> list[bytes]:
    """The pictures on the request's last user message, decoded (OpenAI's data URLs)."""
    last = [m for m in request.body["messages"] if m["role"] == "user"][-1]
    parts = last["content"] if isinstance(last["content"], list) else []
    urls = [p["image_url"]["url"] for p in parts if p.get("type") == "image_url"]
    return [base64.b64decode(u.split(",", 1)[1]) for u in urls]


def stored(h: Harness, turn_id: str, n: int, ext: str) -> bytes:
    data = h.read_bytes(str(image_path(SLICE, f"{turn_id}-{n}.{ext}")))
    assert data is not None, "the picture is in the slice folder"
    return data


def test_a_picture_reaches_the_model_and_the_slice_folder_byte_for_byte(fake_models: FakeModelServer) -> None:
    h = make_harness(memory := InMemoryStorage(), FixedClock.at(CLOCK), fake_models)
    assert h.brain is not None
    h.brain.main("A red square.")
    images = tuple(prepare_images([Upload("IMG_1.jpg", jpeg_with_location()), Upload("b.png", png())]))
    state = h.turn("What is in these?", attachments=images)
    assert state.status == "done"
    user = next(t for t in h.slice(SLICE).turns if t.role == "user")
    tid = user.turn_id
    assert (
        user.content
        == f"What is in these?\n\n![IMG_1.jpg](../images/{tid}-1.jpg)\n![b.png](../images/{tid}-2.png)"
    )
    first = stored(h, user.turn_id, 1, "jpg")
    assert sent_images(h.brain.requests["main"][0]) == [first, stored(h, user.turn_id, 2, "png")]
    assert b"Mara Quinn" not in first
    [paths] = [set(p) for message, p in memory.commits if "user message" in message]
    assert {image_path(SLICE, f"{user.turn_id}-1.jpg"), core_md(SLICE)} <= paths, "saved in one commit"


def test_a_model_without_vision_is_told_and_nothing_is_lost(fake_models: FakeModelServer) -> None:
    h = make_harness(InMemoryStorage(), FixedClock.at(CLOCK), fake_models)
    assert h.brain is not None
    # DeepSeek V4 Flash is a curated model that takes no images; the fake server stands in for its API.
    blind = ProviderConfig(deepseek_api_key="k", deepseek_base_url=fake_models.openai_base_url,
                           main_model="deepseek-v4-flash")  # fmt: skip
    h.deps.models = ModelRegistry(blind, clock=h.clock, sleep=lambda _: None)
    h.brain.main("I can't see it.")
    images = tuple(prepare_images([Upload("b.png", png())]))
    state = h.turn("Look at this", attachments=images)
    assert state.status == "done"
    request = h.brain.requests["main"][0]
    assert request.model == "deepseek-v4-flash"
    assert sent_images(request) == [] and "cannot see images" in request.last_user_text
    [unseen] = [e for e in state.events if e["type"] == "attachment.unseen"]
    assert (unseen["count"], unseen["model"]) == (1, "deepseek-v4-flash"), "the user is told too"
    user = next(t for t in h.slice(SLICE).turns if t.role == "user")
    assert stored(h, user.turn_id, 1, "png") == images[0].raw


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def test_the_api_takes_pictures_and_refuses_bad_ones(tmp_path: Path, fake_models: FakeModelServer) -> None:
    h = make_harness(LocalStorage(tmp_path), FixedClock.at(CLOCK), fake_models)
    assert h.brain is not None
    h.brain.main("Nice photo.")
    source = jpeg_with_location()
    with (
        live_server(create_app(harness_deps(h))) as url,
        httpx.Client(base_url=url, headers=with_key(), timeout=60) as http,
    ):
        bad: list[dict[str, Any]] = [
            {"name": "notes.pdf", "data": _b64(b"%PDF-1.7")},
            {"name": "big.png", "data": _b64(b"\x89PNG" + b"\0" * 3_100_000)},
            {"name": "x.png", "data": "not base64!"},
        ]
        answers = [http.post("/api/turns", json={"message": "hi", "attachments": [b]}) for b in bad]
        assert [a.status_code for a in answers] == [400, 413, 400], [a.text for a in answers]
        assert "PNG, JPEG, WebP or GIF" in answers[0].json()["message"]
        assert h.storage.commits == [], "a refused message writes nothing"
        body = {"message": "Look", "attachments": [{"name": "trip.jpg", "data": _b64(source)}]}
        view = http.post("/api/turns?wait=20", json=body).json()
        assert view["status"] == "done", view
        user = next(t for t in h.slice(SLICE).turns if t.role == "user")
        assert user.content == f"Look\n\n![trip.jpg](../images/{user.turn_id}-1.jpg)"
        on_disk = (tmp_path / str(image_path(SLICE, f"{user.turn_id}-1.jpg"))).read_bytes()
        assert Image.open(io.BytesIO(on_disk)).format == "JPEG", "an image file at the linked path"
        assert sent_images(h.brain.requests["main"][0]) == [on_disk]
        served = http.get(f"/api/slices/{SLICE}/images/{user.turn_id}-1.jpg")
        assert served.status_code == 200 and served.headers["content-type"] == "image/jpeg"
        assert served.content == on_disk
        assert http.get(f"/api/slices/{SLICE}/images/{user.turn_id}-9.jpg").status_code == 404
        assert http.get(f"/api/slices/{SLICE}/images/..%2Fcore.md").status_code in (400, 404, 422)


def test_a_picture_is_sent_on_its_own_and_an_empty_message_is_refused(
    tmp_path: Path, fake_models: FakeModelServer
) -> None:
    h = make_harness(LocalStorage(tmp_path), FixedClock.at(CLOCK), fake_models)
    assert h.brain is not None
    h.brain.main("A photo of a lighthouse.")
    with (
        live_server(create_app(harness_deps(h))) as url,
        httpx.Client(base_url=url, headers=with_key(), timeout=60) as http,
    ):
        for empty in ({"message": ""}, {"message": "  \n"}, {}):
            answer = http.post("/api/turns", json=empty)
            assert answer.status_code == 400, answer.text
            assert "attach a picture" in answer.json()["message"]
        assert h.storage.commits == [], "a refused message writes nothing"
        body = {"message": "", "attachments": [{"name": "sea.png", "data": _b64(png())}]}
        view = http.post("/api/turns?wait=20", json=body).json()
        assert view["status"] == "done", view
        user = next(t for t in h.slice(SLICE).turns if t.role == "user")
        assert user.content == f"![sea.png](../images/{user.turn_id}-1.png)"
        on_disk = (tmp_path / str(image_path(SLICE, f"{user.turn_id}-1.png"))).read_bytes()
        assert sent_images(h.brain.requests["main"][0]) == [on_disk]
        words, pictures = split_turn_text(user.content, SLICE, user.turn_id)
        assert (words, [p.file for p in pictures]) == ("", [f"{user.turn_id}-1.png"])


def test_turn_input_round_trips_its_pictures() -> None:
    images = tuple(prepare_images([Upload("b.png", png())]))
    request = TurnInput("m", attachments=images)
    assert TurnInput.from_json(request.to_json()) == request


def test_forgetting_an_exchange_forgets_its_pictures_only(fake_models: FakeModelServer) -> None:
    from core.actions.forget import forget

    h = make_harness(memory := InMemoryStorage(), FixedClock.at(CLOCK), fake_models)
    assert h.brain is not None
    h.brain.main("One.", "Two.")
    h.turn("first", attachments=tuple(prepare_images([Upload("a.png", png())])))
    h.turn("second", attachments=tuple(prepare_images([Upload("b.png", png())])))
    first, second = [t.turn_id for t in h.slice(SLICE).turns if t.role == "user"]
    forget(memory, SLICE, h.clock, turn_id=first)
    assert memory.snapshot().read_bytes(image_path(SLICE, f"{first}-1.png")) is None
    assert memory.snapshot().read_bytes(image_path(SLICE, f"{second}-1.png")) is not None


def test_check_knows_pictures_and_names_a_damaged_one(fake_models: FakeModelServer) -> None:
    from core.actions.check import check_memory

    h = make_harness(memory := InMemoryStorage(), FixedClock.at(CLOCK), fake_models)
    assert h.brain is not None
    h.brain.main("Ok.")
    h.turn("look", attachments=tuple(prepare_images([Upload("a.png", png())])))
    turn_id = next(t.turn_id for t in h.slice(SLICE).turns if t.role == "user")
    picture = image_path(SLICE, f"{turn_id}-1.png")
    report = check_memory(memory.snapshot(), h.clock.now())
    assert not [f for f in report.findings if f.path == picture.value]
    memory.files[picture] = "@@ not a PNG @@\n"
    report = check_memory(memory.snapshot(), h.clock.now())
    assert [f.message for f in report.findings if f.path == picture.value] == [
        "damaged picture: not the image its name says (the turn's link shows nothing)"
    ]
    del memory.files[picture]  # a picture not migrated yet: a warning that says what to run
    legacy = legacy_image_path(SLICE, f"{turn_id}-1.png")
    memory.files[legacy] = "@@ not base64 @@\n"
    report = check_memory(memory.snapshot(), h.clock.now())
    assert [f.message for f in report.findings if f.path == legacy.value] == [
        "damaged picture: not base64 (the turn's link shows nothing)"
    ]
    memory.files[legacy] = stored_text(prepare_images([Upload("a.png", png())])[0])
    report = check_memory(memory.snapshot(), h.clock.now())
    [note] = [f for f in report.findings if f.path == legacy.value]
    assert note.severity == "warning" and "`previously maintain` turns it into the image file" in note.message
