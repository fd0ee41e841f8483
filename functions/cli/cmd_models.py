"""`previously models`: the configured providers, their models, and which model answers or works."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from core.errors import InvalidInput, PreviouslyError
from core.llm.client import complete
from core.llm.registry import BoundModel, ModelPrefs, ModelRegistry
from core.llm.types import UserMessage
from functions.cli.app import JsonOpt, MemoryOpt, app, emit_json, fail
from functions.llm import build_registry, local_model_prefs
from functions.settings import load_settings

CHECK_PROMPT = "Reply with the single word: ready"


@app.command()
def models(
    json_out: JsonOpt = False,
    memory: MemoryOpt = None,
    model: Annotated[
        str | None, typer.Option("--model", help="Resolve as a turn asking for this model would.")
    ] = None,
    check: Annotated[
        bool, typer.Option("--check", help="Send a one-line prompt to the main and worker models.")
    ] = False,
) -> None:
    """List model providers and models, and the resolved main and worker models."""
    try:
        settings = load_settings()
    except InvalidInput as exc:
        raise fail(str(exc)) from exc
    registry = build_registry(settings)
    prefs = local_model_prefs(memory or settings.memory_root)
    payload = registry.models_payload(prefs, model)
    if check and payload["main"] is not None:
        payload["check"] = _check(registry, model, prefs)
    if json_out:
        emit_json(payload)
    else:
        _print(payload)
    if payload["main"] is None or any(not c["ok"] for c in payload.get("check", [])):
        raise typer.Exit(1)


def _check(registry: ModelRegistry, model: str | None, prefs: ModelPrefs) -> list[dict[str, Any]]:
    resolution = registry.resolve(model, prefs)
    return [_try(role, bound) for role, bound in (("main", resolution.main), ("worker", resolution.worker))]


def _try(role: str, bound: BoundModel) -> dict[str, Any]:
    request = bound.request([UserMessage(CHECK_PROMPT)], thinking=False, timeout=60.0)
    try:
        reply = complete(bound.client, request)
    except PreviouslyError as exc:
        return {"role": role, "model": bound.info.id, "ok": False, "error": str(exc)}
    return {"role": role, "model": bound.info.id, "ok": True, "reply": reply.text.strip()[:200]}


def _print(payload: dict[str, Any]) -> None:
    if not payload["providers"]:
        typer.secho(payload["setup"], fg=typer.colors.YELLOW, err=True)
        return
    typer.echo("Providers:")
    for p in payload["providers"]:
        source = {
            "curated": "curated list",
            "live": "listed by the server",
            "configured": "server unreachable",
        }
        typer.echo(f"  {p['id']:<10} {p['name']}  ({source[p['models']]}; {p['env']})")
    typer.echo("Models:")
    main, worker = payload["main"] or {}, payload["worker"] or {}
    for m in payload["models"]:
        roles = [r for r, chosen in (("main", main), ("worker", worker)) if chosen.get("id") == m["id"]]
        mark = "*" if roles else " "
        flags = ", ".join(
            f for f, on in (("thinking", m["supports_thinking"]), ("vision", m["supports_vision"])) if on
        )
        typer.echo(f"{mark} {m['id']:<34} {m['provider']:<10} {flags:<17} {' + '.join(roles)}".rstrip())
    if not main:
        typer.secho(payload["setup"], fg=typer.colors.YELLOW, err=True)
        return
    thinking = f"thinking {'on, effort ' + main['effort'] if main['thinking'] else 'off'}"
    typer.echo(f"Main:   {main['id']} ({thinking})")
    typer.echo(f"Worker: {worker['id']} (thinking off)")
    for note in payload["notes"]:
        typer.echo(f"Note: {note}")
    for c in payload.get("check", []):
        outcome = f"ok — {c['reply']!r}" if c["ok"] else f"FAILED — {c['error']}"
        typer.echo(f"Check {c['role']} ({c['model']}): {outcome}")
