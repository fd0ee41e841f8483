"""Read the memory — state (arrival briefing), timeline, one slice, search, strands — and flush.

Every read goes through a fresh storage snapshot, so a request sees one consistent version.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Query, Request
from pydantic import BaseModel
from starlette.concurrency import run_in_threadpool

from core.actions.briefing import arrival
from core.actions.edit import DONE_LOOPS
from core.clock import iso
from core.llm.registry import ModelPrefs, setup_hint
from core.memory.catalog.entry import CatalogEntry
from core.memory.catalog.recent import sorted_catalog, strand_counts, strand_slices, timeline_view
from core.memory.catalog.window import DEFAULT_LIMIT, MAX_LIMIT, window
from core.memory.config_store import read_config
from core.memory.owners.scan import notices
from core.memory.slice.flush import flush as save_flush
from core.memory.slice.model import Turn, as_text_list
from core.memory.slice.view import read_slice_detail
from functions.api.common import AUTH, MUTATION, DepsDep, checked_timezone, get_deps
from functions.api.schemas import (
    SLICE_ID_PATTERN,
    ErrorBody,
    Flags,
    FlushRequest,
    MonthCount,
    SearchHit,
    SearchView,
    SliceSummary,
    SliceView,
    StateView,
    StrandsView,
    Suggestion,
    TimelineEntry,
    TimelineView,
    TurnOut,
)
from functions.compose.deps import Deps

router = APIRouter(tags=["memory"], dependencies=AUTH, responses={401: {"model": ErrorBody}})
SliceId = Annotated[str, Path(pattern=SLICE_ID_PATTERN, description="YYYY-MM-DD-HHMM (UTC start minute)")]


class FlushResult(BaseModel):
    """The original's flush answer; `demo` is set when nothing was written."""

    success: bool
    demo: bool | None = None


def _summary(s: CatalogEntry) -> SliceSummary:
    return SliceSummary(
        slice_id=s.id,
        start=s.start,
        end=s.end or None,
        status=s.status,
        focus=s.focus,
        summary=s.summary,
        open_loops=s.open_loops,
        decisions=s.decisions,
        turn_count=s.turn_count,
        timezone=s.timezone or None,
    )


def _turn(t: Turn, cognition: str | None = None) -> TurnOut:
    """A turn as the API shows it; `cognition` is its agent.md block, where the route reads one."""
    return TurnOut(
        turn_id=t.turn_id, timestamp=t.timestamp, role=t.role, content=t.content, cognition=cognition
    )


def _setup(deps: Deps, lang: str, config: dict[str, object]) -> list[str]:
    # An empty memory needs no note here: the briefing itself invites the first message.
    if not deps.models.configured:
        return [setup_hint(lang)]
    problem = deps.models.setup_problem(ModelPrefs.from_config(config))
    return [problem] if problem else []


def _flags(deps: Deps) -> Flags:
    kind = deps.storage_kind if deps.storage_kind in ("local", "github", "demo") else "local"
    return Flags(
        demo=deps.storage.demo,
        model_configured=deps.models.configured,
        auth_required=deps.security.required,
        storage=kind,  # type: ignore[arg-type]
        read_only=deps.storage.read_only,
    )


@router.get("/api/state", response_model=StateView)
def get_state(
    deps: DepsDep,
    tz: Annotated[str | None, Query(max_length=64, description="The user's IANA timezone")] = None,
    locale: Annotated[str | None, Query(pattern="^(en|zh)$", description="Default: config.json's")] = None,
) -> StateView:
    """The arrival briefing, the open slice and its turns, the newest slices, flags and set-up notes."""
    snapshot = deps.storage.snapshot()
    config = read_config(snapshot)[0]
    lang = locale or config.locale
    state = arrival(snapshot, deps.clock.now(), checked_timezone(tz), lang)
    b = state.briefing
    return StateView(
        name=b.name,
        last_topic=b.last_topic,
        last_slice_id=b.last_slice_id,
        open_loops=b.open_loops,
        suggestions=[Suggestion(label=s.label, prompt=s.prompt) for s in b.suggestions],
        card_excerpt=b.card_excerpt,
        active=_summary(state.active) if state.active else None,
        active_turns=[_turn(t) for t in state.active_turns],
        recent=[_summary(s) for s in state.recent],
        flags=_flags(deps),
        setup=_setup(deps, lang, config.data),
        damaged=notices(snapshot),
    )


WindowId = Annotated[str | None, Query(pattern=SLICE_ID_PATTERN, description="A slice id")]


