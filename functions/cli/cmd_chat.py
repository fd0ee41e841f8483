"""`previously chat "MSG"`: one turn, in-process on a memory folder or against a server (--url)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from core.errors import InvalidInput, StorageError
from core.turn.service import TurnService
from functions.cli.app import JsonOpt, MemoryOpt, app, fail


@app.command()
def chat(
    message: Annotated[str, typer.Argument(help="What to say.")],
    url: Annotated[
        str | None, typer.Option("--url", help="A running server, e.g. http://127.0.0.1:8000")
    ] = None,
    key: Annotated[
        str | None,
        typer.Option(
            "--key", help="The server's access key (default: $PREVIOUSLY_ACCESS_KEY).", show_default=False
        ),
    ] = None,
    timezone: Annotated[
        str | None, typer.Option("--timezone", help="IANA zone (default: this machine's).")
    ] = None,
    memory: MemoryOpt = None,
    json_out: JsonOpt = False,
) -> None:
    """Send one message and print the reply as it streams (--json: the whole finished turn)."""
    from functions.chat import ChatError, LocalTurnClient, local_timezone
    from functions.chat import chat as run_chat
    from functions.cli.chat_remote import run_remote

    if not message.strip():
        raise fail("the message is empty")
    if url:
        run_remote(url, key, message, json_out, timezone)
        return
    try:
        client = LocalTurnClient(_local_turns(memory))
        code = run_chat(client, message, timezone or local_timezone(), sys.stdout, sys.stderr, json_out)
    except (ChatError, InvalidInput, StorageError) as exc:
        raise fail(str(exc)) from exc
    raise typer.Exit(code)


def _local_turns(memory: Path | None) -> TurnService:
    from functions.deps import build_deps
    from functions.settings import load_settings

    settings = load_settings()
    root = memory or (settings.memory_root if settings.storage == "local" else None)
    if root is not None:
        (root / "memory").mkdir(parents=True, exist_ok=True)
    return build_deps(settings, memory_override=memory, require_auth=False).turns
