"""`previously chat "MSG"`: one turn in this process, streamed to the terminal.

Reasoning is shown dimmed, tool calls as one-line labels, then the reply
(`functions/turn_printer.py`, `Styled`). Exit codes: 0 the
turn finished (or was interrupted with Ctrl-C: the partial reply is kept), 1 it failed, 3 the
message was saved but no model is configured (the output says which variables to set).
`--url URL --key KEY` talks to a running server instead (client mode, `functions/cli/chat_remote.py`).
`--attach FILE` (repeatable) sends a picture with the message (core/media/images.py).
"""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from core.errors import InvalidInput
from core.media.images import Attachment, Upload, prepare_images
from core.turn.local_service import LocalTurnService
from core.turn.service import TurnInput
from functions.chat import local_timezone, model_calls
from functions.cli.app import JsonOpt, MemoryOpt, app, emit_json, fail
from functions.cli.memory_root import open_storage
from functions.compose.local import chat_turns
from functions.settings import load_settings
from functions.turn_printer import Styled, TurnPrinter

EXIT_NO_MODEL = 3
_POLL_SECONDS = 0.5


def _follow(service: LocalTurnService, turn_id: str, printer: TurnPrinter | None) -> None:
    after = 0
    while True:
        try:
            state = service.wait(turn_id, after, _POLL_SECONDS)
        except KeyboardInterrupt:
            service.cancel(turn_id)  # Ctrl-C stops the reply; what was said is kept as [partial]
            continue
        for event in state.events:
            after = max(after, int(event["seq"]))
            if printer is not None:
                printer.event(event)
        if state.status != "running":
            break
    if printer is not None:
        printer.finish()
    service.join(turn_id)  # the best-effort after step finishes its commit before we exit


def _remote(
    url: str,
    key: str | None,
    message: str,
    json_out: bool,
    timezone: str,
    model: str | None,
    files: list[Path],
) -> None:
    from functions.cli.chat_remote import run_remote

    sent = [{"name": f.name, "data": base64.b64encode(f.read_bytes()).decode()} for f in files]
    run_remote(url, key, message, json_out, timezone=timezone, model=model, attachments=sent)


def _read_attachments(files: list[Path]) -> tuple[Attachment, ...]:
    """The pictures named by --attach, checked and re-encoded (a clear error for anything else)."""
    uploads = []
    for f in files:
        if not f.is_file():
            raise fail(f"{f}: no such file to attach")
        uploads.append(Upload(f.name, f.read_bytes()))
    try:
        return tuple(prepare_images(uploads))
    except InvalidInput as exc:
        raise fail(str(exc)) from exc


@app.command()
def chat(
    message: Annotated[str, typer.Argument(help="What to say.")],
    memory: MemoryOpt = None,
    timezone: Annotated[
        str | None, typer.Option("--timezone", help="Your IANA time zone (default: this machine's).")
    ] = None,
    model: Annotated[str | None, typer.Option("--model", help="The model to answer with.")] = None,
    url: Annotated[str | None, typer.Option("--url", help="Talk to a running server instead.")] = None,
    key: Annotated[str | None, typer.Option("--key", help="The server's access key (with --url).")] = None,
    json_out: JsonOpt = False,
    attach: Annotated[
        list[Path] | None,
        typer.Option(
            "--attach", help="A picture to send with the message (PNG, JPEG, WebP, GIF); repeatable."
        ),
    ] = None,
) -> None:
    """Say something and stream the reply; the turn is saved in the memory like any other."""
    if not message.strip():
        raise fail("the message is empty")
    files = list(attach or [])
    if url:
        _remote(url, key, message, json_out, timezone or local_timezone(), model, files)
        return
    images = _read_attachments(files)
    storage = open_storage(memory, must_exist=False)
    settings = load_settings()
    try:
        service = chat_turns(settings, storage)
        request = TurnInput(message, timezone=timezone or local_timezone(), model=model, attachments=images)
        turn_id = service.start(request)
    except InvalidInput as exc:
        raise fail(str(exc)) from exc
    _follow(service, turn_id, None if json_out else TurnPrinter(Styled(Console())))
    state = service.state(turn_id)
    error = next((e for e in reversed(state.events) if e["type"] == "turn.error"), None)
    if json_out:
        emit_json(
            {
                "turn_id": turn_id,
                "status": state.status,
                "slice_id": state.slice_id,
                "reply": state.reply,
                "error": {"code": error["code"], "message": error["message"]} if error else None,
                "model_calls": model_calls(state.events),
            }
        )
    if error is not None:
        raise typer.Exit(EXIT_NO_MODEL if error["code"] == "no_model" else 1)
