"""The emergency save (`POST /api/episodic/flush`, docs/API.md "Memory"; docs/FORMAT.md "Turns"): append
turns to a slice's core.md.

The body is validated by `parse_flush_request` (the original's limits, lengths in UTF-16 units);
the write is an Update, so turns another writer appended meanwhile are kept and the flushed
turns land after them.
"""

from __future__ import annotations

from typing import Any

from core.errors import PathDenied
from core.memory.paths import core_md
from core.memory.slice.core_edits import flush_core_md, parse_flush_request
from core.storage.base import Storage, WriteBatch


def queue_flush(batch: WriteBatch, body: Any, now_iso: str) -> str:
    """Validate `body` and queue the core.md update; returns the commit message."""
    request = parse_flush_request(body)
    path = core_md(request.slice_id)
    if not path.protected:  # defence in depth: the target must be a system-owned slice file
        raise PathDenied(f'"{path}" is not a slice file.')
    batch.update(path, lambda existing: flush_core_md(existing, request.slice_id, request.turns, now_iso))
    return f"Flush turns for slice {request.slice_id}"


def flush(storage: Storage, body: Any, now_iso: str) -> str:
    """Validate `body` and append its turns in one commit (nothing written when refused): the message."""
    batch = WriteBatch.open(storage)
    message = queue_flush(batch, body, now_iso)
    batch.commit(message)
    return message
