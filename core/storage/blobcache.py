"""A bounded cache of file contents (texts, or bytes for a picture) keyed by git blob sha.

Blobs are content-addressed, so an entry can never be stale: a warm process (a Lambda kept
alive between turns) may keep it for as long as it lives. Least recently used entries go
first once the byte budget is spent.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

Content = str | bytes


class BlobCache:
    """sha → content, bounded by the total stored size of what it holds."""

    def __init__(self, max_bytes: int = 32 * 1024 * 1024) -> None:
        self.max_bytes = max_bytes
        self._items: OrderedDict[str, tuple[Content, int]] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()

    def get(self, sha: str) -> Content | None:
        """The cached content, or None."""
        with self._lock:
            item = self._items.get(sha)
            if item is None:
                return None
            self._items.move_to_end(sha)
            return item[0]

    def put(self, sha: str, text: Content, size: int | None = None) -> None:
        """Remember a content (ignored when it alone is over the budget)."""
        if size is None:
            size = len(text.encode("utf-8") if isinstance(text, str) else text)
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
