"""`previously card show|edit|rm|undo|redo`: the user card, entry by entry, as `card show` numbers it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Annotated, TypeVar

import typer

from core.clock import SystemClock
from core.errors import PreviouslyError
from core.memory.card import user_edits
from core.memory.card.edit import format_numbered, numbered_entries
from core.memory.card.history import undo_redo
from core.memory.card.store import read_card
from core.reltime import local_date_key
from core.storage.base import Storage
from functions.cli.app import JsonOpt, MemoryOpt, app, emit_json, fail
from functions.cli.memory_root import open_storage

card_app = typer.Typer(help="Read and correct the user card (memory/episodic/current-previously.md).")
app.add_typer(card_app, name="card")

SectionArg = Annotated[
    str, typer.Argument(help="identity, past, anchor, now, horizon, self_model or unsorted")
]
PositionArg = Annotated[int, typer.Argument(min=1, help="The entry's number in `card show`.")]
UNDO_HINT = "(undo with `previously card undo`)"
T = TypeVar("T")


@card_app.command("show")
def show(memory: MemoryOpt = None, json_out: JsonOpt = False) -> None:
    """List every entry, numbered per section, with stale/overdue flags."""
    view = open_storage(memory).snapshot()
    stored = read_card(view)
    can_undo = undo_redo(view)[0]
    now = SystemClock().now()
    if stored.text is None:
        if json_out:
            emit_json({"entries": [], "can_undo": can_undo})
            return
        typer.echo("There is no user card yet; it is written after your first conversations.")
        return
    card = stored.card(now)
    today = local_date_key(now, None)
    if json_out:
        entries = [
            {
                "section": e.section,
                "n": e.n,
                "text": e.text,
                "refs": e.refs,
                "since": e.since,
                "by": e.by,
                "flag": e.flag,
            }
            for e in numbered_entries(card, today)
        ]
        emit_json({"entries": entries, "updated": card.updated, "can_undo": can_undo})
        return
    typer.echo(format_numbered(card, today))


def _change(memory: Path | None, change: Callable[[Storage], T]) -> T:
    storage = open_storage(memory)
    try:
        return change(storage)
    except PreviouslyError as exc:
        raise fail(str(exc)) from exc


@card_app.command("edit")
def edit(
    section: SectionArg,
    n: PositionArg,
    text: Annotated[str, typer.Argument(help="The new text.")],
    memory: MemoryOpt = None,
) -> None:
    """Replace one entry's text; the rest of the card stays as it is."""
    now = SystemClock().now()
    entry = _change(memory, lambda s: user_edits.edit_entry(s, section, n, text, now))
    typer.echo(f"{entry.address}  {entry.line}  {UNDO_HINT}")


@card_app.command("rm")
def rm(section: SectionArg, n: PositionArg, memory: MemoryOpt = None) -> None:
    """Remove one entry; the rest of the card stays as it is."""
    now = SystemClock().now()
    gone = _change(memory, lambda s: user_edits.remove_entry(s, section, n, now))
    typer.echo(f"removed {gone.address}: {gone.line}  {UNDO_HINT}")


@card_app.command("undo")
def undo(memory: MemoryOpt = None) -> None:
    """Go back to the card before its last change (again: one more change back)."""
    now = SystemClock().now()
    _change(memory, lambda s: user_edits.undo(s, now))
    typer.echo("The card is back to its previous version (`previously card redo` steps forward again).")


@card_app.command("redo")
def redo(memory: MemoryOpt = None) -> None:
    """Re-apply the change the last undo took back."""
    now = SystemClock().now()
    _change(memory, lambda s: user_edits.redo(s, now))
    typer.echo("The change is back (`previously card undo` takes it back again).")
