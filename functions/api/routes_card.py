"""The user card: read it, edit or delete one entry, undo the last change (docs/API.md "The user card")."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Path, Query

from core.memory.card.edit import numbered_entries
from core.memory.card.store import delete_card_entry, edit_card_entry, read_card, undo_card
from core.reltime import local_date_key
from core.storage.base import WriteBatch
from functions.api.common import AUTH, MUTATION, DepsDep, checked_timezone
from functions.api.schemas import CardEntry, CardEntryPatch, CardView, ErrorBody
from functions.deps import Deps

router = APIRouter(tags=["card"], responses={401: {"model": ErrorBody}})
Section = Annotated[
    str, Path(max_length=20, description="identity, past, anchor, now, horizon, self_model, unsorted")
]
Position = Annotated[int, Path(ge=1, le=100, description="1-based, as `previously card show` numbers it")]
Tz = Annotated[str | None, Query(max_length=64, description="The user's IANA timezone (for the flags)")]
ENTRY_ERRORS: dict[int | str, dict[str, Any]] = {
    400: {"model": ErrorBody},
    403: {"model": ErrorBody},
    404: {"model": ErrorBody},
    409: {"model": ErrorBody},
}


def card_view(deps: Deps, tz: str | None = None) -> CardView:
    """The card as stored now, with its entries numbered and flagged for the user's today."""
    stored = read_card(deps.storage.snapshot())
    now = deps.clock.now()
    today = local_date_key(now, checked_timezone(tz))
    if stored.text is None:
        return CardView(markdown="", entries=[], updated=None, can_undo=stored.can_undo)
    card = stored.card(now)
    entries = [
        CardEntry.model_validate(
            {"section": e.section, "n": e.n, "text": e.text, "refs": e.refs}
            | {"since": e.since, "by": e.by or None, "flag": e.flag}
        )
        for e in numbered_entries(card, today)
    ]
    return CardView(
        markdown=stored.text, entries=entries, updated=card.updated or None, can_undo=stored.can_undo
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
    batch = WriteBatch.open(deps.storage)
    _, message = edit_card_entry(batch, section, n, body.text, deps.clock.now())
    batch.commit(message)
    return card_view(deps, tz)


@router.delete(
    "/api/card/entries/{section}/{n}", response_model=CardView, dependencies=MUTATION, responses=ENTRY_ERRORS
)
def delete_entry(section: Section, n: Position, deps: DepsDep, tz: Tz = None) -> CardView:
    """Remove one entry; every other entry stays as it is. Undo with POST /api/card/undo."""
    batch = WriteBatch.open(deps.storage)
    _, message = delete_card_entry(batch, section, n, deps.clock.now())
    batch.commit(message)
    return card_view(deps, tz)


@router.post("/api/card/undo", response_model=CardView, dependencies=MUTATION, responses=ENTRY_ERRORS)
def undo(deps: DepsDep, tz: Tz = None) -> CardView:
    """Go back to the card before its last change (a second undo re-applies the change)."""
    batch = WriteBatch.open(deps.storage)
    write = undo_card(batch)
    batch.commit(write.message)
    return card_view(deps, tz)
