"""Your memory in your hands: forget a slice or one exchange, edit a slice's marks, export.

`DELETE /api/slices/{id}` and `DELETE /api/slices/{id}/turns/{turn_id}` forget (`GET
…/forget-preview` beside each says what would go); `PATCH /api/slices/{id}` edits focus,
summary, tags, open loops and decisions (recorded as the user's);
`GET /api/slices/{id}/markdown` downloads one slice; `GET /api/export` the whole memory as a zip;
`POST /api/slices/{id}/turns/{turn_id}/retract` takes the last exchange back to answer it again;
`GET /api/slices/{id}/images/{name}` serves a picture attached to one of its turns.
"""

from __future__ import annotations

import hashlib
import io
from dataclasses import asdict
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Path, Query, Request
from fastapi.responses import Response
from pydantic import BaseModel, Field

from core.actions.edit import SliceChanges, edit_slice_marks
from core.actions.forget import forget
from core.actions.forget_plan import preview_forget
from core.actions.retract import RetractReason, retract_exchange
from core.media.attach import read_image
from core.memory.export import export_zip, slice_markdown
from core.memory.slice.view import read_slice_detail
from functions.api.common import AUTH, MUTATION, DepsDep
from functions.api.id_params import TurnIdPath
from functions.api.routes_memory import SliceId, get_slice
from functions.api.schemas import ErrorBody, SliceView, StoredImage, Strict


class RetractBody(Strict):
    """Why the exchange is taken back (recorded as a fitness signal): answer again, or an edit."""

    reason: Literal["regenerate", "edit"] = "regenerate"


router = APIRouter(tags=["memory"], responses={401: {"model": ErrorBody}})
TurnId = TurnIdPath
ERRORS: dict[int | str, dict[str, Any]] = {
    400: {"model": ErrorBody},
    403: {"model": ErrorBody},
    404: {"model": ErrorBody},
    409: {"model": ErrorBody},
    422: {"model": ErrorBody},
}
_Item = Annotated[str, Field(max_length=1000)]


class ForgetResult(BaseModel):
    """What forgetting removed; `history_note` says where the old files still are."""

    slice_id: str
    turn_id: str | None
    whole_slice: bool
    message: str = Field(description="The commit message: it names what went, never its words")
    deleted: list[str]
    changed: list[str]
    card_entries_removed: int
    card_refs_dropped: int
    history_note: str


class ForgetPreviewView(BaseModel):
    """What a forget would delete, before anything is written (the words the CLI asks with)."""

    slice_id: str
    turn_id: str | None
    whole_slice: bool = Field(description="true when the whole slice goes (asked for, or its last exchange)")
    text: str = Field(description="what will go, in words a person can check")
    pictures: list[str] = Field(description="the picture files that go, inside the slice folder")
    taken_back: bool = Field(description="answered again or edited: the exchange's words are in agent.md")


class RetractResult(BaseModel):
    """The exchange taken back (kept in agent.md); send `message`, or your edit of it, as a new turn."""

    slice_id: str
    turn_id: str
    message: str = Field(description="your words (without the picture links)")
    had_reply: bool
    pictures: list[StoredImage] = Field(
        default_factory=list, description="the pictures that were attached: send them again as `reattach`"
    )


class SlicePatch(Strict):
    """`PATCH /api/slices/{id}`: only the fields sent change; the turns never do."""

    focus: str | None = Field(default=None, max_length=300)
    summary: str | None = Field(default=None, max_length=4000)
    tags: list[Annotated[str, Field(max_length=80)]] | None = Field(default=None, max_length=50)
    open_loops: list[_Item] | None = Field(default=None, max_length=50)
    decisions: list[_Item] | None = Field(default=None, max_length=50)
    done_loops: list[_Item] | None = Field(
        default=None, max_length=50, description="Open loops to mark done (sent exactly as listed)"
    )


@router.delete("/api/slices/{slice_id}", response_model=ForgetResult, dependencies=MUTATION, responses=ERRORS)
def forget_slice(slice_id: SliceId, deps: DepsDep) -> ForgetResult:
    """Forget a slice from every current file, in one commit (git history still holds it)."""
    return ForgetResult.model_validate(forget(deps.storage, slice_id, deps.clock).as_dict())


@router.delete(
    "/api/slices/{slice_id}/turns/{turn_id}",
    response_model=ForgetResult,
    dependencies=MUTATION,
    responses=ERRORS,
)
def forget_turn(slice_id: SliceId, turn_id: TurnId, deps: DepsDep) -> ForgetResult:
    """Forget one exchange (your message and its reply) and its cognition, in one commit."""
    return ForgetResult.model_validate(forget(deps.storage, slice_id, deps.clock, turn_id=turn_id).as_dict())


