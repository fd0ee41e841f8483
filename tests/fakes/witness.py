"""A witness on the fake model server: at every model request, the user's words must be on disk.

    witness = Witness(memory_root).watch(fake_models)
    witness.expect("I planted tomatoes.")        # before sending the message
    ... run turns ...
    assert witness.violations == []

Every request (analyzer, recall scan, main model …) whose body carries an expected message is
checked against the memory folder as it is at that instant: some slice's core.md must already
hold the message. The witness also counts how many requests are in flight at once (a model
call held under a process-wide lock would keep that at 1). Built on the server's `_record`, so
scripted replies, the Brain and the responders work unchanged.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from tests.fakes.fake_model_server import FakeModelServer, RecordedRequest


@dataclass
class Witness:
    """Checks the memory folder at every model request."""

    root: Path  # the memory root (the folder holding memory/)
    delay: float = 0.0  # seconds each request is held, to make overlap visible
    expected: list[str] = field(default_factory=list)
    violations: list[str] = field(default_factory=list)
    checked: int = 0
    in_flight: int = 0
    max_in_flight: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def watch(self, fake: FakeModelServer) -> Witness:
        record = fake._record

        def witnessed(request: RecordedRequest) -> None:
            self.see(request)
            record(request)

        fake._record = witnessed  # type: ignore[method-assign]
        return self

    def expect(self, message: str) -> None:
        with self._lock:
            self.expected.append(message)

    def see(self, request: RecordedRequest) -> None:
        """Check one request (called on the server's thread before it answers)."""
        if request.method != "POST":
            return
        body = json.dumps(request.json, ensure_ascii=False)
        with self._lock:
            carried = [m for m in self.expected if _carried(m, body)]
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            on_disk = self._slice_texts()
            for message in carried:
                self.checked += 1
                if not any(message in text for text in on_disk):
                    self.violations.append(f"model called before {message!r} was saved")
            if self.delay:
                time.sleep(self.delay)
        finally:
            with self._lock:
                self.in_flight -= 1

    def _slice_texts(self) -> list[str]:
        slices = self.root / "memory"
        texts = []
        for path in slices.rglob("core.md"):
            try:
                texts.append(path.read_text(encoding="utf-8"))
            except OSError:
                continue
        return texts


def _carried(message: str, body: str) -> bool:
    """Whether a request body (JSON text) carries the message (as JSON escapes it)."""
    return json.dumps(message, ensure_ascii=False)[1:-1] in body
