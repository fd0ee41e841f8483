"""Evolve now as a background run: start answers at once with a run id, the passes run elsewhere.

The API's 29 s limit on AWS is shorter than the two passes may take, so the request only records
a run and hands it to a launcher: locally a thread in the process, on AWS an asynchronous invoke
of the maintenance function with an `evolve` job (functions/handlers/maintain.py). The run's state
is one value in the run store (docs/FORMAT.md "Runs (outside the memory)"), under the run id
`evolve-{id}` and the key `evolve`: running (with the latest progress line), done (with the
report) or failed (with the reason).

One run at a time, on every instance that shares the run store: a start claims the run by
appending an `evolve.claim` event to the events of `evolve-current`, and its end appends
`evolve.end`. The run store's event append is atomic (the seq allocator: a lock, `flock` on a
folder, a compare-and-swap of `events-tail.json` on S3), so the claims of two starts at once get
two seqs, and reading that log in seq order decides for both (`holder_at`): a claim is taken
when no earlier claim holds, and the other start is refused (409). A claim, like a run still
marked running, lapses after `STALE_AFTER` (longer than the maintenance function's timeout):
whatever ran it stopped without recording an end.

The passes themselves are `run_evolve_now` (core/jobs/evolve_now.py); a run that cannot commit
because a turn changed the card meanwhile ends failed with that reason and writes nothing.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import asdict, dataclass
from datetime import datetime, timedelta
from typing import Any, Literal

from core.clock import iso, parse_iso
from core.errors import ConflictError, NotFound, ReadOnly
from core.ids import RunId
from core.jobs.evolve_now import BUSY, DEMO, run_evolve_now
from core.turn.deps import TurnDeps
from core.turn.events import Event

RunStatus = Literal["running", "done", "failed"]
Launcher = Callable[[str], None]
KEY = "evolve"
CURRENT = "evolve-current"  # the claim log: its events are the claims and ends of every run
CLAIM = "evolve.claim"
END = "evolve.end"
PREFIX = "evolve-"
STALE_AFTER = timedelta(minutes=20)
STOPPED = "The run stopped without finishing (the process or function running it ended); start it again."
NOT_STARTED = "The run could not be started: {}"


@dataclass(frozen=True)
class EvolveRun:
    """One run as the API shows it: `report` when done, `error` when failed."""

    run_id: str
    status: RunStatus
    started_at: str
    finished_at: str | None = None
    progress: str = ""
    report: dict[str, Any] | None = None
    error: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> EvolveRun:
        status = data.get("status")
        return cls(
            run_id=str(data["run_id"]),
            status=status if status in ("running", "done", "failed") else "failed",
            started_at=str(data.get("started_at", "")),
            finished_at=data.get("finished_at"),
            progress=str(data.get("progress", "")),
            report=data.get("report") if isinstance(data.get("report"), dict) else None,
            error=data.get("error"),
        )


def thread_launcher(execute: Callable[[str], object]) -> Launcher:
    """Run each job in a daemon thread of this process (the local server, tests)."""

    def launch(run_id: str) -> None:
        threading.Thread(target=execute, args=(run_id,), name=f"evolve-{run_id}", daemon=True).start()

    return launch


def holder_at(log: list[Event], seq: int) -> str | None:
    """The run holding the claim once the log's events up to `seq` are read in seq order: a
    claim is taken when nothing holds, or when the holder's claim lapsed by the new claim's
    time; the holder's `evolve.end` frees it. Only the log decides, so every reader agrees."""
    holder: Event | None = None
    for event in sorted(log, key=lambda e: int(e["seq"])):
        if event["seq"] > seq:
            break
        if event.get("type") == CLAIM and (holder is None or _lapsed(holder, event)):
            holder = event
        elif event.get("type") == END and holder is not None and event.get("run_id") == holder.get("run_id"):
            holder = None
    return None if holder is None else str(holder.get("run_id"))


