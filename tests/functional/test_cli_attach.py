"""`previously chat --attach FILE`: the picture is kept beside the slice and sent; bad files are refused."""

from __future__ import annotations

from pathlib import Path

import pytest
from PIL import Image

from tests.fakes.brain import Brain
from tests.fakes.fake_model_server import FakeModelServer
from tests.fakes.images import jpeg_with_location
from tests.functional.cli_env import chat_memory, run
from tests.functional.test_turn_images import sent_images

pytestmark = pytest.mark.functional


@pytest.fixture
def env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    return chat_memory(monkeypatch, tmp_path)


def test_chat_attach_sends_and_keeps_the_picture(
    env: Path, tmp_path: Path, fake_models: FakeModelServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", fake_models.openai_base_url)
    brain = Brain.install(fake_models)
    brain.main("A red rectangle.")
    photo = tmp_path / "holiday.jpg"
    photo.write_bytes(jpeg_with_location())
    code, _, err = run("chat", "What is this?", "--memory", str(env), "--attach", str(photo))
    assert code == 0, err
    [stored] = list(env.glob("memory/episodic/slices/*/*/*/*/images/*"))
    assert stored.suffix == ".jpg", "the picture is an image file"
    core = next(stored.parent.parent.glob("timeline/core.md")).read_text(encoding="utf-8")
    assert f"What is this?\n\n![holiday.jpg](../images/{stored.name})" in core
    assert sent_images(brain.requests["main"][0]) == [stored.read_bytes()]
    assert Image.open(stored).format == "JPEG"


def test_chat_attach_refuses_a_non_image_and_saves_nothing(env: Path, tmp_path: Path) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("not a picture")
    code, _, err = run("chat", "Look", "--memory", str(env), "--attach", str(notes))
    assert code != 0 and "PNG, JPEG, WebP or GIF" in err
    code, _, err = run("chat", "Look", "--memory", str(env), "--attach", str(tmp_path / "missing.png"))
    assert code != 0 and "no such file" in err
    assert not list(env.glob("memory/episodic/slices/**/core.md"))
