"""`previously maintain`: the scheduled pass over a memory (core/jobs/maintain.py)."""

from __future__ import annotations

import time
from typing import Annotated, Any

import typer
from rich.console import Console

from core.jobs.maintain import MaintenanceReport, run_maintenance
from functions.cli.app import JsonOpt, MemoryOpt, app, emit_json
from functions.cli.errors import EX_TEMPFAIL
from functions.cli.memory_root import open_storage
from functions.compose.local import turn_deps
from functions.settings import load_settings


@app.command()
def maintain(
    memory: MemoryOpt = None,
    no_model: Annotated[
        bool, typer.Option("--no-model", help="Deterministic marks only; no model is called.")
    ] = False,
    full: Annotated[bool, typer.Option("--full", help="Rebuild the search index from scratch.")] = False,
    json_out: JsonOpt = False,
) -> None:
    """Close slices whose time cap passed, mark dry slices, tidy strands, refresh the indexes.

    Run it on a schedule (the local server does, every 15 minutes). Slices are closed with their
    close-time work (marking, card evolution); without a model (or with --no-model) marks are
    deterministic and say so (`marked_by: fallback`). Running it twice changes nothing the
    second time. Stale card items are listed, never removed. A pass that GitHub's rate limit
    stopped exits 75 ("try later"); run it again after the reset and it resumes.
    """
    storage = open_storage(memory, every_slice=True)  # its scans list every slice anyway
    settings = load_settings()
    # the runs `previously chat` and serve write: a turn a dead process left is recovered here
    deps = turn_deps(settings, storage)
    started = time.perf_counter()
    console = Console(stderr=True)
    if json_out:
        report = run_maintenance(deps, use_model=not no_model, rebuild_search=full)
    else:
        with console.status("Maintaining the memory…") as status:
            report = run_maintenance(
                deps, use_model=not no_model, rebuild_search=full, progress=lambda s: status.update(s + "…")
            )
    data = report.to_dict()
    data["seconds"] = round(time.perf_counter() - started, 3)
    if json_out:
        emit_json(data)
    else:
        for line in summary_lines(report, data["seconds"]):
            typer.echo(line)
    if report.stopped:  # what was committed stays; cron and schedulers must not count it a success
        typer.secho(f"try later: {report.stopped}", err=True, fg=typer.colors.YELLOW)
        raise typer.Exit(EX_TEMPFAIL)


def summary_lines(report: MaintenanceReport, seconds: float) -> list[str]:
    """The human report."""
    lines = [f"model: {report.model or 'none (deterministic marks)'}"]
    lines += recovery_lines(report.recovered)
    for closed in report.closed:
        lines.append(f"closed {closed.slice_id} (marked by {closed.marked_by}; card {closed.card})")
    if not report.closed:
        lines.append("no slice past its time cap")
    if report.merges or report.pruned_strands:
        lines.append(f"strands: {report.merges} merged, {len(report.pruned_strands)} pruned")
    marked = report.marked + report.marked_by_fallback
    if marked:
        fallback = len(report.marked_by_fallback)
        lines.append(f"marked {_count(len(marked), 'dry slice')} ({fallback} deterministically)")
    if report.remarked:
        lines.append(f"re-marked {_count(len(report.remarked), 'fallback-marked slice')} with the model")
    if report.search_index:
        lines.append(_index_line(report.search_index))
    if migrated := report.pictures.get("migrated"):
        lines.append(f"pictures: {_count(len(migrated), 'base64 file')} turned into image files")
    lines += [f"picture kept as base64: {kept}" for kept in report.pictures.get("kept", [])]
    for damaged in report.damaged:
        lines.append(f"damaged, skipped and left as it is: {damaged}")
    for what, items in (("Now items a week old", "aged_now"), ("overdue Horizon items", "overdue_horizon")):
        for item in report.stale_card.get(items, []):
            lines.append(f"card — {what}: {item}")
    lines += [f"skipped {note}" for note in report.skipped]
    if report.stopped:
        lines.append(f"stopped: {report.stopped}")
    commits, files = _count(len(report.commits), "commit"), _count(report.files_written, "file")
    lines.append(f"{commits}, {files} written, {seconds} s")
    return lines


def recovery_lines(recovered: dict[str, list[str]]) -> list[str]:
    """What recovery did with turns a stopped process left (core/turn/recovery.py)."""
    said = {
        "ended": "turn {} was left running by a process that stopped: ended as interrupted",
        "saved": "turn {}: the message it accepted but never saved is saved now",
        "failed": "turn {} could not be recovered; the next pass tries again",
        "error": "recovery could not run ({}); the next pass tries again",
    }
    return [said[kind].format(item) for kind in said for item in recovered.get(kind, [])]


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _index_line(s: dict[str, Any]) -> str:
    how = "rebuilt" if s.get("rebuilt") else "updated"
    return (
        f"search index {how}: {s.get('slices', 0)} slices in {s.get('segments', 0)} segments "
        f"(+{s.get('added', 0)} new, {s.get('updated', 0)} changed, -{s.get('removed', 0)} removed)"
    )
