"""The Typer application shared by every command module, and the options they share."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from core.redact import redact
from functions.cli.errors import GuardedGroup

app = typer.Typer(
    cls=GuardedGroup,
    name="previously",
    help="Previously — a personal AI agent with episodic memory. Memory is plain Markdown + YAML.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

MemoryOpt = Annotated[
    Path | None,
    typer.Option(
        "--memory",
        help="Memory repository root (the folder holding memory/). "
        "Default: $PREVIOUSLY_MEMORY, else ./memory-data.",
        show_default=False,
    ),
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Machine-readable output.")]


def emit_json(obj: Any) -> None:
    """Print one JSON document to stdout."""
    sys.stdout.write(json.dumps(obj, ensure_ascii=False, indent=2) + "\n")


def fail(message: str, code: int = 1) -> typer.Exit:
    """Print an error to stderr and return the Exit to raise."""
    typer.secho(f"error: {redact(message)}", err=True, fg=typer.colors.RED)
    return typer.Exit(code)


@app.callback()
def _root() -> None:
    """Previously — a personal AI agent with episodic memory."""
