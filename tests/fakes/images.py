"""Small test pictures made with Pillow: a JPEG carrying EXIF with a GPS position, a PNG, a GIF."""

from __future__ import annotations

import io

from PIL import Image

GPS_TAG = 0x8825
ARTIST_TAG = 0x013B


def jpeg_with_location(size: tuple[int, int] = (64, 48)) -> bytes:
    """A JPEG whose EXIF names an artist and a GPS position (what must never be stored)."""
    image = Image.new("RGB", size, (200, 40, 40))
    exif = Image.Exif()
    exif[ARTIST_TAG] = "Mara Quinn"
    exif[GPS_TAG] = {1: "N", 2: (38.0, 42.0, 49.0), 3: "W", 4: (9.0, 8.0, 23.0)}
    out = io.BytesIO()
    image.save(out, "JPEG", exif=exif.tobytes(), quality=90)
    return out.getvalue()


def png(size: tuple[int, int] = (32, 32), color: tuple[int, int, int, int] = (10, 120, 200, 255)) -> bytes:
    out = io.BytesIO()
    Image.new("RGBA", size, color).save(out, "PNG")
    return out.getvalue()


def gif() -> bytes:
    out = io.BytesIO()
    Image.new("P", (16, 16), 3).save(out, "GIF")
    return out.getvalue()


def jpeg(size: tuple[int, int] = (32, 24)) -> bytes:
    """A plain JPEG, as a picture file in a slice folder holds it."""
    out = io.BytesIO()
    Image.new("RGB", size, (40, 160, 90)).save(out, "JPEG", quality=85)
    return out.getvalue()
