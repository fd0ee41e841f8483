"""A bounded cache of file texts keyed by git blob sha.

Blobs are content-addressed, so an entry can never be stale: a warm process (a Lambda kept
alive between turns) may keep it for as long as it lives. Least recently used entries go
first once the byte budget is spent.
"""

from __future__ import annotations

import threading
from collections import OrderedDict


class BlobCache:
    """sha → text, bounded by the total UTF-8 size of the texts it holds."""

    def __init__(self, max_bytes: int = 32 * 1024 * 1024) -> None:
        self.max_bytes = max_bytes
        self._items: OrderedDict[str, tuple[str, int]] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()

    def get(self, sha: str) -> str | None:
        """The cached text, or None."""
        with self._lock:
            item = self._items.get(sha)
            if item is None:
                return None
            self._items.move_to_end(sha)
            return item[0]

    def put(self, sha: str, text: str, size: int | None = None) -> None:
        """Remember a text (ignored when it alone is over the budget)."""
        size = len(text.encode("utf-8")) if size is None else size
        if size > self.max_bytes:
            return
        with self._lock:
            if sha in self._items:
                self._items.move_to_end(sha)
                return
            self._items[sha] = (text, size)
            self._bytes += size
            while self._bytes > self.max_bytes:
                _, (_, dropped) = self._items.popitem(last=False)
                self._bytes -= dropped

    @property
    def size(self) -> int:
        """Bytes currently held."""
        return self._bytes

    def __len__(self) -> int:
        return len(self._items)