def _lapsed(holder: Event, claim: Event) -> bool:
    """Whether `claim` comes after the holder's claim lapsed (one whose time cannot be read
    holds nothing against a later claim, and takes nothing from a holder)."""
    held, new = _instant(holder.get("at")), _instant(claim.get("at"))
    return held is None or (new is not None and new - held > STALE_AFTER)


def _instant(value: object) -> datetime | None:
    try:
        return parse_iso(value) if isinstance(value, str) else None
    except ValueError:
        return None


class EvolveRuns:
    """Start, run and read evolve-now runs over the turn deps' run store."""

    def __init__(self, deps: TurnDeps, launcher: Launcher | None = None) -> None:
        self._deps = deps
        self._runs = deps.run_store
        self._launch = launcher or thread_launcher(self.execute)

    def start(self) -> EvolveRun:
        """Claim, record and launch a new run; ReadOnly in the demo, ConflictError while one runs."""
        d = self._deps
        if d.demo or d.storage.demo or d.storage.read_only:
            raise ReadOnly(DEMO)
        run = EvolveRun(d.ids.turn_id(), "running", iso(d.clock.now()))
        claim = {"type": CLAIM, "step": KEY, "run_id": run.run_id, "at": run.started_at}
        [claimed] = self._runs.append(CURRENT, [claim])
        if holder_at(self._runs.events(CURRENT), int(claimed["seq"])) != run.run_id:
            raise ConflictError(BUSY)
        self._save(run)
        self._runs.put(CURRENT, KEY, run.run_id)  # the latest run's id, for a reader
        try:
            self._launch(run.run_id)
        except Exception as exc:  # the launcher itself failed: say so on the run, then refuse
            self._finish(run, error=NOT_STARTED.format(exc))
            raise
        return run

    def get(self, run_id: str) -> EvolveRun:
        """The run's state; NotFound for an unknown id. A run left running too long reads failed."""
        if not RunId.matches(run_id):
            raise NotFound(f"No evolve-now run {run_id!r}.")
        data = self._runs.get(PREFIX + run_id, KEY)
        if not isinstance(data, dict):
            raise NotFound(f"No evolve-now run {run_id!r}.")
        run = EvolveRun.from_dict(data)
        if run.status == "running" and self._stale(run):
            return EvolveRun(run.run_id, "failed", run.started_at, progress=run.progress, error=STOPPED)
        return run

    def execute(self, run_id: str) -> EvolveRun:
        """Run the passes for a recorded run and record how it ended (never raises)."""
        try:
            run = self.get(run_id)
        except NotFound:
            return EvolveRun(run_id, "failed", "", error=f"No evolve-now run {run_id!r}.")
        if run.status != "running":
            return run  # a retried invoke of a run that already ended
        try:
            report = run_evolve_now(self._deps, lambda line: self._progress(run, line))
        except Exception as exc:
            self._deps.log.error("evolve-now run %s failed", run_id, exc_info=exc)
            return self._finish(run, error=str(exc) or type(exc).__name__)
        return self._finish(run, report=report.to_dict())

    def _stale(self, run: EvolveRun) -> bool:
        try:
            started: datetime = parse_iso(run.started_at)
        except ValueError:
            return True
        return self._deps.clock.now() - started > STALE_AFTER

    def _progress(self, run: EvolveRun, line: str) -> None:
        self._save(EvolveRun(run.run_id, "running", run.started_at, progress=line))

    def _finish(
        self, run: EvolveRun, report: dict[str, Any] | None = None, error: str | None = None
    ) -> EvolveRun:
        status: RunStatus = "failed" if error is not None else "done"
        ended = EvolveRun(run.run_id, status, run.started_at, iso(self._deps.clock.now()), "", report, error)
        self._save(ended)
        self._runs.append(
            CURRENT, [{"type": END, "step": KEY, "run_id": run.run_id, "at": ended.finished_at}]
        )
        return ended

    def _save(self, run: EvolveRun) -> None:
        self._runs.put(PREFIX + run.run_id, KEY, run.to_dict())
