"""A scripted turn stream at the protocol level (API.md §3–4), for rendering tests.

The page talks to the real `previously serve` for everything else; only the turn's transport —
`WS /api/ws`, `GET /api/turns/{id}`, `POST /api/turns`, `POST /api/turns/{id}/cancel` — is
answered here from a fixed script, so every event type and all five tool states appear without a
model. A script is a list of events (a `tool.call` without a label gets the one the server would
give it); the string "PAUSE" holds the rest until `release()`.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from playwright.sync_api import Page, Route, WebSocketRoute

from core.turn.labels import tool_label

PAUSE = "PAUSE"
TURN_ID = "turnscripted1"
SLICE_ID = "2026-11-30-1200"
PAGE_ZONE = "Europe/London"  # the browser's zone in these tests (conftest.py)

REPLY = (
    "## The plan\n\n"
    "Two things, in this order:\n\n"
    "1. Book the flights on **Saturday**\n"
    "2. Check the visa rules\n\n"
    "| Item | When |\n|---|---|\n| Flights | Saturday |\n| Visa | Sunday |\n\n"
    "Use `fares.csv` for the budget:\n\n"
    "```python\nprint('£1,000 per ticket')\n```\n\n"
    "See [the embassy](https://example.org/visa). "
    '<script>window.__xss = 1</script><img src=x onerror="window.__xss = 2">'
)


def _event(seq: int, type_: str, step: str = "agent", attempt: int = 1, **fields: Any) -> dict[str, Any]:
    if type_ == "tool.call" and not fields.get("label"):
        fields = {**fields, "label": server_label(fields)}
    return {"turn_id": TURN_ID, "seq": seq, "type": type_, "step": step, "attempt": attempt, **fields}


def server_label(fields: dict[str, Any], locale: str = "en") -> str:
    """The label the server would put on this `tool.call` event (the page's zone: Europe/London)."""
    return tool_label(
        fields["tool"],
        fields.get("input"),
        fields["state"],
        locale,
        timezone=PAGE_ZONE,
        output=fields.get("output"),
    )


def full_script(paused: bool = False) -> list[Any]:
    """Every event type, every tool state, a recall with hits and a reply in Markdown."""
    rows: list[tuple[str, str, dict[str, Any]]] = [
        (
            "turn.started",
            "prepare",
            {"slice_id": SLICE_ID, "slice_opened": True, "slice_closed": None, "user_turn_id": "u1"},
        ),
        ("step.started", "prepare", {"label": "Opening the slice"}),
        ("step.done", "prepare", {"label": "Slice ready"}),
        ("step.started", "context", {"label": "Reading the timeline"}),
        ("step.done", "context", {"label": "Timeline read"}),
        (
            "card.evolved",
            "evolve",
            {
                "summary": "Flights moved from Horizon to Now.",
                "diff": "@@ -1 +1 @@\n-- Book the flights\n+- Flights booked for 9 January\n",
            },
        ),
        ("reasoning.delta", "agent", {"text": "She is asking about the flights.\n"}),
        ("reasoning.delta", "agent", {"text": "Look back at the budget slice first."}),
        (
            "tool.call",
            "agent",
            {
                "call_id": "r1",
                "tool": "recall",
                "label": "",
                "state": "running",
                "input": {"query": "flights"},
            },
        ),
        ("recall.progress", "agent", {"call_id": "r1", "label": "Tracing strand: chengdu-trip"}),
        (
            "recall.hits",
            "agent",
            {
                "call_id": "r1",
                "query": "flights",
                "hits": [
                    {
                        "slice_id": "2026-11-21-1040",
                        "relevance": 0.92,
                        "reason": "The fare ceiling was set here",
                    },
                    {
                        "slice_id": "2026-07-30-1920",
                        "relevance": 0.71,
                        "reason": "The trip dates were agreed",
                    },
                ],
                "recommended": [{"slice_id": "2026-11-21-1040", "priority": "high", "why": "the budget"}],
                "confidence": 0.88,
            },
        ),
        (
            "tool.call",
            "agent",
            {
                "call_id": "r1",
                "tool": "recall",
                "label": "",
                "state": "completed",
                "input": {"query": "flights"},
                "output": "2 hits",
            },
        ),
        (
            "tool.call",
            "agent",
            {
                "call_id": "t1",
                "tool": "readSlice",
                "label": "",
                "state": "running",
                "input": {"sliceId": "2026-07-25-1330", "range": {"type": "last"}},
            },
        ),
        (
            "tool.call",
            "agent",
            {
                "call_id": "t1",
                "tool": "readSlice",
                "label": "",
                "state": "completed",
                "input": {"sliceId": "2026-07-25-1330", "range": {"type": "last"}},
                "output": "focus: the trip",
            },
        ),
        (
            "tool.call",
            "agent",
            {
                "call_id": "t2",
                "tool": "readTimelineWindow",
                "label": "",
                "state": "completed",
                "input": {"from": "2026-07-01", "to": "2026-07-31"},
                "output": "3 slices",
            },
        ),
        (
            "tool.call",
            "agent",
            {
                "call_id": "t3",
                "tool": "webFetch",
                "label": "",
                "state": "error",
                "input": {"url": "https://example.org/fares"},
                "output": "ERROR: HTTP 500 Internal Server Error",
            },
        ),
        (
            "tool.call",
            "agent",
            {
                "call_id": "t4",
                "tool": "webSearch",
                "label": "",
                "state": "denied",
                "input": {"query": "cheap flights"},
                "output": "web search is off in this deployment",
            },
        ),
        (
            "tool.call",
            "agent",
            {
                "call_id": "t5",
                "tool": "readSliceSummary",
                "label": "",
                "state": "running",
                "input": {"sliceId": "2026-11-26-2010"},
            },
        ),
    ]
    events: list[Any] = [_event(i + 1, t, step, **f) for i, (t, step, f) in enumerate(rows)]
    if paused:
        events.append(PAUSE)
    seq = len(rows)
    for i in range(0, len(REPLY), 40):
        seq += 1
        events.append(_event(seq, "text.delta", text=REPLY[i : i + 40]))
    events.append(
        _event(
            seq + 1,
            "turn.done",
            "finish",
            status="done",
            agent_turn_id="a1",
            usage={"input": 10, "output": 20},
        )
    )
    return events


def reply_script(reply: str) -> list[Any]:
    """A turn that only writes `reply` (in pieces, as a model streams it)."""
    start = {"slice_id": SLICE_ID, "slice_opened": True, "slice_closed": None, "user_turn_id": "u1"}
    events: list[Any] = [_event(1, "turn.started", "prepare", **start)]
    for i in range(0, len(reply), 40):
        events.append(_event(len(events) + 1, "text.delta", text=reply[i : i + 40]))
    done = {"status": "done", "agent_turn_id": "a1", "usage": {"input": 10, "output": 20}}
    events.append(_event(len(events) + 1, "turn.done", "finish", **done))
    return events


def closing_script() -> list[Any]:
    """A turn whose save closed the previous slice: the reply and `turn.done` first, then (held
    until `release()`) the close passes, the card pass's `card.evolved` among them."""
    closed = "2026-11-29-0900"
    start = {"slice_id": SLICE_ID, "slice_opened": True, "slice_closed": closed, "user_turn_id": "u1"}
    rows: list[tuple[str, str, dict[str, Any]]] = [
        ("turn.started", "save", start),
        ("text.delta", "respond", {"text": "Noted: the flights are booked."}),
        ("turn.done", "finalize", {"status": "done", "agent_turn_id": "a1"}),
        ("step.done", "finalize", {}),
        ("step.started", "close", {"label": "Closing the last slice"}),
        ("step.done", "close", {}),
        ("step.started", "evolve", {"label": "Updating your card"}),
        ("card.evolved", "evolve", {"summary": "Flights moved to Now.", "diff": "+- Flights booked\n"}),
        ("step.done", "evolve", {}),
        ("step.started", "after", {}),
        ("step.done", "after", {}),
    ]
    events: list[Any] = [_event(n, type_, step, **fields) for n, (type_, step, fields) in enumerate(rows, 1)]
    events.insert(4, PAUSE)
    return events


def error_script() -> list[Any]:
    """A turn the server gives up on."""
    return [
        _event(
            1,
            "turn.started",
            "prepare",
            slice_id=SLICE_ID,
            slice_opened=False,
            slice_closed=None,
            user_turn_id="u1",
        ),
        _event(
            2,
            "turn.error",
            "agent",
            code="model_error",
            message="The model provider refused the request.\nHTTP 429: slow down.",
        ),
    ]


@dataclass
class ScriptedTurns:
    """Answers the page's turn traffic from a script; records what the page sent."""

    script: list[Any]
    sent: list[dict[str, Any]] = field(default_factory=list)
    cancels: list[str] = field(default_factory=list)
    released: int = 0
    sockets: list[WebSocketRoute] = field(default_factory=list)
    http_status: int | None = None  # answer POST /api/turns with this error status instead

    def _chunks(self) -> list[list[dict[str, Any]]]:
        chunks: list[list[dict[str, Any]]] = [[]]
        for item in self.script:
            if item == PAUSE:
                chunks.append([])
            else:
                chunks[-1].append(item)
        return chunks

    def visible(self) -> list[dict[str, Any]]:
        """The events released so far."""
        return [e for chunk in self._chunks()[: self.released + 1] for e in chunk]

    @property
    def finished(self) -> bool:
        return self.released >= len(self._chunks()) - 1

    def _send(self, ws: WebSocketRoute, events: list[dict[str, Any]]) -> None:
        for event in events:
            ws.send(json.dumps(event))

    def _on_message(self, ws: WebSocketRoute, message: str | bytes) -> None:
        data = json.loads(message)
        self.sent.append(data)
        if data.get("action") == "turn.start":
            ws.send(json.dumps({"type": "turn.accepted", "turn_id": TURN_ID}))
            self._send(ws, self.visible())
        elif data.get("action") == "turn.follow":
            self._send(ws, [e for e in self.visible() if e["seq"] > int(data.get("after", 0))])

    def _on_socket(self, ws: WebSocketRoute) -> None:
        self.sockets.append(ws)
        ws.on_message(lambda message: self._on_message(ws, message))
        ws.on_close(lambda *_: ws in self.sockets and self.sockets.remove(ws))

    def _on_http(self, route: Route) -> None:
        request = route.request
        path = request.url.split("://", 1)[1].split("/", 1)[1]
        if request.method == "POST" and re.fullmatch(r"api/turns/[^/]+/cancel", path):
            self.cancels.append(path.split("/")[2])
            route.fulfill(status=202, json={"ok": True})
        elif request.method == "POST" and path.startswith("api/turns"):
            self.sent.append({"action": "POST", **(request.post_data_json or {})})
            if self.http_status:
                route.fulfill(
                    status=self.http_status, json={"error": "internal", "message": "The server broke."}
                )
            else:
                route.fulfill(status=202, json={"turn_id": TURN_ID})
        else:
            after = int(re.search(r"after=(\d+)", path).group(1)) if "after=" in path else 0
            status = "done" if self.finished else "running"
            events = [e for e in self.visible() if e["seq"] > after]
            route.fulfill(json={"turn_id": TURN_ID, "status": status, "events": events, "reply": None})

    def install(self, page: Page, websocket: bool = True) -> ScriptedTurns:
        """Route the page's turn traffic here (before it loads). Without `websocket` the page has no
        WebSocket at all and must use HTTP."""
        if websocket:
            page.route_web_socket(re.compile(r".*/api/ws$"), self._on_socket)
        else:
            page.add_init_script("delete window.WebSocket;")
        page.route(re.compile(r".*/api/turns(/.*)?(\?.*)?$"), self._on_http)
        return self

    def release(self) -> None:
        """Send the next chunk of the script to every open socket."""
        self.released += 1
        chunk = self._chunks()[self.released]
        for ws in self.sockets:
            self._send(ws, chunk)

    def starts(self) -> list[dict[str, Any]]:
        """The turn requests the page made (WebSocket starts and HTTP POSTs)."""
        return [s for s in self.sent if s.get("action") in ("turn.start", "POST")]
