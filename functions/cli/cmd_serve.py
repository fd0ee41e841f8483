"""`previously serve`: the local server — the web UI at `/`, the API under `/api`."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from core.errors import InvalidInput, StorageError
from functions.cli.app import MemoryOpt, app, fail
from functions.settings import load_settings


@app.command()
def serve(
    memory: MemoryOpt = None,
    port: Annotated[int, typer.Option("--port", min=1, max=65535, help="Port to listen on.")] = 8000,
    host: Annotated[
        str, typer.Option("--host", help="Interface; anything but loopback needs a key.")
    ] = "127.0.0.1",
    demo: Annotated[
        bool, typer.Option("--demo", help="Serve the bundled sample persona; nothing is saved.")
    ] = False,
    require_auth: Annotated[
        bool, typer.Option("--require-auth", help="Ask for the access key even on this machine.")
    ] = False,
    maintenance_minutes: Annotated[
        float,
        typer.Option("--maintenance-minutes", min=0, help="Minutes between maintenance passes (0: off)."),
    ] = 15.0,
    model: Annotated[
        str | None,
        typer.Option(
            "--model", help="The model to answer with (as PREVIOUSLY_MODEL; Settings can override)."
        ),
    ] = None,
) -> None:
    """Run Previously locally: browse your memory, sign in, chat (Ctrl-C stops it)."""
    from functions.server import ServeOptions, run

    options = ServeOptions(
        host, port, Path(memory) if memory else None, demo, require_auth, maintenance_minutes
    )
    try:
        run(options, load_settings(**({"model": model} if model else {})))
    except (InvalidInput, StorageError) as exc:
        raise fail(str(exc), code=2) from exc
