"""Where a turn's images go: files in the slice folder, links in the user's turn, image input.

The pictures are saved in the same commit as the user's turn (the prepare step) as image files,
`<slice>/images/<turnId>-<n>.<ext>`, and the turn's text ends with one Markdown image link per
picture (`![name](../images/<turnId>-<n>.<ext>)`): the link opens the file in any Markdown
viewer. A picture saved before pictures were files is base64 text beside it (`….<ext>.b64`)
until `maintain` turns it into the image file (core/media/migrate.py); readers take either.
Each model call of the turn sends the pictures as image input when the model takes images;
otherwise the message says that pictures were attached and that this model cannot see them.
"""

from __future__ import annotations

import base64
from collections.abc import Sequence

from core.errors import InvalidInput, NotFound
from core.ids import PictureName
from core.llm.registry import BoundModel
from core.llm.types import ImageInput, Message, UserMessage
from core.media.images import Attachment, read_stored
from core.memory import paths
from core.memory.slice.picture_links import (
    IMAGES_DIR,
    StoredPicture,
    image_path,
    legacy_image_path,
)
from core.storage.base import BytesReader, WriteBatch

MEDIA_TYPES = {"png": "image/png", "jpg": "image/jpeg", "webp": "image/webp"}


def file_name(turn_id: str, n: int, attachment: Attachment) -> str:
    """The picture's name as linked from core.md, and its file's name."""
    return f"{turn_id}-{n}.{attachment.extension}"


def turn_text(message: str, turn_id: str, attachments: Sequence[Attachment]) -> str:
    """The user's turn as stored: the message word for word, then one image link per picture."""
    if not attachments:
        return message
    links = "\n".join(
        f"![{a.name}](../{IMAGES_DIR}/{file_name(turn_id, n, a)})" for n, a in enumerate(attachments, 1)
    )
    return f"{message}\n\n{links}" if message else links


def reattach(reader: BytesReader, pictures: Sequence[StoredPicture]) -> tuple[Attachment, ...]:
    """Pictures stored with an earlier turn, ready to go with a new one (answer again, or an
    edit): the stored bytes as they are (they were checked and re-encoded when first sent)."""
    out = []
    for p in pictures:
        data, media_type = read_image(reader, p.slice_id, p.file)
        out.append(Attachment(p.name or "image", media_type, base64.b64encode(data).decode("ascii")))
    return tuple(out)


def queue_images(batch: WriteBatch, slice_id: str, turn_id: str, attachments: Sequence[Attachment]) -> None:
    """Queue the turn's picture files (the image bytes) in the batch that saves the user's turn."""
    for n, attachment in enumerate(attachments, 1):
        batch.put_bytes(image_path(slice_id, file_name(turn_id, n, attachment)), attachment.raw)


def unseen_note(count: int) -> str:
    """What the model reads instead of pictures it cannot take."""
    noun = "an image" if count == 1 else f"{count} images"
    return (
        f"(The user attached {noun} to this message, but the current model cannot see images. "
        "Say that you could not see it, and answer from the words alone.)"
    )


def sees_images(model: BoundModel) -> bool:
    """Whether the model takes image input (a model the presets do not know is trusted to)."""
    return model.info.supports_vision or not model.info.curated


def with_images(history: list[Message], attachments: Sequence[Attachment], vision: bool) -> list[Message]:
    """The history with this turn's pictures on its last user message (or the unseen note)."""
    if not attachments or not history or not isinstance(history[-1], UserMessage):
        return history
    last = history[-1]
    if vision:
        images = tuple(ImageInput(a.media_type, a.data) for a in attachments)
        return [*history[:-1], UserMessage(last.text, (*last.images, *images))]
    return [*history[:-1], UserMessage(f"{last.text}\n\n{unseen_note(len(attachments))}", last.images)]


def read_image(reader: BytesReader, slice_id: str, name: str) -> tuple[bytes, str]:
    """A slice's stored picture `name` (as core.md links it): its bytes and media type. The
    image file, else the base64 text of a picture not migrated yet."""
    picture = PictureName.try_parse(name)
    if picture is None or not paths.is_slice_id(slice_id):
        raise InvalidInput(f'"{name}" is not the name of a stored picture (like <turn id>-1.png).')
    data = reader.read_bytes(image_path(slice_id, name))
    if data is None:
        text = reader.read(legacy_image_path(slice_id, name))
        if text is None:
            raise NotFound(f'Slice {slice_id} has no picture "{name}".')
        data = read_stored(text)
    return data, MEDIA_TYPES[picture.ext]
