"""`previously weave`: rebuild the catalog, monthly indexes and strands from the slice files."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from core.actions.weave import weave as rebuild
from core.clock import SystemClock
from core.memory.catalog.rebuild import RebuildReport
from functions.cli.app import JsonOpt, MemoryOpt, app, emit_json
from functions.cli.memory import echo_list, open_memory, progress_bar, run_or_fail

DryRunOpt = Annotated[bool, typer.Option("--dry-run", help="Show what would change; write nothing.")]


@app.command()
def weave(memory: MemoryOpt = None, dry_run: DryRunOpt = False, json_out: JsonOpt = False) -> None:
    """Rebuild the timeline catalog, monthly indexes and strands from the slices (no model, no marks)."""
    storage, label = open_memory(memory, must_exist=True, every_slice=True)

    def run() -> tuple[RebuildReport, list[dict[str, str]]]:
        with progress_bar("Reading slices", enabled=not json_out) as (set_total, tick):
            return rebuild(storage, SystemClock().now(), dry_run, tick, set_total)

    report, changes = run_or_fail(run)
    if json_out:
        emit_json({"memory": label, "dry_run": dry_run, **report.as_dict(), "changes": changes})
        return
    _print(report, changes, label, dry_run)


def _print(report: RebuildReport, changes: list[dict[str, Any]], label: str, dry_run: bool) -> None:
    c = report.catalog
    typer.echo(f"{report.slices} slices in {label}")
    typer.echo(
        f"catalog: {c.total} entries ({c.added} added, {c.removed} dropped), {c.needs_marking} need marking"
    )
    typer.echo(
        f"strands: {report.strand_paths_added} slice paths added, "
        f"{report.strand_phantoms_dropped} pointing at missing slices dropped"
    )
    echo_list("Unreadable slices, skipped (see `previously check`)", report.unreadable)
    verb = "Would change" if dry_run else "Changed"
    if changes:
        echo_list(verb, [f"{c['path']} ({c['change']})" for c in changes], limit=20)
    else:
        typer.echo("Nothing to change: the indexes match the slices.")