@router.get("/api/timeline", response_model=TimelineView, responses={400: {"model": ErrorBody}})
def get_timeline(
    deps: DepsDep,
    around: WindowId = None,
    before: WindowId = None,
    after: WindowId = None,
    limit: Annotated[int, Query(ge=1, le=MAX_LIMIT, description="Slices in the window")] = DEFAULT_LIMIT,
) -> TimelineView:
    """A window of the catalog, oldest → newest: the newest `limit` slices, or those before,
    after or around one slice; `total`, `offset` and `months` place it in the whole span."""
    view = timeline_view(deps.storage.snapshot())
    w = window(view.entries, around=around, before=before, after=after, limit=limit, months=view.months)
    return TimelineView(
        slices=[TimelineEntry.model_validate(e) for e in w.slices],
        total=w.total,
        offset=w.offset,
        months=[MonthCount(month=m, count=n) for m, n in w.months],
    )


@router.get("/api/slices/{slice_id}", response_model=SliceView, responses={404: {"model": ErrorBody}})
def get_slice(slice_id: SliceId, deps: DepsDep) -> SliceView:
    """One slice: frontmatter, turns with their cognition, the card snapshot, the appendix."""
    d = read_slice_detail(deps.storage.snapshot(), slice_id)
    s = d.slice
    turns = [_turn(t, d.cognition_of(t)) for t in s.turns]
    return SliceView(
        slice_id=s.slice_id,
        start=s.start,
        end=s.end or None,
        status=s.status,
        timezone=s.timezone,
        focus=s.focus,
        summary=s.summary,
        tags=s.tags,
        open_loops=s.open_loops,
        decisions=s.decisions,
        emotional_tone=s.emotional_tone or None,
        closed_by=s.closed_by or None,
        evolution_summary=s.evolution_summary or None,
        marked_by=s.marked_by or None,
        done_loops=as_text_list(s.extra.get(DONE_LOOPS)),
        turns=turns,
        previously=d.previously,
        appendix=d.appendix,
        problem=d.problem,
    )


@router.get("/api/search", response_model=SearchView)
async def search(
    request: Request,
    q: Annotated[str, Query(min_length=1, max_length=1000, description="Words, names, dates")],
    k: Annotated[int, Query(ge=1, le=50)] = 10,
) -> SearchView:
    """Full-text search across every slice (the deterministic recall floor), best first.

    One trip to a worker thread for the whole answer (the Deps, the search, the catalog's
    entries): each sync dependency would be another, and on a busy machine those trips cost
    more than the question itself on the warm index (docs/RECALL.md)."""
    return await run_in_threadpool(_search, request, q, k)


def _search(request: Request, q: str, k: int) -> SearchView:
    deps = get_deps(request)
    snapshot = deps.storage.snapshot()
    hits = deps.search(snapshot, q, k, deps.clock.now())
    known = {e["id"]: e for e in sorted_catalog(snapshot) or []}  # kept: no entry built but the hits'
    out = []
    for h in hits:
        info = CatalogEntry.from_json(known.get(h["slice_id"]))
        out.append(
            SearchHit(
                slice_id=h["slice_id"],
                relevance=float(h.get("relevance", 0.0)),
                reason=str(h.get("reason", "")),
                focus=info.focus if info else "",
                start=info.start if info else None,
            )
        )
    return SearchView(query=q, hits=out)


@router.get("/api/strands", response_model=StrandsView)
def get_strands(
    deps: DepsDep,
    counts: Annotated[bool, Query(description="Only how many slices each strand names")] = False,
    name: Annotated[str | None, Query(min_length=1, max_length=200, description="Only this strand")] = None,
) -> StrandsView:
    """The keyword index: strand → slice ids (or, with `counts`, strand → how many; with `name`,
    that strand alone — the page asks for counts on arrival and one strand when it filters)."""
    snapshot = deps.storage.snapshot()
    if counts:
        return StrandsView(strands={}, counts=strand_counts(snapshot))
    if name is not None:
        return StrandsView(strands=strand_slices(snapshot, name))
    return StrandsView(strands=strand_slices(snapshot))


@router.post(
    "/api/episodic/flush",
    response_model=FlushResult,
    response_model_exclude_none=True,
    dependencies=MUTATION,
    responses={400: {"model": ErrorBody}, 403: {"model": ErrorBody}},
)
def flush(body: FlushRequest, deps: DepsDep) -> FlushResult:
    """Emergency save: append turns to a slice's core.md (creating it when missing)."""
    if deps.storage.demo:
        return FlushResult(success=True, demo=True)
    save_flush(deps.storage, body.model_dump(), iso(deps.clock.now()))
    return FlushResult(success=True)
