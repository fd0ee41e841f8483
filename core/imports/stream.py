"""Reading a large top-level JSON array one element at a time, in bounded memory.

An export's `conversations.json` can be hundreds of megabytes. Instead of loading it whole, the
reader keeps a window of text, lets the C JSON decoder take one element from the front, and
reads more only when the element is not complete yet. Memory stays near the largest single
conversation plus one read chunk.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any, TextIO

from core.errors import InvalidInput, TooLarge
from core.imports.bounds import check_depth, decode_guarded

CHUNK_CHARS = 1 << 18
# One conversation larger than this is far beyond any real export; stop instead of buffering
# (the window holds it as text while the decoder builds its values: a few times this in memory).
MAX_ENTRY_CHARS = 64 << 20
_SPACE = " \t\r\n"
_DECODER = json.JSONDecoder()


class _Window:
    """The unread text of a stream, growing on demand."""

    def __init__(self, stream: TextIO, name: str) -> None:
        self.stream, self.name = stream, name
        self.buf, self.pos, self.eof = "", 0, False

    def more(self, at_least: int = CHUNK_CHARS) -> bool:
        if self.eof:
            return False
        try:
            chunk = self.stream.read(max(at_least, CHUNK_CHARS))
        except UnicodeDecodeError as exc:
            raise InvalidInput(f"{self.name} is not UTF-8 text ({exc}); export it again.") from exc
        if not chunk:
            self.eof = True
            return False
        self.buf = self.buf[self.pos :] + chunk
        self.pos = 0
        return True

    def peek(self) -> str:
        """The next non-space character ("" at the end), consuming the spaces."""
        while True:
            while self.pos < len(self.buf) and self.buf[self.pos] in _SPACE:
                self.pos += 1
            if self.pos < len(self.buf):
                return self.buf[self.pos]
            if not self.more():
                return ""


def iter_json_array(stream: TextIO, name: str) -> Iterator[Any]:
    """Yield each element of the JSON array in `stream`; InvalidInput names the broken entry."""
    win = _Window(stream, name)
    win.more()
    if win.buf.startswith("\ufeff"):
        win.pos = 1
    if win.peek() != "[":
        raise InvalidInput(f"{name} does not hold a JSON list (it should start with '[').")
    win.pos += 1
    index = 0
    if win.peek() == "]":
        win.pos += 1
        _expect_end(win)
        return
    while True:
        yield _element(win, index)
        index += 1
        nxt = win.peek()
        if nxt == "]":
            win.pos += 1
            _expect_end(win)
            return
        if nxt != ",":
            where = "the file ends" if nxt == "" else f"found {nxt!r}"
            raise InvalidInput(f"{name}: after entry {index - 1} a ',' or ']' was expected, but {where}.")
        win.pos += 1
        if win.peek() == "":
            raise InvalidInput(f"{name} ends after entry {index - 1}; the file looks cut off.")


def _element(win: _Window, index: int) -> Any:
    want = CHUNK_CHARS
    where = f"{win.name}: entry {index}"
    while True:
        win.peek()
        try:
            value, end = decode_guarded(where, _DECODER.raw_decode, win.buf, win.pos)
        except json.JSONDecodeError as exc:
            held = len(win.buf) - win.pos
            if held > MAX_ENTRY_CHARS:
                raise TooLarge(_too_large(where)) from exc
            if not win.more(min(want, MAX_ENTRY_CHARS + 1 - held)):
                raise InvalidInput(f"{where} is not valid JSON ({exc.msg}).") from exc
            want *= 2
            continue
        if end - win.pos > MAX_ENTRY_CHARS:
            raise TooLarge(_too_large(where))
        if end == len(win.buf) and win.more(want):
            continue  # a number or literal may go on in the next chunk
        win.pos = end
        return check_depth(value, where)


def _too_large(where: str) -> str:
    return f"{where} is too large: over {MAX_ENTRY_CHARS:,} characters for one conversation."


def _expect_end(win: _Window) -> None:
    if win.peek() != "":
        raise InvalidInput(f"{win.name} has text after the closing ']' of its list.")
