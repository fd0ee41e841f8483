"""The scheduled pass (`previously maintain`, EventBridge, the local server's timer).

0. Recovery first (core/turn/recovery.py): a message accepted but never saved is saved, a turn
   left `running` by a dead process ends `interrupted`.
1. Close every active slice whose time cap passed with no next message, with its close-time
   work: marking (the worker, else the deterministic mark), indexes, card evolution — one
   commit per closed slice, so a failure later loses none of them.
2. When something closed: strand prune and the consolidation merge pass; always: the dry-slice
   backfill (the worker marks up to 3; without a model every dry slice gets the deterministic
   mark); a catalog reconcile and the search index refresh — one commit.
   Pictures still saved as base64 text become image files (core/media/migrate.py), one commit.
3. Flag stale card items (Now items a week old, Horizon items past their date) in the report;
   they are never removed here (the evolution pass decides).
Running it twice in a row changes nothing the second time.

On GitHub the pass watches the token's rate budget: with fewer than `RESERVE` requests left it
closes slices but skips the optional work (tidying, marks, the search refresh), and when the
budget runs out it stops cleanly — what was committed stays, `stopped` names the limit and its
reset, and the next pass picks up where this one stopped (every step is idempotent).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from core.agent.workers.marker import mark_slice
from core.clock import iso
from core.errors import BudgetSpent, InvalidInput
from core.llm.registry import Resolution
from core.media.migrate import COMMIT_MESSAGE as PICTURES_MESSAGE
from core.media.migrate import migrate_pictures
from core.memory.card.model import aged_now_items, is_card, overdue_horizon, parse_card
from core.memory.catalog.index import catalog_active, read_index
from core.memory.catalog.strand_shards import migrate_strands
from core.memory.catalog.weave import meta_loader, weave_catalog
from core.memory.config import UserConfig
from core.memory.damage import damaged_slices, slice_files
from core.memory.owners.card import card_text
from core.memory.owners.scan import damaged_authored
from core.memory.owners.slice_files import refresh_slice_checks
from core.memory.paths import MemoryPath, classify, core_md, day_dir, legacy_flat_slice_id
from core.memory.slice.model import Slice, parse_core_md
from core.memory.slice.slicer import ActiveSlice, slice_age_exceeded
from core.search import RefreshReport, refresh_index
from core.storage.base import WriteBatch, request_budget
from core.turn.close_runs import finish_close_passes
from core.turn.closing import prune_strands, queue_close, recover_active, upsert_catalog
from core.turn.deps import TurnDeps
from core.turn.evolving import at_maintenance
from core.turn.passes import BACKFILL_LIMIT, backfill, consolidate
from core.turn.recovery import recover_turns
from core.turn.remark import remark
from core.turn.steps.common import user_config

Progress = Callable[[str], None]
FALLBACK_BACKFILL_LIMIT = 200
# Requests a pass leaves for turns: below this it does only what cannot wait (closing slices).
RESERVE = 100


@dataclass
class ClosedSlice:
    """One slice this pass closed."""

    slice_id: str
    marked_by: str  # "model" | "fallback"
    card: str  # what card evolution did


@dataclass
class MaintenanceReport:
    """What a maintenance pass did (the CLI prints it; `--json` dumps it)."""

    model: str | None = None
    closed: list[ClosedSlice] = field(default_factory=list)
    merges: int = 0
    pruned_strands: list[str] = field(default_factory=list)
    strands_converted: bool = False  # the single strands.json became the shards (docs/FORMAT.md "strands")
    marked: list[str] = field(default_factory=list)
    marked_by_fallback: list[str] = field(default_factory=list)
    remarked: list[str] = field(default_factory=list)  # fallback marks the worker replaced (remark.py)
    catalog: dict[str, Any] = field(default_factory=dict)
    search_index: dict[str, Any] = field(default_factory=dict)
    stale_card: dict[str, list[str]] = field(default_factory=dict)
    commits: list[str] = field(default_factory=list)
    files_written: int = 0
    # "path: problem" for every damaged authored file found (left exactly as it is).
    damaged: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)  # work left for a later pass, and why
    stopped: str | None = None  # the request budget ran out: the limit and when it resets
    recovered: dict[str, list[str]] = field(default_factory=dict)  # core/turn/recovery.py
    pictures: dict[str, list[str]] = field(default_factory=dict)  # core/media/migrate.py

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def run_maintenance(
    deps: TurnDeps,
    *,
    use_model: bool = True,
    progress: Progress | None = None,
    rebuild_search: bool = False,
) -> MaintenanceReport:
    """One maintenance pass over the memory (stops cleanly when the request budget runs out)."""
    report = MaintenanceReport()
    try:
        report.recovered = _recover(deps)  # accepted messages first: before anything closes a slice
        _run(deps, report, use_model, progress or (lambda _: None), rebuild_search)
    except BudgetSpent as exc:
        report.stopped = str(exc)
    return report


def _run(
    deps: TurnDeps, report: MaintenanceReport, use_model: bool, say: Progress, rebuild_search: bool
) -> None:
    batch = WriteBatch.open(deps.storage)
    config = user_config(batch)
    models = deps.models.resolve_for(config.data) if use_model and deps.models else None
    report.model = models.worker.info.id if models else None
    say("Reading the timeline")
    reconcile_catalog(batch, deps.clock.now(), config.locale)  # the catalog lists every active slice
    for active in expired_slices(batch, deps.clock.now(), config):
        say(f"Closing slice {active.slice.slice_id}")
        report.closed.append(_close(batch, deps, active, config.locale, models))
        _commit(batch, report, f"Maintenance — close slice {active.slice.slice_id}")
    short = budget_note(deps)
    if short is not None:
        report.skipped = [f"tidying, marks and the search refresh: {short}"]
        _commit(batch, report, "Maintenance — catalog")
        return
    report.pictures = asdict(migrate_pictures(batch))
    _commit(batch, report, PICTURES_MESSAGE)
    _tidy(batch, deps, report, config, models, say)
    say("Refreshing the search index")
    search = refresh_index(batch, deps.clock, full=rebuild_search)
    report.search_index = asdict(search)
    report.damaged = _damaged(batch, search, deps.clock.now(), config.locale)
    report.stale_card = stale_card_items(card_text(batch), deps.clock.now())
    _commit(batch, report, "Maintenance — indexes")


def _damaged(batch: WriteBatch, search: RefreshReport, now: datetime, locale: str) -> list[str]:
    """The damaged files, named: the card, config and notes (a few reads); the other files of
    slice folders that changed since the last pass (core/memory/owners/slice_files.py); and the
    core.md files — read only when the index is missing some slice, whose catalog entries then
    say so.

    A damaged file is never indexed, so an index holding every listed slice proves there is
    no damaged core.md, and an unchanged memory costs no core.md read here.
    """
    authored = [str(d) for d in [*damaged_authored(batch), *refresh_slice_checks(batch, now)]]
    if search.slices >= len(slice_files(batch)) and not search.damaged:
        return authored
    slices = damaged_slices(batch)
    problems = {sid.dash: d.problem for d in slices if (sid := classify(MemoryPath(d.path)).slice_id)}
    weave_catalog(batch, now, meta_loader(batch), force=True, locale=locale, keep_time_if_unchanged=True,
                  problems=problems)  # fmt: skip
    return [*authored, *(str(d) for d in slices)]


def budget_note(deps: TurnDeps) -> str | None:
    """Why optional work does not fit the storage's request budget now, or None when it does."""
    budget = request_budget(deps.storage)
    if budget is None or budget.remaining >= RESERVE:
        return None
    when = datetime.fromtimestamp(budget.reset_at, UTC).strftime("%H:%M UTC")
    return (
        f"only {budget.remaining} of {budget.limit:,} GitHub requests left until {when}; "
        "kept for turns, the next pass after the reset does it"
    )


