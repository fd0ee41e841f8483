"""Image attachments: checked, re-encoded without metadata, stored as image files beside the slice.

Every picture is decoded with Pillow and written again from its pixels alone (turned upright
first), so EXIF, GPS positions, comments and colour-profile blobs never reach memory or a model.
Large pictures are scaled to fit `MAX_SIDE`; one whose re-encoding is still over `MAX_STORED`
is saved as JPEG. The stored file is those bytes (docs/FORMAT.md "Pictures"); pictures saved
before storage carried bytes are base64 text, read by `read_stored` until `maintain` migrates them.
"""

from __future__ import annotations

import base64
import binascii
import io
import re
from collections.abc import Sequence
from dataclasses import dataclass

from core.errors import InvalidInput, TooLarge

MAX_UPLOAD = 3_000_000  # one picture, and all pictures of a turn together, as sent
MAX_IMAGES = 4
MAX_SIDE = 2048
MAX_STORED = 700_000  # under a memory file's 1 MB cap (and so was its base64, when stored as text)
MAX_PIXELS = 40_000_000  # refuse decompression bombs before decoding
_FORMATS = {"PNG": ("image/png", "png"), "JPEG": ("image/jpeg", "jpg"), "WEBP": ("image/webp", "webp"),
            "GIF": ("image/png", "png")}  # fmt: skip
_NAME_RE = re.compile(r"[^\w.\- ]+")
WRAP = 76


@dataclass(frozen=True)
class Upload:
    """A picture as the user sent it: its file name and bytes (base64 on the wire)."""

    name: str
    data: bytes

    @classmethod
    def from_base64(cls, name: str, data: str) -> Upload:
        """An upload from base64 text; InvalidInput when it is not base64."""
        try:
            raw = base64.b64decode(data, validate=True)
        except (binascii.Error, ValueError) as exc:
            raise InvalidInput(f'Attachment "{name}" is not base64 data.') from exc
        return cls(name, raw)


@dataclass(frozen=True)
class Attachment:
    """A picture ready to store and send: a clean display name, its media type, base64 bytes."""

    name: str
    media_type: str
    data: str  # base64 of the re-encoded bytes

    @property
    def extension(self) -> str:
        return {"image/png": "png", "image/jpeg": "jpg", "image/webp": "webp"}[self.media_type]

    @property
    def raw(self) -> bytes:
        return base64.b64decode(self.data)

    def to_json(self) -> dict[str, str]:
        return {"name": self.name, "media_type": self.media_type, "data": self.data}

    @classmethod
    def from_json(cls, data: dict[str, str]) -> Attachment:
        return cls(str(data["name"]), str(data["media_type"]), str(data["data"]))


def clean_name(name: str) -> str:
    """A file name safe in a Markdown link: no brackets, slashes or line breaks, at most 80 chars."""
    base = (name or "").replace("\\", "/").rsplit("/", 1)[-1]
    return " ".join(_NAME_RE.sub("_", base).split())[:80] or "image"


def prepare_images(uploads: Sequence[Upload]) -> list[Attachment]:
    """Check and re-encode a turn's pictures; InvalidInput / TooLarge say what to change."""
    if len(uploads) > MAX_IMAGES:
        raise InvalidInput(f"At most {MAX_IMAGES} images per message ({len(uploads)} were attached).")
    total = sum(len(u.data) for u in uploads)
    if total > MAX_UPLOAD:
        raise TooLarge(
            f"The images are too large: {total:,} bytes together; the limit is {MAX_UPLOAD:,}. "
            "Send smaller ones."
        )
    return [_prepare(u) for u in uploads]


def prepare_image(upload: Upload) -> Attachment:
    """Check and re-encode one picture as every attachment is (an imported image, say)."""
    return _prepare(upload)


def _prepare(upload: Upload) -> Attachment:
    from PIL import Image, ImageOps, UnidentifiedImageError  # loaded only when a picture arrives

    name = clean_name(upload.name)
    if len(upload.data) > MAX_UPLOAD:
        raise TooLarge(
            f'"{name}" is too large: {len(upload.data):,} bytes; the limit is {MAX_UPLOAD:,}. '
            "Send a smaller image."
        )
    try:
        with Image.open(io.BytesIO(upload.data)) as probe:
            kind = probe.format or ""
            if kind not in _FORMATS:
                raise InvalidInput(
                    f'"{name}" is not a PNG, JPEG, WebP or GIF image: only those can be attached.'
                )

            if probe.width * probe.height > MAX_PIXELS:
                raise TooLarge(_too_many_pixels(name, probe.width, probe.height))
            probe.seek(0)
            image = ImageOps.exif_transpose(probe)
            image.load()
    except Image.DecompressionBombError as exc:  # PIL's own pixel ceiling, past ours
        raise TooLarge(f'"{name}" is too large: too many pixels to attach ({exc}).') from exc
    except (UnidentifiedImageError, OSError) as exc:
        raise InvalidInput(f'"{name}" is not an image that can be read (PNG, JPEG, WebP or GIF).') from exc
    media_type, _ = _FORMATS[kind]
    data, media_type = _encode(image, media_type)
    return Attachment(name, media_type, base64.b64encode(data).decode("ascii"))


def _too_many_pixels(name: str, width: int, height: int) -> str:
    return f'"{name}" is too large: {width}×{height} pixels; the limit is {MAX_PIXELS:,} pixels.'


def _encode(image: object, media_type: str) -> tuple[bytes, str]:
    from PIL import Image

    assert isinstance(image, Image.Image)
    if max(image.size) > MAX_SIDE:
        image.thumbnail((MAX_SIDE, MAX_SIDE))
    if media_type != "image/jpeg" and image.mode not in ("RGB", "RGBA", "L", "LA"):
        image = image.convert("RGBA")
    data = _save(image, media_type)
    if len(data) <= MAX_STORED:
        return data, media_type
    flat = image.convert("RGB")
    for quality, side in ((85, MAX_SIDE), (75, 1600), (65, 1200)):
        if max(flat.size) > side:
            flat.thumbnail((side, side))
        data = _save(flat, "image/jpeg", quality)
        if len(data) <= MAX_STORED:
            return data, "image/jpeg"
    raise TooLarge("The image is still too large after shrinking it; send a smaller one.")


def _save(image: object, media_type: str, quality: int = 90) -> bytes:
    from PIL import Image

    assert isinstance(image, Image.Image)
    out = io.BytesIO()
    # A fresh image from the pixels: nothing of the source's info (EXIF, ICC, XMP, comments) is kept.
    clean = Image.new(image.mode, image.size)
    clean.paste(image)
    if media_type == "image/jpeg":
        clean.convert("RGB").save(out, "JPEG", quality=quality, optimize=True)
    elif media_type == "image/webp":
        clean.save(out, "WEBP", quality=quality)
    else:
        clean.save(out, "PNG", optimize=True)
    return out.getvalue()


def stored_text(attachment: Attachment) -> str:
    """The legacy `.b64` file of a picture: the bytes in base64, 76 characters a line, ending
    with a newline (what memories written before pictures were files hold)."""
    data = attachment.data
    return "\n".join(data[i : i + WRAP] for i in range(0, len(data), WRAP)) + "\n"


def read_stored(text: str) -> bytes:
    """The bytes of a legacy `.b64` picture file (InvalidInput when the file is damaged)."""
    try:
        return base64.b64decode("".join(text.split()), validate=True)
    except (binascii.Error, ValueError) as exc:
        raise InvalidInput("The stored image is damaged (not base64).") from exc
