"""Turn plumbing shared by the HTTP routes and the WebSocket: request → TurnInput, waiting, views."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator

from starlette.concurrency import run_in_threadpool

from core.errors import InvalidInput
from core.media.attach import StoredPicture, reattach
from core.media.images import MAX_IMAGES, Upload, prepare_images
from core.reltime import zone
from core.storage.base import Storage
from core.turn.events import TERMINAL_TYPES, Event
from core.turn.service import TurnInput, TurnService, TurnState
from functions.api.schemas import TurnRequest, TurnView

# How long one blocking wait may hold a worker thread before the loop checks in again.
POLL_SECONDS = 1.0


def to_input(req: TurnRequest, storage: Storage, connection_id: str | None = None) -> TurnInput:
    """The TurnService input for a request; InvalidInput for an unknown timezone or a bad picture,
    NotFound for a picture to send again that the slice does not hold (read from `storage`)."""
    found = zone(req.timezone)
    if found is None:
        raise InvalidInput(f'Unknown timezone "{req.timezone}". Send an IANA name such as Europe/Lisbon.')
    uploads = [Upload.from_base64(a.name, a.data) for a in req.attachments]
    again = [StoredPicture(p.slice_id, p.file, p.name) for p in req.reattach]
    if len(uploads) + len(again) > MAX_IMAGES:
        raise InvalidInput(f"A message can carry at most {MAX_IMAGES} pictures; remove some.")
    return TurnInput(
        message=req.message,
        timezone=found.key,
        client_slice_id=req.client.slice_id,
        agent_turns_seen=req.client.agent_turns_seen,
        model=req.model,
        thinking=req.thinking,
        effort=req.effort,
        locale=req.locale,
        connection_id=connection_id,
        attachments=(*(reattach(storage.snapshot(), again) if again else ()), *prepare_images(uploads)),
    )


def view(state: TurnState) -> TurnView:
    """The wire form of a turn's state."""
    status = state.status if state.status in ("running", "done", "interrupted", "error") else "running"
    return TurnView(
        turn_id=state.turn_id,
        status=status,  # type: ignore[arg-type]
        events=list(state.events),
        reply=state.reply,
        slice_id=state.slice_id,
    )


async def follow(turns: TurnService, turn_id: str, after: int, timeout: float) -> AsyncIterator[Event]:
    """Yield the turn's events with seq > after as they arrive, up to its terminal event.

    Bookkeeping the runner records after `turn.done` (the best-effort after step) is left to
    `GET /api/turns/{id}`; a live stream ends where the turn ends for the user.
    """
    deadline = time.monotonic() + timeout
    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return
        state = await run_in_threadpool(turns.wait, turn_id, after, min(POLL_SECONDS, remaining))
        for event in state.events:
            if event["seq"] > after:
                after = event["seq"]
                yield event
                if event["type"] in TERMINAL_TYPES:
                    return
        if state.status != "running":
            return


async def wait_until_done(turns: TurnService, turn_id: str, timeout: float) -> TurnState | None:
    """The finished turn (every event) if it ends within `timeout` seconds, else None."""
    async for _ in follow(turns, turn_id, 0, timeout):
        pass
    state = await run_in_threadpool(turns.state, turn_id, 0)
    return state if state.status != "running" else None
