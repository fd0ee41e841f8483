"""The user card: read it, edit or delete one entry, undo, redo, list and restore its versions
(docs/API.md "The user card")."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Path, Query

from core.clock import iso
from core.memory.card import history, user_edits
from core.memory.card.edit import numbered_entries
from core.memory.card.store import read_card
from core.reltime import local_date_key
from functions.api.common import AUTH, MUTATION, DepsDep, checked_timezone
from functions.api.schemas import CardEntry, CardEntryPatch, CardHistoryView, CardVersion, CardView, ErrorBody
from functions.compose.deps import Deps

router = APIRouter(tags=["card"], responses={401: {"model": ErrorBody}})
Section = Annotated[
    str, Path(max_length=20, description="identity, past, anchor, now, horizon, self_model, unsorted")
]
Position = Annotated[int, Path(ge=1, le=100, description="1-based, as `previously card show` numbers it")]
VersionId = Annotated[
    str, Path(max_length=64, pattern=r"^(prev|[0-9]{6,}-[0-9]{8}T[0-9]{6}Z-[a-z]+-[0-9a-f]{8})$")
]
Limit = Annotated[int, Query(ge=1, le=100, description="How many earlier versions to list (newest first)")]
Tz = Annotated[str | None, Query(max_length=64, description="The user's IANA timezone (for the flags)")]
ENTRY_ERRORS: dict[int | str, dict[str, Any]] = {
    400: {"model": ErrorBody},
    403: {"model": ErrorBody},
    404: {"model": ErrorBody},
    409: {"model": ErrorBody},
}


def card_view(deps: Deps, tz: str | None = None) -> CardView:
    """The card as stored now, with its entries numbered and flagged for the user's today."""
    view = deps.storage.snapshot()
    stored = read_card(view)
    can_undo, can_redo = history.undo_redo(view)
    now = deps.clock.now()
    today = local_date_key(now, checked_timezone(tz))
    if stored.text is None:
        return CardView(markdown="", entries=[], updated=None, can_undo=can_undo, can_redo=can_redo)
    card = stored.card(now)
    entries = [
        CardEntry.model_validate(
            {"section": e.section, "n": e.n, "text": e.text, "refs": e.refs}
            | {"since": e.since, "by": e.by or None, "flag": e.flag}
        )
        for e in numbered_entries(card, today)
    ]
    return CardView(
        markdown=stored.text,
        entries=entries,
        updated=card.updated or None,
        can_undo=can_undo,
        can_redo=can_redo,
    )


@router.get("/api/card", response_model=CardView, dependencies=AUTH)
def get_card(deps: DepsDep, tz: Tz = None) -> CardView:
    """The live user card: its Markdown and every entry, numbered per section."""
    return card_view(deps, tz)


@router.patch(
    "/api/card/entries/{section}/{n}", response_model=CardView, dependencies=MUTATION, responses=ENTRY_ERRORS
)
def edit_entry(section: Section, n: Position, body: CardEntryPatch, deps: DepsDep, tz: Tz = None) -> CardView:
    """Replace one entry's text; every other entry stays as it is. Undo with POST /api/card/undo."""
    user_edits.edit_entry(deps.storage, section, n, body.text, deps.clock.now())
    return card_view(deps, tz)


@router.delete(
    "/api/card/entries/{section}/{n}", response_model=CardView, dependencies=MUTATION, responses=ENTRY_ERRORS
)
def delete_entry(section: Section, n: Position, deps: DepsDep, tz: Tz = None) -> CardView:
    """Remove one entry; every other entry stays as it is. Undo with POST /api/card/undo."""
    user_edits.remove_entry(deps.storage, section, n, deps.clock.now())
    return card_view(deps, tz)


@router.post("/api/card/undo", response_model=CardView, dependencies=MUTATION, responses=ENTRY_ERRORS)
def undo(deps: DepsDep, tz: Tz = None) -> CardView:
    """Step back to the card before its last change; each undo steps one change further back."""
    user_edits.undo(deps.storage, deps.clock.now())
    return card_view(deps, tz)


@router.post("/api/card/redo", response_model=CardView, dependencies=MUTATION, responses=ENTRY_ERRORS)
def redo(deps: DepsDep, tz: Tz = None) -> CardView:
    """Step forward again over the last undo (404 when no undo waits to be redone)."""
    user_edits.redo(deps.storage, deps.clock.now())
    return card_view(deps, tz)


@router.get("/api/card/history", response_model=CardHistoryView, dependencies=AUTH)
def get_history(deps: DepsDep, limit: Limit = 30) -> CardHistoryView:
    """The live card and its newest earlier versions: when, by what, and what changed."""
    view = deps.storage.snapshot()
    found = history.history(view, read_card(view).text, limit)
    undo_to, redo_to = found.undo_to, found.redo_to
    return CardHistoryView(
        versions=[_version(r) for r in found.rows],
        total=found.total,
        can_undo=undo_to is not None,
        can_redo=redo_to is not None,
        undo_to=undo_to,
        redo_to=redo_to,
    )


def _version(row: history.Row) -> CardVersion:
    return CardVersion.model_validate(
        {"id": row.id, "at": iso(row.made_at) if row.made_at else None, "by": row.made_by}
        | {"added": row.added, "removed": row.removed, "readable": row.readable}
        | {"sample": {"type": row.sample.type, "text": row.sample.text} if row.sample else None}
    )


@router.post(
    "/api/card/history/{version_id}/restore",
    response_model=CardView,
    dependencies=MUTATION,
    responses=ENTRY_ERRORS,
)
def restore(version_id: VersionId, deps: DepsDep, tz: Tz = None) -> CardView:
    """Make an earlier version the live card; the card it replaces is kept, so this can be undone."""
    user_edits.restore(deps.storage, version_id, deps.clock.now())
    return card_view(deps, tz)
