"""Start a turn and read it back: `POST /api/turns` (202, or 200 with `?wait=`), `GET /api/turns/{id}`."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query
from fastapi.responses import JSONResponse
from starlette.concurrency import run_in_threadpool

from functions.api.common import AUTH, MUTATION, DepsDep
from functions.api.id_params import TurnIdPath
from functions.api.schemas import ErrorBody, TurnAccepted, TurnRequest, TurnView
from functions.api.turns import to_input, view, wait_until_done

router = APIRouter(tags=["turns"], responses={401: {"model": ErrorBody}})
MAX_WAIT_SECONDS = 25.0


@router.post(
    "/api/turns",
    status_code=202,
    response_model=TurnAccepted,
    dependencies=MUTATION,
    responses={
        200: {"model": TurnView, "description": "The finished turn (with `?wait=`)"},
        403: {"model": ErrorBody},
    },
)
async def start_turn(
    req: TurnRequest,
    deps: DepsDep,
    wait: Annotated[float, Query(ge=0, le=MAX_WAIT_SECONDS, description="Seconds to wait for the end")] = 0,
) -> TurnAccepted | JSONResponse:
    """Send a message. The turn runs in the background; follow it by id (GET or the WebSocket)."""
    # Reading pictures to send again (and re-encoding new ones) blocks: off the event loop.
    turn_id = await run_in_threadpool(lambda: deps.turns.start(to_input(req, deps.storage)))
    if wait > 0:
        done = await wait_until_done(deps.turns, turn_id, wait)
        if done is not None:
            return JSONResponse(view(done).model_dump(mode="json"), status_code=200)
    return TurnAccepted(turn_id=turn_id)


@router.post(
    "/api/turns/{turn_id}/cancel",
    status_code=202,
    response_model=TurnAccepted,
    dependencies=MUTATION,
    responses={403: {"model": ErrorBody}, 404: {"model": ErrorBody}},
)
def cancel_turn(turn_id: TurnIdPath, deps: DepsDep) -> TurnAccepted:
    """The stop button: the reply so far is kept, the turn ends `interrupted` (no-op once it ended)."""
    deps.turns.cancel(turn_id)
    return TurnAccepted(turn_id=turn_id)


@router.get(
    "/api/turns/{turn_id}", response_model=TurnView, dependencies=AUTH, responses={404: {"model": ErrorBody}}
)
async def get_turn(
    turn_id: TurnIdPath,
    deps: DepsDep,
    after: Annotated[int, Query(ge=0, description="Only events with a larger seq")] = 0,
    wait: Annotated[
        float, Query(ge=0, le=MAX_WAIT_SECONDS, description="Long-poll: seconds to wait for something new")
    ] = 0,
) -> TurnView:
    """The turn's status, its events after `after`, and the reply once it is known."""
    state = await run_in_threadpool(deps.turns.state, turn_id, after)
    if wait > 0 and state.status == "running" and not state.events:
        state = await run_in_threadpool(deps.turns.wait, turn_id, after, wait)
    return view(state)
