"""Opening an export as downloaded — a `.zip` or the JSON/Markdown file itself — as conversations.

The file is read again for each pass (preview, then write), so nothing but one conversation at a
time is held in memory. A ChatGPT or Claude conversation's images are read from the zip one at a
time and re-encoded as chat attachments are; one that cannot be is skipped with the reason.
"""

from __future__ import annotations

import io
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from core.errors import InvalidInput, TooLarge
from core.imports import chatgpt, claude, simple
from core.imports.instructions import Instruction, claude_instructions
from core.imports.model import Conversation, Picture
from core.imports.stream import iter_json_array
from core.media.images import MAX_UPLOAD, Upload, prepare_image

FORMATS = ("chatgpt", "claude", "markdown", "jsonl")
_JSON_NAME = "conversations.json"


@dataclass(frozen=True)
class ExportFile:
    """An export on disk in one of `FORMATS`; `shown_name` is the name it had (an upload's)."""

    path: Path
    fmt: str
    shown_name: str = ""

    def __post_init__(self) -> None:
        if self.fmt not in FORMATS:
            raise InvalidInput(f"Unknown import format {self.fmt!r}; choose one of {', '.join(FORMATS)}.")
        if not self.path.is_file():
            raise InvalidInput(f"No file at {self.path}.")

    @property
    def name(self) -> str:
        return self.shown_name or self.path.name

    def conversations(self) -> Iterator[Conversation]:
        """Every conversation in the file, read one at a time."""
        with self._open() as (stream, assets, archive):
            if self.fmt == "chatgpt":
                for i, raw in enumerate(iter_json_array(stream, self.name)):
                    conv = chatgpt.read_conversation(raw, i, assets)
                    if archive is not None:
                        _load_pictures(conv, archive)
                    yield conv
            elif self.fmt == "claude":
                for i, raw in enumerate(iter_json_array(stream, self.name)):
                    conv = claude.read_conversation(raw, i, assets)
                    if archive is not None:
                        _load_pictures(conv, archive)
                    yield conv
            elif self.fmt == "jsonl":
                yield from simple.read_jsonl(stream, self.name)
            else:
                yield from simple.read_markdown(stream, self.name, Path(self.name).stem)

    def instructions(self) -> tuple[list[Instruction], list[str]]:
        """The export's custom instructions and profile text (a Claude zip's), and what could not
        be read; nothing for the other formats or a bare conversations.json."""
        if self.fmt != "claude" or not zipfile.is_zipfile(self.path):
            return [], []
        try:
            with zipfile.ZipFile(self.path) as archive:
                return claude_instructions(archive)
        except zipfile.BadZipFile as exc:
            raise InvalidInput(f"{self.name} is not a readable zip ({exc}).") from exc

    @contextmanager
    def _open(self) -> Iterator[tuple[TextIO, tuple[str, ...], zipfile.ZipFile | None]]:
        if not zipfile.is_zipfile(self.path):
            with self.path.open(encoding="utf-8", newline="") as stream:
                yield stream, (), None
            return
        if self.fmt not in ("chatgpt", "claude"):
            raise InvalidInput(f"{self.name} is a zip; a {self.fmt} import reads the file itself.")
        try:
            archive = zipfile.ZipFile(self.path)
        except zipfile.BadZipFile as exc:
            raise InvalidInput(f"{self.name} is not a readable zip ({exc}).") from exc
        with archive:
            names = archive.namelist()
            found = sorted((n for n in names if n.rsplit("/", 1)[-1] == _JSON_NAME), key=len)
            if not found:
                raise InvalidInput(f"{self.name} holds no {_JSON_NAME}; is it the export as downloaded?")
            with archive.open(found[0]) as raw:
                yield io.TextIOWrapper(raw, encoding="utf-8", newline=""), tuple(names), archive


def _load_pictures(conv: Conversation, archive: zipfile.ZipFile) -> None:
    """Each named image read from the zip and re-encoded; a bad one is skipped, named in its turn."""
    kept: list[Picture] = []
    for pic in conv.pictures:
        try:
            size = archive.getinfo(pic.member).file_size
            if size > MAX_UPLOAD:
                raise TooLarge(f"it is too large: {size:,} bytes; the limit is {MAX_UPLOAD:,}")
            with archive.open(pic.member) as f:
                data = f.read(MAX_UPLOAD + 1)
            image = prepare_image(Upload(pic.member, data))
        except (InvalidInput, TooLarge) as exc:
            conv.skip(f"image {pic.member}", f"not stored ({exc}); the turn names it")
            continue
        except (KeyError, OSError, zipfile.BadZipFile) as exc:
            conv.skip(f"image {pic.member}", f"not readable in the zip ({exc}); the turn names it")
            continue
        kept.append(Picture(pic.message_id, pic.member, image))
    conv.pictures = kept
