"""`WS /api/ws`: start a turn or follow one, and receive its events as they happen.

Client → server (JSON text): `{"action": "turn.start", …the POST /api/turns body…}`,
`{"action": "turn.follow", "turn_id": …, "after": SEQ}` (resume after a reconnect: exactly
the events after SEQ), or `{"action": "turn.cancel", "turn_id": …}` (the stop button).
Server → client: the turn's events (docs/API.md "A turn's events"), plus
`{"type": "turn.accepted", "turn_id"}` after a start and `{"type": "error", "error", "message"}`
for a refused message (the connection stays open). Authenticated at connect, like every route.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from typing import Any

from fastapi import APIRouter, WebSocket, WebSocketDisconnect
from starlette.concurrency import run_in_threadpool

from core.errors import InvalidInput, PreviouslyError
from functions.api.common import request_deps
from functions.api.errors import ApiError
from functions.api.schemas import WsFollow, WsStart
from functions.api.turns import follow, to_input
from functions.api.ws_protocol import WsRefusal, parse_action
from functions.compose.deps import Deps

router = APIRouter()
log = logging.getLogger("previously.api")
FOLLOW_SECONDS = 3600.0
_POLICY_VIOLATION = 1008
BINARY_REFUSED = "Binary frames are not understood here: send each message as JSON text."


class _Connection:
    """One socket: serialised sends and the follow tasks it started."""

    def __init__(self, ws: WebSocket, deps: Deps) -> None:
        self.ws = ws
        self.deps = deps
        self.lock = asyncio.Lock()
        self.tasks: set[asyncio.Task[None]] = set()

    async def send(self, data: dict[str, Any]) -> None:
        async with self.lock:
            await self.ws.send_text(json.dumps(data, ensure_ascii=False))

    async def error(self, code: str, message: str) -> None:
        await self.send({"type": "error", "error": code, "message": message})

    async def stream(self, turn_id: str, after: int) -> None:
        try:
            async for event in follow(self.deps.turns, turn_id, after, FOLLOW_SECONDS):
                await self.send(event)
        except PreviouslyError as exc:
            await self.error(exc.code, str(exc))
        except (WebSocketDisconnect, RuntimeError):
            return

    def spawn(self, turn_id: str, after: int) -> None:
        task = asyncio.create_task(self.stream(turn_id, after))
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def handle(self, text: str) -> None:
        try:
            action = parse_action(text)
        except WsRefusal as refusal:
            await self.error(refusal.code, str(refusal))
            return
        try:
            if isinstance(action, WsStart):
                storage = self.deps.storage
                turn_id = await run_in_threadpool(lambda: self.deps.turns.start(to_input(action, storage)))
                await self.send({"type": "turn.accepted", "turn_id": turn_id})
                self.spawn(turn_id, 0)
            elif isinstance(action, WsFollow):
                await run_in_threadpool(self.deps.turns.state, action.turn_id, action.after)
                self.spawn(action.turn_id, action.after)
            else:
                await run_in_threadpool(self.deps.turns.cancel, action.turn_id)
        except PreviouslyError as exc:
            await self.error(exc.code, str(exc))

    async def close(self) -> None:
        for task in list(self.tasks):
            task.cancel()
        for task in list(self.tasks):
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task


def _admitted(ws: WebSocket, deps: Deps) -> bool:
    # The guard middleware has checked the host and the page's origin before this runs.
    peer = ws.client.host if ws.client else None
    client = deps.security.request_guard.client(ws.headers, peer)
    try:
        deps.security.require(ws.headers, ws.cookies, client)
        deps.security.guard("GET", ws.headers, client, upgrade=True)
    except ApiError:
        return False
    return True


@router.websocket("/api/ws")
async def websocket(ws: WebSocket) -> None:
    """The turn stream (see the module docstring for the messages)."""
    try:  # the persona of a multi-persona demo, as for every other route
        deps = request_deps(ws.app.state.deps, ws, create=True)  # a socket starts turns
    except InvalidInput:
        await ws.close(code=_POLICY_VIOLATION)
        return
    if not _admitted(ws, deps):
        await ws.close(code=_POLICY_VIOLATION)
        return
    await ws.accept()
    conn = _Connection(ws, deps)
    try:
        while True:
            message = await ws.receive()
            if message["type"] == "websocket.disconnect":
                break
            text = message.get("text")
            if text is None:  # a binary frame: say so and keep the connection
                await conn.error("invalid_input", BINARY_REFUSED)
                continue
            await conn.handle(text)
    except WebSocketDisconnect:
        pass
    finally:
        await conn.close()
