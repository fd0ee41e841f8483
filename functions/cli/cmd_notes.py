"""`previously notes [accept|decline ID]`: notes other agents asked the memory to keep (MCP `remember`)."""

from __future__ import annotations

from dataclasses import asdict
from typing import Annotated

import typer

from core.actions.notes import accept_note, decline_note
from core.clock import RandomIds, SystemClock
from core.memory.slice import staged_notes
from functions.cli.app import JsonOpt, MemoryOpt, app, emit_json
from functions.cli.memory import run_or_fail
from functions.cli.memory_root import open_storage

notes_app = typer.Typer(
    help="Notes from other agents (MCP remember) waiting for you: list, accept or decline them.",
    invoke_without_command=True,
)
app.add_typer(notes_app, name="notes")
NoteArg = Annotated[str, typer.Argument(help="The note's id, as `previously notes` lists it.")]
AllOpt = Annotated[bool, typer.Option("--all", help="Also the notes already accepted or declined.")]


@notes_app.callback()
def notes(
    ctx: typer.Context, memory: MemoryOpt = None, everything: AllOpt = False, json_out: JsonOpt = False
) -> None:
    """List the staged notes (oldest first), each with its id, sender, time and text."""
    if ctx.invoked_subcommand is not None:
        return
    found = run_or_fail(lambda: staged_notes.list_notes(open_storage(memory).snapshot()))
    shown = [n for n in found if everything or n.status == "staged"]
    if json_out:
        emit_json({"notes": [asdict(n) for n in shown]})
        return
    if not shown:
        typer.echo(
            "No notes are waiting." if not found else "No notes are waiting (--all shows the decided ones)."
        )
        return
    for note in shown:
        status = "" if note.status == "staged" else f" [{note.status} {note.decided[:16]}]"
        typer.echo(f"{note.note_id} · {note.source} · {note.received[:16].replace('T', ' ')} UTC{status}")
        typer.echo("  " + note.text.replace("\n", "\n  "))
    typer.echo("Accept one with `previously notes accept ID` (it joins the open conversation).")


@notes_app.command("accept")
def accept(note_id: NoteArg, memory: MemoryOpt = None) -> None:
    """Add a staged note to the open conversation as a turn marked with where it came from."""
    storage = open_storage(memory)
    done = run_or_fail(lambda: accept_note(storage, note_id, SystemClock().now(), RandomIds()))
    typer.echo(f"Accepted: note {note_id} is now a turn of slice {done.slice_id}.")


@notes_app.command("decline")
def decline(note_id: NoteArg, memory: MemoryOpt = None) -> None:
    """Decline a staged note: it never joins the memory (its file stays, marked declined)."""
    storage = open_storage(memory)
    run_or_fail(lambda: decline_note(storage, note_id, SystemClock().now()))
    typer.echo(f"Declined: note {note_id} stays out of the memory.")
