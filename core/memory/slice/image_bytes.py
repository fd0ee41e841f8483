"""Whether a picture file holds a whole image of the kind its name says (docs/FORMAT.md "Pictures").

Cheap byte checks, no image library: the format's signature at the start and its end marker at
the end (a JPEG's EOI, a PNG's IEND chunk, a WebP's RIFF length), so a file cut short by a
failed copy or a truncated download is told from a picture that opens. A legacy `.b64` picture
is the same bytes in base64 text.
"""

from __future__ import annotations

import base64
import binascii

from core.memory.slice.picture_links import LEGACY_SUFFIX

_SIGNATURES = {"png": (b"\x89PNG\r\n\x1a\n",), "jpg": (b"\xff\xd8\xff",), "webp": (b"RIFF",)}
_PNG_END = b"IEND\xaeB`\x82"


def looks_like(data: bytes, extension: str) -> bool:
    """Whether `data` starts as an image of the kind `extension` (png, jpg, webp) names."""
    if extension == "webp" and data[8:12] != b"WEBP":
        return False
    return data.startswith(_SIGNATURES.get(extension, (b"\0\0",)))


def is_whole(data: bytes, extension: str) -> bool:
    """Whether `data` also ends as that kind of image ends (not cut short)."""
    if extension == "jpg":
        return data.rstrip(b"\0").endswith(b"\xff\xd9")
    if extension == "png":
        return data.endswith(_PNG_END)
    if extension == "webp":
        return len(data) >= 8 + int.from_bytes(data[4:8], "little")
    return True


def picture_problem(data: bytes, name: str) -> str | None:
    """What is wrong with the picture file `name` holding `data`; None when it is a whole image."""
    if name.endswith(LEGACY_SUFFIX):
        try:
            data = base64.b64decode(b"".join(data.split()), validate=True)
        except (binascii.Error, ValueError):
            return "not base64 (the turn's link shows nothing)"
        name = name.removesuffix(LEGACY_SUFFIX)
    extension = name.rsplit(".", 1)[-1]
    if not looks_like(data, extension):
        return "not the image its name says (the turn's link shows nothing)"
    if not is_whole(data, extension):
        return "the image is cut short (truncated): it does not open whole"
    return None