@router.get(
    "/api/slices/{slice_id}/forget-preview",
    response_model=ForgetPreviewView,
    dependencies=AUTH,
    responses=ERRORS,
)
def forget_slice_preview(slice_id: SliceId, deps: DepsDep) -> ForgetPreviewView:
    """What `DELETE /api/slices/{slice_id}` would forget; writes nothing."""
    return _preview(deps, slice_id, None)


@router.get(
    "/api/slices/{slice_id}/turns/{turn_id}/forget-preview",
    response_model=ForgetPreviewView,
    dependencies=AUTH,
    responses=ERRORS,
)
def forget_turn_preview(slice_id: SliceId, turn_id: TurnId, deps: DepsDep) -> ForgetPreviewView:
    """What `DELETE /api/slices/{slice_id}/turns/{turn_id}` would forget — also of an exchange
    taken back by Answer again or Edit; writes nothing."""
    return _preview(deps, slice_id, turn_id)


def _preview(deps: DepsDep, slice_id: str, turn_id: str | None) -> ForgetPreviewView:
    preview = preview_forget(deps.storage.snapshot(), slice_id, turn_id)
    return ForgetPreviewView.model_validate(asdict(preview))


@router.post(
    "/api/slices/{slice_id}/turns/{turn_id}/retract",
    response_model=RetractResult,
    dependencies=MUTATION,
    responses=ERRORS,
)
def retract(
    slice_id: SliceId, turn_id: TurnId, deps: DepsDep, body: RetractBody | None = None
) -> RetractResult:
    """Take the open slice's last exchange back (regenerate, or edit and resend): it leaves core.md
    and is kept word for word in agent.md."""
    why: RetractReason = "message_edited" if body is not None and body.reason == "edit" else "regenerate"
    taken = retract_exchange(deps.storage, slice_id, turn_id, deps.clock, why)
    pictures = [StoredImage(slice_id=p.slice_id, file=p.file, name=p.name) for p in taken.pictures]
    return RetractResult(
        slice_id=taken.slice_id,
        turn_id=taken.turn_id,
        message=taken.message,
        had_reply=taken.had_reply,
        pictures=pictures,
    )


@router.patch("/api/slices/{slice_id}", response_model=SliceView, dependencies=MUTATION, responses=ERRORS)
def edit_slice(slice_id: SliceId, body: SlicePatch, deps: DepsDep) -> SliceView:
    """Change a slice's marks; recorded as `marked_by: user`, so no later pass overwrites them."""
    edit_slice_marks(deps.storage, slice_id, SliceChanges(**body.model_dump()), deps.clock)
    return get_slice(slice_id, deps)


@router.get("/api/slices/{slice_id}/markdown", dependencies=AUTH, responses={404: {"model": ErrorBody}})
def slice_as_markdown(slice_id: SliceId, deps: DepsDep) -> Response:
    """One slice as a Markdown file (a download)."""
    text = slice_markdown(read_slice_detail(deps.storage.snapshot(), slice_id))
    return Response(
        text,
        media_type="text/markdown; charset=utf-8",
        headers={"Content-Disposition": f'attachment; filename="slice-{slice_id}.md"'},
    )


@router.get("/api/slices/{slice_id}/images/{name}", dependencies=AUTH, responses={404: {"model": ErrorBody}})
def slice_image(
    slice_id: SliceId,
    name: Annotated[str, Path(max_length=80, description="<turn id>-<n>.<ext>")],
    deps: DepsDep,
    request: Request,
) -> Response:
    """A picture attached to a turn of the slice (the one core.md links as ../images/<name>).

    The browser keeps it but asks again on every use (a 304 by its ETag while it is unchanged),
    so a forgotten picture is gone from the page at once, not a day later."""
    data, media_type = read_image(deps.storage.snapshot(), slice_id, name)
    headers = {"Cache-Control": PICTURE_CACHE, "ETag": '"' + hashlib.sha256(data).hexdigest()[:32] + '"'}
    if headers["ETag"] in request.headers.get("if-none-match", ""):
        return Response(status_code=304, headers=headers)
    return Response(data, media_type=media_type, headers=headers)


# Kept by this browser only, revalidated each time: pictures are the user's memory and can be forgotten.
PICTURE_CACHE = "private, no-cache"


@router.get("/api/export", dependencies=AUTH)
def export(
    deps: DepsDep,
    search: Annotated[bool, Query(description="Include the derived search index")] = False,
) -> Response:
    """Every file under memory/ as a zip, byte for byte (the search index is rebuildable)."""
    buffer = io.BytesIO()
    report = export_zip(deps.storage.snapshot(), buffer, include_search=search)
    stamp = deps.clock.now().strftime("%Y-%m-%d")
    return Response(
        buffer.getvalue(),
        media_type="application/zip",
        headers={
            "Content-Disposition": f'attachment; filename="previously-memory-{stamp}.zip"',
            "X-Export-Files": str(report.files),
            "X-Export-Skipped": str(len(report.skipped)),
        },
    )
