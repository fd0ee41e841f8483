"""The limits a hostile or broken export meets before it can cost much memory or time.

An export comes from outside, so reading one is bounded: a zip is opened member by member with
limits on the number of members, each member's inflated size and its compression ratio (checked
on the zip's own headers before anything is inflated, and again on the bytes actually read, since
headers can lie); JSON is refused past a nesting depth, and an import request past a time budget
(docs/API.md "Import"). Every refusal is an InvalidInput or TooLarge that names the file, the
limit, and what to do.
"""

from __future__ import annotations

import io
import time
import zipfile
from collections.abc import Callable
from typing import IO, Any

from core.errors import InvalidInput, TooLarge

MAX_MEMBERS = 100_000
MAX_INFLATED_BYTES = 2 << 30  # one member (conversations.json) inflated
MAX_RATIO = 100  # inflated / compressed, for a member past RATIO_FLOOR
RATIO_FLOOR = 1 << 20  # small members may compress better than that; they cost nothing
MAX_DEPTH = 64  # JSON nesting: real exports stay under 20
MAX_SECONDS = 600.0  # reading and planning one import request


def open_archive(source: IO[bytes] | str | Any, name: str) -> zipfile.ZipFile:
    """The zip, refused when it is unreadable or holds more than MAX_MEMBERS members."""
    try:
        archive = zipfile.ZipFile(source)
    except (zipfile.BadZipFile, OSError, ValueError) as exc:
        raise InvalidInput(f"{name} is not a readable zip ({exc}).") from exc
    count = len(archive.infolist())
    if count > MAX_MEMBERS:
        archive.close()
        raise TooLarge(
            f"{name} is too large: it holds {count:,} files; an import reads at most {MAX_MEMBERS:,}. "
            "Export again, or import the conversations.json alone."
        )
    return archive


def open_member(
    archive: zipfile.ZipFile, member: str, name: str, limit: int | None = None
) -> io.BufferedReader:
    """A member's bytes as a stream that stops at `limit` inflated bytes; refused first, on the
    zip's headers, when it declares more than `limit` or inflates past MAX_RATIO."""
    limit = MAX_INFLATED_BYTES if limit is None else limit
    info = archive.getinfo(member)
    where = f"{name}: {member}"
    if info.file_size > limit:
        raise TooLarge(f"{where} is too large: {info.file_size:,} bytes inflated; the limit is {limit:,}.")
    if info.file_size > RATIO_FLOOR and info.file_size > MAX_RATIO * max(info.compress_size, 1):
        ratio = info.file_size // max(info.compress_size, 1)
        raise TooLarge(
            f"{where} is too large for its size in the zip: it inflates {ratio:,}× "
            f"({info.file_size:,} bytes); an export inflates at most {MAX_RATIO}×. "
            "It is not an export as downloaded."
        )
    try:
        raw = archive.open(member)
    except (zipfile.BadZipFile, OSError, NotImplementedError, RuntimeError) as exc:
        raise InvalidInput(f"{where} cannot be read from the zip ({exc}).") from exc
    return io.BufferedReader(_Capped(raw, min(limit, info.file_size), where), 1 << 16)


class _Capped(io.RawIOBase):
    """A member stream that refuses to give more bytes than its header declared (or the limit)."""

    def __init__(self, raw: IO[bytes], cap: int, where: str) -> None:
        super().__init__()
        self.raw, self.cap, self.where, self.seen = raw, cap, where, 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        try:
            data = self.raw.read(len(buffer))
        except (zipfile.BadZipFile, OSError, EOFError) as exc:
            raise InvalidInput(f"{self.where} is damaged in the zip ({exc}); export it again.") from exc
        self.seen += len(data)
        if self.seen > self.cap:
            raise TooLarge(f"{self.where} is too large: it inflates past the {self.cap:,} bytes it declares.")
        buffer[: len(data)] = data
        return len(data)

    def close(self) -> None:
        self.raw.close()
        super().close()


def check_depth(value: Any, where: str) -> Any:
    """`value` itself, refused when its lists and objects nest deeper than MAX_DEPTH."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        children = item.values() if isinstance(item, dict) else item if isinstance(item, list) else None
        if children is None:
            continue
        if depth > MAX_DEPTH:
            raise InvalidInput(too_deep(where))
        stack.extend((c, depth + 1) for c in children if isinstance(c, dict | list))
    return value


def too_deep(where: str) -> str:
    return f"{where} nests lists or objects more than {MAX_DEPTH} deep; no export does. Export it again."


def decode_guarded(where: str, decode: Callable[..., Any], *args: Any) -> Any:
    """`decode(*args)`, the JSON decoder's own recursion limit turned into the depth refusal."""
    try:
        return decode(*args)
    except RecursionError as exc:
        raise InvalidInput(too_deep(where)) from exc


class Deadline:
    """The time budget of one import read; `check` refuses once it has passed."""

    def __init__(self, seconds: float = MAX_SECONDS, now: Callable[[], float] = time.monotonic) -> None:
        self.seconds, self.now = seconds, now
        self.until = now() + seconds

    def check(self, name: str) -> None:
        if self.now() > self.until:
            raise TooLarge(
                f"{name} takes longer than {self.seconds:.0f} s to read; nothing was imported. "
                "Import it from the command line (`previously import`), which has no time limit, or split it."
            )
