"""`previously evolve`: the card and direction passes now, on the newest conversation."""

from __future__ import annotations

import typer
from rich.console import Console

from core.errors import PreviouslyError
from core.jobs.evolve_now import EvolveNowReport, run_evolve_now
from functions.cli.app import JsonOpt, MemoryOpt, app, emit_json, fail
from functions.cli.memory_root import open_storage
from functions.compose.local import one_off_turn_deps
from functions.settings import load_settings


@app.command()
def evolve(memory: MemoryOpt = None, json_out: JsonOpt = False) -> None:
    """Let the worker model review the user card, the direction and the playbooks now.

    It learns from your newest conversation, as a closing slice would: one commit when something
    changed (undo it with `previously card undo` or on the Evolution page), else "Nothing to
    change.". Refused for the demo memory.
    """
    storage = open_storage(memory)
    deps = one_off_turn_deps(load_settings(), storage)
    try:
        if json_out:
            report = run_evolve_now(deps)
        else:
            with Console(stderr=True).status("Evolving…") as status:
                report = run_evolve_now(deps, lambda s: status.update(s + "…"))
    except PreviouslyError as exc:
        raise fail(str(exc)) from exc
    if json_out:
        emit_json(report.to_dict())
        return
    for line in report_lines(report):
        typer.echo(line)


def report_lines(report: EvolveNowReport) -> list[str]:
    """The human report: the slice it learned from, then what changed (or why nothing did)."""
    lines = (
        [f"from slice {report.slice_id} (model {report.model})"] if report.slice_id and report.model else []
    )
    lines += report.message.splitlines()
    if report.card.diff:
        lines += ["", report.card.diff.rstrip("\n")]
    return lines
