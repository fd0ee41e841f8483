"""`previously chat --url URL --key KEY "MSG"`: the client mode of `chat`, against a running server."""

from __future__ import annotations

import os
import sys

import typer

from functions.chat import ChatError, HttpTurnClient, chat, local_timezone
from functions.cli.app import fail


def run_remote(
    url: str,
    key: str | None,
    message: str,
    json_out: bool,
    timezone: str | None = None,
    model: str | None = None,
    attachments: list[dict[str, str]] | None = None,
) -> None:
    """Send `message` to the server at `url`, stream the reply (or print the finished turn as JSON).

    The key defaults to $PREVIOUSLY_ACCESS_KEY. Exits 1 when the turn failed or was refused.
    """
    client = HttpTurnClient(url, key or os.environ.get("PREVIOUSLY_ACCESS_KEY"))
    try:
        code = chat(
            client,
            message,
            timezone or local_timezone(),
            sys.stdout,
            sys.stderr,
            json_out,
            model,
            attachments,
        )
    except ChatError as exc:
        raise fail(str(exc)) from exc
    if code:
        raise typer.Exit(code)
