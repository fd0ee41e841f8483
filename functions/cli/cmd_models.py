"""`previously models`: the configured providers, their models, and which model answers or works."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from core.errors import (
    InvalidInput,
    KeyRefused,
    ModelUnknown,
    NoModelConfigured,
    PreviouslyError,
    Unreachable,
    nearest_class,
)
from core.llm.client import complete
from core.llm.registry import BoundModel, ModelPrefs, ModelRegistry
from core.llm.types import UserMessage
from functions.cli.app import JsonOpt, MemoryOpt, app, emit_json, fail
from functions.llm import build_registry, local_model_prefs
from functions.models_json import models_json
from functions.settings import load_settings

CHECK_PROMPT = "Reply with the single word: ready"
_SOURCES = {
    "request": "--model",
    "config": "Settings (config.json)",
    "env": "PREVIOUSLY_MODEL",
    "default": "the provider's default",
    "derived": "the provider's cheap tier",
    "main": "the main model",
}


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
    payload = models_json(registry.models_overview(prefs, model))
    if check and payload["configured"]:
        payload["check"] = _check(registry, model, prefs)
    if json_out:
        emit_json(payload)
    else:
        _print(payload)
    if payload["main"] is None or any(not c["ok"] for c in payload.get("check", [])):
        raise typer.Exit(1)


def _check(registry: ModelRegistry, model: str | None, prefs: ModelPrefs) -> list[dict[str, Any]]:
    try:
        resolution = registry.resolve(model, prefs)
    except NoModelConfigured as exc:
        return [{"role": "main", "model": None, "ok": False, "state": "no_model", "error": str(exc)}]
    roles = [("main", resolution.main), ("worker", resolution.worker)]
    if resolution.worker.info.id == resolution.main.info.id:
        roles = roles[:1]  # one model in both roles: one call says it all
    return [_try(role, bound, registry) for role, bound in roles]


def _try(role: str, bound: BoundModel, registry: ModelRegistry) -> dict[str, Any]:
    """One prompt to one model: ok, or why not (unreachable / refused / model_unknown / failed)."""
    out: dict[str, Any] = {"role": role, "model": bound.info.id, "provider": bound.provider.id}
    if bound.provider.compatible:
        listed = registry.live_ids(bound.provider)
        out["listed"] = listed is not None and bound.info.id in listed
    request = bound.request([UserMessage(CHECK_PROMPT)], thinking=False, timeout=60.0)
    try:
        reply = complete(bound.client, request)
    except PreviouslyError as exc:
        return {**out, "ok": False, "state": _state(exc), "error": str(exc)}
    return {**out, "ok": True, "state": "ok", "reply": reply.text.strip()[:200]}


_STATES: dict[type[BaseException], str] = {
    Unreachable: "unreachable",
    KeyRefused: "refused",
    ModelUnknown: "model_unknown",
}


def _state(exc: PreviouslyError) -> str:
    return nearest_class(exc, _STATES) or "failed"


def _print(payload: dict[str, Any]) -> None:
    if not payload["providers"]:
        typer.secho(payload["setup"], fg=typer.colors.YELLOW, err=True)
        return
    typer.echo("Providers:")
    for p in payload["providers"]:
        source = "curated list; " if p["models"] == "curated" else ""
        typer.echo(f"  {p['id']:<10} {p['name']}  ({source}{p['detail']})")
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
    typer.echo(f"Main:   {main['id']} ({thinking}; from {_SOURCES[main['source']]})")
    typer.echo(f"Worker: {worker['id']} (thinking off; from {_SOURCES[worker['source']]})")
    for note in payload["notes"]:
        typer.echo(f"Note: {note}")
    for c in payload.get("check", []):
        outcome = f"ok — {c['reply']!r}" if c["ok"] else f"FAILED ({c['state']}) — {c['error']}"
        typer.echo(f"Check {c['role']} ({c['model']}): {outcome}")
