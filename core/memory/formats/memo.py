"""A small memo of parsed files keyed by their exact text.

A turn reads the same derived file (strands.json, a month's index) several times and each
read re-applies the batch's queued updates; keeping the last few parses by content means each
version of the file is parsed once per process. An entry is addressed by its text, so it can
never be stale; a bounded size keeps a long-running server's memory flat.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Generic, TypeVar

T = TypeVar("T")


class TextMemo(Generic[T]):
    """The last `size` values, by the exact text they were parsed from or rendered to."""

    def __init__(self, size: int) -> None:
        self._values: OrderedDict[str, T] = OrderedDict()
        self._size = size
        self._lock = threading.Lock()

    def get(self, text: str) -> T | None:
        with self._lock:
            found = self._values.get(text)
            if found is not None:
                self._values.move_to_end(text)
            return found

    def put(self, text: str, value: T) -> T:
        with self._lock:
            self._values[text] = value
            self._values.move_to_end(text)
            while len(self._values) > self._size:
                self._values.popitem(last=False)
        return value
