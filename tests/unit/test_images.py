"""Image attachments: re-encoded without metadata, limits with clear errors, stored as base64 text."""

from __future__ import annotations

import base64
import io
import struct
import zlib

import pytest
from hypothesis import given
from hypothesis import strategies as st
from PIL import Image

from core.errors import InvalidInput, TooLarge
from core.llm.types import AssistantMessage, UserMessage
from core.media.attach import turn_text, unseen_note, with_images
from core.media.images import (
    MAX_IMAGES,
    MAX_SIDE,
    MAX_UPLOAD,
    Attachment,
    Upload,
    clean_name,
    prepare_images,
    read_stored,
    stored_text,
)
from core.memory.slice.model import Slice, Turn, parse_core_md, render_core_md
from tests.fakes.images import GPS_TAG, gif, jpeg_with_location, png

pytestmark = pytest.mark.unit


def test_a_jpeg_loses_its_exif_and_location() -> None:
    source = jpeg_with_location()
    assert GPS_TAG in Image.open(io.BytesIO(source)).getexif()
    [out] = prepare_images([Upload("IMG_0042.jpg", source)])
    assert out.media_type == "image/jpeg" and out.name == "IMG_0042.jpg"
    clean = Image.open(io.BytesIO(out.raw))
    assert dict(clean.getexif()) == {} and "exif" not in clean.info
    assert b"Mara Quinn" not in out.raw and clean.size == (64, 48)


def test_png_stays_png_and_gif_becomes_png() -> None:
    first, second = prepare_images([Upload("a.png", png()), Upload("b.gif", gif())])
    assert (first.media_type, second.media_type) == ("image/png", "image/png")
    assert Image.open(io.BytesIO(first.raw)).getpixel((0, 0)) == (10, 120, 200, 255)


def test_a_big_picture_is_scaled_to_fit() -> None:
    [out] = prepare_images([Upload("wide.png", png((MAX_SIDE * 2, 100)))])
    assert max(Image.open(io.BytesIO(out.raw)).size) == MAX_SIDE


@pytest.mark.parametrize(
    "data", [b"%PDF-1.7 not a picture", b"", "héllo".encode(), b"\x89PNG\r\n\x1a\nbroken"]
)
def test_a_non_image_is_refused_clearly(data: bytes) -> None:
    with pytest.raises(InvalidInput, match=r"notes\.pdf.*(PNG, JPEG, WebP or GIF)"):
        prepare_images([Upload("notes.pdf", data)])


def test_an_oversized_file_is_refused_before_decoding() -> None:
    with pytest.raises(TooLarge, match="the limit is 3,000,000"):
        prepare_images([Upload("huge.png", b"\x89PNG" + b"\0" * MAX_UPLOAD)])


def test_too_many_images_are_refused() -> None:
    with pytest.raises(InvalidInput, match=f"At most {MAX_IMAGES}"):
        prepare_images([Upload(f"{n}.png", png()) for n in range(MAX_IMAGES + 1)])


def test_bad_base64_is_refused() -> None:
    with pytest.raises(InvalidInput, match="not base64"):
        Upload.from_base64("x.png", "###")


def test_stored_text_reads_back_byte_for_byte() -> None:
    [out] = prepare_images([Upload("a.png", png((300, 300)))])
    text = stored_text(out)
    assert all(len(line) <= 76 for line in text.splitlines()) and text.endswith("\n")
    assert read_stored(text) == out.raw == base64.b64decode(out.data)
    with pytest.raises(InvalidInput, match="damaged"):
        read_stored("not*base64")


@given(st.text())
def test_a_clean_name_never_breaks_a_link(name: str) -> None:
    cleaned = clean_name(name)
    assert cleaned and len(cleaned) <= 80
    assert not set(cleaned) & set("[]()/\\\n\r")


@given(st.text(min_size=1).filter(lambda s: s.strip()))
def test_the_message_is_kept_word_for_word_before_the_links(message: str) -> None:
    image = Attachment("cat [1].png", "image/png", base64.b64encode(png()).decode())
    text = turn_text(message, "t1", [image])
    assert text.startswith(message + "\n\n") and text.endswith("![cat [1].png](../images/t1-1.png)")
    s = Slice(slice_id="2026-08-11-1115", start="2026-08-11T11:15:00.000Z", timezone="UTC",
              turns=[Turn("t1", "2026-08-11T11:15:00.000Z", "user", text)])  # fmt: skip
    assert parse_core_md(render_core_md(s)).turns[0].content == text


def test_images_ride_on_the_last_user_message_or_a_note_says_they_were_not_seen() -> None:
    image = Attachment("a.png", "image/png", base64.b64encode(png()).decode())
    history = [UserMessage("before"), AssistantMessage(text="ok"), UserMessage("look")]
    seen = with_images(history, [image], vision=True)
    assert (
        seen[-1] == UserMessage("look", (image_input := seen[-1].images[0],))
        and image_input.data == image.data
    )
    blind = with_images(history, [image], vision=False)
    assert blind[-1] == UserMessage(f"look\n\n{unseen_note(1)}") and "cannot see images" in unseen_note(1)
    assert with_images(history, [], vision=True) == history


def _png_header(width: int, height: int) -> bytes:
    """A PNG that only declares its size (enough for the checks, which read the header first)."""
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    chunk = b"IHDR" + ihdr
    body = struct.pack(">I", len(ihdr)) + chunk + struct.pack(">I", zlib.crc32(chunk))
    end = struct.pack(">I", 0) + b"IEND" + struct.pack(">I", zlib.crc32(b"IEND"))
    return b"\x89PNG\r\n\x1a\n" + body + end


@pytest.mark.parametrize(
    "uploads",
    [
        [Upload("big.png", b"x" * (MAX_UPLOAD + 1))],
        [Upload("a.png", b"x" * (MAX_UPLOAD // 2 + 1)), Upload("b.png", b"x" * (MAX_UPLOAD // 2 + 1))],
        [Upload("wide.png", _png_header(10_000, 5_000))],  # past our pixel limit
        [Upload("bomb.png", _png_header(30_000, 30_000))],  # past PIL's own ceiling too
    ],
    ids=["bytes", "together", "pixels", "bomb"],
)
def test_a_picture_refused_for_its_size_says_too_large(uploads: list[Upload]) -> None:
    with pytest.raises(TooLarge, match="too large"):
        prepare_images(uploads)
