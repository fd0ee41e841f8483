"""`previously check`: read every memory file and report problems; never writes."""

from __future__ import annotations

import typer

from core.actions.check import CheckReport, check_memory
from core.clock import SystemClock
from functions.cli.app import JsonOpt, MemoryOpt, app, emit_json
from functions.cli.memory import open_memory, progress_bar, run_or_fail


@app.command()
def check(memory: MemoryOpt = None, json_out: JsonOpt = False) -> None:
    """Parse every memory file and report problems with file and line (exit 1 on errors)."""
    storage, label = open_memory(memory, must_exist=True)
    snapshot = storage.snapshot()

    def run() -> CheckReport:
        with progress_bar("Checking files", enabled=not json_out) as (set_total, tick):
            return check_memory(snapshot, SystemClock().now(), tick, set_total)

    report = run_or_fail(run)
    if json_out:
        emit_json({"memory": label, **report.as_dict()})
    else:
        _print(report, label)
    if report.errors:
        raise typer.Exit(1)


def _print(report: CheckReport, label: str) -> None:
    typer.echo(f"Checked {report.files} files ({report.slices} slices) in {label}")
    for finding in report.findings:
        colour = typer.colors.RED if finding.severity == "error" else typer.colors.YELLOW
        typer.secho(str(finding), fg=colour)
    errors, warnings = len(report.errors), len(report.warnings)
    if not report.findings:
        typer.secho("No problems found.", fg=typer.colors.GREEN)
    else:
        typer.echo(f"{errors} error{'s' * (errors != 1)}, {warnings} warning{'s' * (warnings != 1)}.")