def _recover(deps: TurnDeps) -> dict[str, list[str]]:
    try:
        recovered = asdict(recover_turns(deps))
        # Close passes a dead run left undone (core/turn/close_runs.py).
        finished = finish_close_passes(deps)
        if finished:
            recovered["close_passes"] = finished
        return recovered
    except Exception as exc:  # an unreachable run store must not stop the memory's own maintenance
        deps.log.error("maintenance: recovery failed", exc_info=exc)
        return {"error": [f"{type(exc).__name__}: {exc}"]}


def _tidy(
    batch: WriteBatch,
    deps: TurnDeps,
    report: MaintenanceReport,
    config: UserConfig,
    models: Resolution | None,
    say: Progress,
) -> None:
    """Strands after a close, the catalog, and the dry-slice marks (queued, not committed)."""
    now = deps.clock.now()
    worker = models.worker if models is not None and not deps.demo else None
    report.strands_converted = migrate_strands(batch)
    if report.closed:
        say("Tidying strands")
        report.pruned_strands = prune_strands(batch, now)
        if worker is not None:
            report.merges = consolidate(batch, worker)
    say("Reconciling the catalog")
    report.catalog = reconcile_catalog(batch, now, config.locale)
    say("Marking dry slices")
    limit = BACKFILL_LIMIT if worker is not None else FALLBACK_BACKFILL_LIMIT
    marks = backfill(batch, worker, now_iso=iso(now), locale=config.locale, limit=limit)
    report.marked, report.marked_by_fallback = marks.marked, marks.marked_by_fallback
    if worker is not None:
        report.remarked = remark(batch, worker, now_iso=iso(now), say=say)
    if marks.changed or report.remarked:
        report.catalog = reconcile_catalog(batch, now, config.locale)


