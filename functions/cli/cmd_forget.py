"""`previously forget` (a slice or one exchange, from every current file) and `previously export`."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from core.actions.forget import HISTORY_NOTE, forget
from core.actions.forget_plan import preview_forget
from core.clock import SystemClock
from core.memory.export import export_zip
from core.storage.base import BytesReader
from functions.cli.app import JsonOpt, MemoryOpt, app, emit_json, fail
from functions.cli.memory import open_memory, run_or_fail


@app.command("forget")
def forget_command(
    slice_id: Annotated[str, typer.Argument(help="The slice id, YYYY-MM-DD-HHMM (see the timeline).")],
    turn: Annotated[
        str | None, typer.Option("--turn", help="Forget only this exchange (your message and its reply).")
    ] = None,
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Do not ask for confirmation.")] = False,
    memory: MemoryOpt = None,
    json_out: JsonOpt = False,
) -> None:
    """Forget a slice (or one exchange of it) from every current file, in one commit.

    Git history still holds the old files; docs/FORGET.md says how to purge it.
    """
    storage, label = open_memory(memory, must_exist=True)
    preview = run_or_fail(lambda: preview_forget(storage.snapshot(), slice_id, turn))
    if not yes:  # on stderr, so stdout holds only the result (--json)
        typer.echo(f"This will forget, in {label}:\n{preview.text}", err=True)
        typer.echo(HISTORY_NOTE, err=True)
        if not typer.confirm("Forget it?", default=False, err=True):
            raise typer.Exit(1)
    report = run_or_fail(lambda: forget(storage, slice_id, SystemClock(), turn_id=turn))
    if json_out:
        emit_json(report.as_dict())
        return
    what = f"slice {slice_id}" if report.whole_slice else f"turn {turn} of slice {slice_id}"
    typer.echo(
        f"Forgot {what}: {len(report.deleted)} files removed, {len(report.changed)} rewritten; "
        f"{report.card.removed} card entries removed, {report.card.refs_dropped} refs dropped."
    )
    if turn is not None and report.whole_slice:
        typer.echo("That was the slice's last exchange, so the whole slice is gone.")
    typer.echo(HISTORY_NOTE)


@app.command("export")
def export_command(
    out: Annotated[Path, typer.Option("--out", help="The zip file to write (FILE.zip).")],
    search: Annotated[bool, typer.Option("--search", help="Include the derived search index.")] = False,
    memory: MemoryOpt = None,
    json_out: JsonOpt = False,
) -> None:
    """Every file under memory/ in one zip, byte for byte (the search index is rebuildable)."""
    storage, label = open_memory(memory, must_exist=True)
    if out.exists() and out.is_dir():
        raise fail(f"{out} is a folder; pass --out FILE.zip")
    tmp = out.with_name(f".{out.name}.part")
    snapshot: BytesReader = storage.snapshot()
    try:
        with tmp.open("wb") as fh:
            report = run_or_fail(lambda: export_zip(snapshot, fh, include_search=search))
        tmp.replace(out)
    except OSError as exc:
        raise fail(f"Could not write {out}: {exc}") from exc
    finally:
        tmp.unlink(missing_ok=True)
    if json_out:
        emit_json({"out": str(out), **report.as_dict()})
        return
    typer.echo(f"Exported {report.files} files ({report.bytes} bytes) from {label} to {out}")
    if not search:
        typer.echo("The search index was left out: `previously maintain` rebuilds it.")
    for skipped in report.skipped:
        typer.secho(f"not exported (copy it by hand): {skipped}", fg=typer.colors.YELLOW, err=True)
