"""A responder for the fake model server that answers each caller of a turn in its own way.

A turn makes several model calls in an order that depends on the memory (the analyzer, the
main model's rounds, the consolidator, the slice marker, card evolution…). Scripting one FIFO
queue for all of them is brittle, so `Brain` routes each request by the report tool it
carries: sub-agents get their scripted report (or a neutral default), the main model (no
report tool) gets the next scripted reply. Requests are kept per caller for assertions.

    brain = Brain.install(fake_models)
    brain.main(Reply(text="Hi!"))
    brain.reports["report_turn_analysis"] = analysis(tags=["garden"])
"""

from __future__ import annotations

import threading
from collections import defaultdict, deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from tests.fakes.fake_model_server import FakeModelServer, RecordedRequest, Reply, ToolCall

ANALYZER = "report_turn_analysis"
DIRECTION = "finish_direction"  # the evolution layer's pass (a neutral default changes nothing)
CONSOLIDATOR = "report_strand_merges"
MARKER = "report_slice_marking"
MAIN = "main"

ReportFn = Callable[[RecordedRequest], dict[str, Any] | Reply]


def analysis(tags: list[str] | None = None, *, worthy: bool = True, **extra: Any) -> dict[str, Any]:
    """An analyzer report creating `tags` (plus any extra fields, e.g. closed_marking)."""
    report: dict[str, Any] = {
        "message_tags": {"reuse": [], "create": [{"tag": t, "reason": "topic"} for t in tags or []]},
        "intent": {"type": "chat", "reason": "talk"},
        "memory_worthy": worthy,
        "emotional_signal": {"intensity": "none", "register": "neutral", "note": ""},
    }
    report.update(extra)
    return report


def _report_name(request: RecordedRequest) -> str | None:
    names = request.tool_names
    for name in names:
        if name.startswith("report_") or name in ("finish", "finish_direction", "recallReport"):
            return name
    return None


@dataclass
class Brain:
    """Routes requests: report tools → `reports`, everything else → the `main` queue."""

    reports: dict[str, dict[str, Any] | Reply | ReportFn] = field(default_factory=dict)
    requests: dict[str, list[RecordedRequest]] = field(default_factory=lambda: defaultdict(list))
    _main: deque[Reply] = field(default_factory=deque)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @classmethod
    def install(cls, fake: FakeModelServer) -> Brain:
        """A brain answering every request of `fake`."""
        brain = cls()
        fake.responder = brain
        return brain

    def main(self, *replies: Reply | str) -> Brain:
        """Queue replies of the main model (a string is a text reply)."""
        with self._lock:
            self._main.extend(Reply(text=r) if isinstance(r, str) else r for r in replies)
        return self

    @property
    def pending(self) -> int:
        with self._lock:
            return len(self._main)

    def __call__(self, request: RecordedRequest) -> Reply:
        name = _report_name(request)
        with self._lock:
            self.requests[name or MAIN].append(request)
            if name is None:
                return self._main.popleft() if self._main else Reply(text="(no scripted reply)")
            scripted = self.reports.get(name)
        if callable(scripted):
            scripted = scripted(request)
        if isinstance(scripted, Reply):
            return scripted
        return Reply(tool_calls=[ToolCall(name, scripted or {})])

    def system_prompts(self) -> list[str]:
        """The system prompt of every main-model request, in order (either wire format)."""
        out = []
        for request in self.requests[MAIN]:
            body = request.body
            system = body.get("system")
            if system is None:
                system = next(
                    (m["content"] for m in body.get("messages", []) if m.get("role") == "system"), ""
                )
            if isinstance(system, list):
                system = "".join(part.get("text", "") for part in system)
            out.append(str(system))
        return out