def expired_slices(batch: WriteBatch, now: datetime, config: UserConfig) -> list[ActiveSlice]:
    """Active slices past their time cap, as the reconciled catalog lists them.

    The catalog was just reconciled with the slice folders, so it knows every active slice;
    only a legacy flat file (never catalogued) needs the slicer's scan of the recent day folders.
    """
    found: dict[str, ActiveSlice] = {}
    if _legacy_files_near(batch, now):
        active = recover_active(batch, now)
        if active is not None:
            found[active.slice.slice_id] = active
    for sid in _active_ids(batch):
        if sid in found:
            continue
        loaded = _load(batch, sid)
        if loaded is not None and loaded.status == "active":
            found[sid] = ActiveSlice(loaded, core_md(sid))
    cap_ms = config.max_slice_minutes * 60_000
    return [a for a in found.values() if slice_age_exceeded(a.slice.start, now, cap_ms)]


def _active_ids(batch: WriteBatch) -> list[str]:
    """The ids the catalog lists as active: the pending file's list when it has one (a small
    file), else the whole catalog."""
    listed = catalog_active(batch)
    if listed is not None:
        return listed
    index = read_index(batch)
    return [str(e["id"]) for e in index["slices"] if e.get("status") == "active"] if index else []


def _legacy_files_near(batch: WriteBatch, now: datetime) -> bool:
    """Whether today's or yesterday's day folder holds a legacy flat slice file (a listing, no read)."""
    for instant in (now, now - timedelta(hours=24)):
        year, month, day = iso(instant)[:10].split("-")
        if any(legacy_flat_slice_id(p) for p in batch.list(day_dir(year, month, day))):
            return True
    return False


def _load(batch: WriteBatch, slice_id: str) -> Slice | None:
    try:
        text = batch.read(core_md(slice_id))
        return parse_core_md(text) if text is not None else None
    except InvalidInput:  # broken YAML, too large: `check` names it; never rewritten here
        return None


def _close(
    batch: WriteBatch, deps: TurnDeps, active: ActiveSlice, locale: str, models: Resolution | None
) -> ClosedSlice:
    worker = models.worker if models is not None else None
    marking = mark_slice(worker, active.slice, monotonic=deps.monotonic) if worker is not None else None
    closed = queue_close(batch, active, "time_cap", clock=deps.clock, locale=locale, marking=marking)
    upsert_catalog(batch, [closed.slice], deps.clock.now(), locale)
    marked_by = "fallback" if closed.slice.marked_by == "fallback" else ("model" if marking else "existing")
    return ClosedSlice(closed.slice.slice_id, marked_by, at_maintenance(batch, deps, closed.slice, models))


def _commit(batch: WriteBatch, report: MaintenanceReport, message: str) -> None:
    result = batch.commit(message)
    if result.changed:
        report.commits.append(message)
        report.files_written += len(result.written)


def reconcile_catalog(batch: WriteBatch, now: datetime, locale: str) -> dict[str, Any]:
    """A forced weave that writes nothing when the catalog already matches the slices."""
    _, result = weave_catalog(
        batch, now, meta_loader(batch), force=True, locale=locale, keep_time_if_unchanged=True
    )
    return result.as_dict()


def stale_card_items(card_text: str | None, now: datetime) -> dict[str, list[str]]:
    """Now items a week old and Horizon items past their date (for review; never removed here)."""
    if not card_text or not is_card(card_text):
        return {"aged_now": [], "overdue_horizon": []}
    card = parse_card(card_text, now)
    today = iso(now)[:10]
    return {
        "aged_now": [f"{n.text} (since {n.since})" for n in aged_now_items(card, today)],
        "overdue_horizon": [f"{h.text} (by {h.by})" for h in overdue_horizon(card.horizon, today)],
    }
