"""The demo's personas: which ones the page can switch between, and which one this request sees.

A request names its persona with `?persona=ID` or the `previously_persona` cookie the page's
picker sets (functions/compose/demo.py `DemoCast.pick`); every other route then reads and writes that
persona's memory. Outside a demo with several personas the list is empty.
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from pydantic import BaseModel, Field

from core.memory.card.identity import parse_identity
from core.memory.card.store import read_card
from core.memory.catalog.index import read_index
from core.storage.base import Snapshot
from core.storage.demo import Persona
from functions.api.common import AUTH
from functions.api.schemas import ErrorBody
from functions.compose.demo import PERSONA_COOKIE, PERSONA_PARAM
from functions.compose.deps import Deps

router = APIRouter(tags=["demo"], responses={401: {"model": ErrorBody}, 400: {"model": ErrorBody}})


class PersonaOut(BaseModel):
    """One persona as the picker shows it."""

    id: str
    name: str = Field(description="the name on the persona's card (its id when the card has none)")
    blurb: dict[str, str] = Field(description="one line about the persona per UI locale (en, zh)")
    slice_count: int
    first: str | None = Field(description="the oldest slice's UTC date, YYYY-MM-DD")
    last: str | None = Field(description="the newest slice's UTC date, YYYY-MM-DD")


class PersonasView(BaseModel):
    """Every persona of the demo (empty outside one), and the one this request reads."""

    current: str | None
    cookie: str = Field(description="the cookie that remembers the choice: set it to an id, then reload")
    personas: list[PersonaOut]


def _describe(persona: Persona, view: Snapshot) -> PersonaOut:
    """The persona's name from its card and its span from its catalog (with this process's writes)."""
    card = read_card(view).text
    profile = parse_identity(card) if card else None
    index = read_index(view) or {}
    ids = sorted(str(e.get("id", "")) for e in index.get("slices", []))
    return PersonaOut(
        id=persona.id,
        name=(profile.name or profile.address_as or persona.id) if profile else persona.id,
        blurb=dict(persona.blurb),
        slice_count=len(ids),
        first=ids[0][:10] if ids else None,
        last=ids[-1][:10] if ids else None,
    )


@router.get("/api/demo/personas", dependencies=AUTH, response_model=PersonasView)
def get_personas(request: Request) -> PersonasView:
    """The personas the demo's picker offers; an unknown `?persona=` is a 400 naming the known ones."""
    deps: Deps = request.app.state.deps
    if deps.cast is None:
        return PersonasView(current=None, cookie=PERSONA_COOKIE, personas=[])
    current, _ = deps.cast.pick(request.query_params.get(PERSONA_PARAM), request.cookies.get(PERSONA_COOKIE))
    personas = [_describe(p, deps.cast.deps[p.id].storage.snapshot()) for p in deps.cast.personas]
    return PersonasView(current=current, cookie=PERSONA_COOKIE, personas=personas)
