"""moto's S3, made to answer racing threads the way S3 does.

S3 applies each request atomically: of two conditional puts on one key one wins and the other
gets 412, and a read sees a whole object. moto checks a condition and then writes, and an
overwrite closes the file a concurrent read is still reading ("I/O operation on closed file").
Tests that race threads on one bucket serialise moto's object and bucket requests."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

_HANDLERS = ("_key_response", "_bucket_response")


@contextmanager
def atomic_requests() -> Iterator[None]:
    """While open, moto's S3 handles one request at a time."""
    from moto.s3.responses import S3Response

    lock = threading.RLock()
    saved = {name: getattr(S3Response, name) for name in _HANDLERS}
    for name, handler in saved.items():

        def atomic(self: Any, *args: Any, _handler: Any = handler, **kwargs: Any) -> Any:
            with lock:
                return _handler(self, *args, **kwargs)

        setattr(S3Response, name, atomic)
    try:
        yield
    finally:
        for name, handler in saved.items():
            setattr(S3Response, name, handler)
