"""Opening an export as downloaded — a `.zip` or the JSON/Markdown file itself — as conversations.

A Claude zip's projects (`projects.json`) follow its conversations, one conversation each.

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
from core.imports.bounds import open_archive, open_member
from core.imports.claude_projects import Read, project_conversation
from core.imports.instructions import Instruction, claude_instructions, claude_projects
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
                # Then each project (projects.json) as one slice holding its texts and documents.
                for project in claude_projects(archive) if archive is not None else []:
                    yield project_conversation(project)
            elif self.fmt == "jsonl":
                yield from simple.read_jsonl(_text_lines(stream, self.name), self.name)
            else:
                lines = _text_lines(stream, self.name)
                yield from simple.read_markdown(lines, self.name, Path(self.name).stem)

    def instructions(self) -> tuple[list[Instruction], Read]:
        """The export's custom instructions, profile text and memories (a Claude zip's), and what
        its extra files held or left out; nothing for the other formats or a bare conversations.json."""
        if self.fmt != "claude" or not zipfile.is_zipfile(self.path):
            return [], Read()
        with open_archive(self.path, self.name) as archive:
            return claude_instructions(archive)

    @contextmanager
    def _open(self) -> Iterator[tuple[TextIO, tuple[str, ...], zipfile.ZipFile | None]]:
        if not zipfile.is_zipfile(self.path):
            # utf-8-sig: a byte order mark opening the file marks its encoding; it is no one's text.
            with self.path.open(encoding="utf-8-sig", newline="") as stream:
                yield stream, (), None
            return
        if self.fmt not in ("chatgpt", "claude"):
            raise InvalidInput(f"{self.name} is a zip; a {self.fmt} import reads the file itself.")
        with open_archive(self.path, self.name) as archive:
            names = archive.namelist()
            found = sorted((n for n in names if n.rsplit("/", 1)[-1] == _JSON_NAME), key=len)
            if not found:
                raise InvalidInput(f"{self.name} holds no {_JSON_NAME}; is it the export as downloaded?")
            with open_member(archive, found[0], self.name) as raw:
                yield io.TextIOWrapper(raw, encoding="utf-8", newline=""), tuple(names), archive


def _text_lines(stream: TextIO, name: str) -> Iterator[str]:
    """The file's lines; InvalidInput (naming the line) at the first that is not UTF-8."""
    n = 0
    try:
        for n, line in enumerate(stream, 1):  # noqa: B007 (n names the line that failed)
            yield line
    except UnicodeDecodeError as exc:
        raise InvalidInput(
            f"{name} is not UTF-8 text (somewhere after line {n}: {exc.reason}); "
            "save it as UTF-8 and import again."
        ) from exc


def _load_pictures(conv: Conversation, archive: zipfile.ZipFile) -> None:
    """Each named image read from the zip and re-encoded; a bad one is skipped, named in its turn."""
    kept: list[Picture] = []
    for pic in conv.pictures:
        try:
            with open_member(archive, pic.member, "the export", MAX_UPLOAD) as f:
                data = f.read()
            image = prepare_image(Upload(pic.member, data))
        except (InvalidInput, TooLarge) as exc:
            conv.skip(f"image {pic.member}", f"not stored ({exc}); the turn names it")
            continue
        except (KeyError, OSError, zipfile.BadZipFile) as exc:
            conv.skip(f"image {pic.member}", f"not readable in the zip ({exc}); the turn names it")
            continue
        kept.append(Picture(pic.message_id, pic.member, image))
    conv.pictures = kept
