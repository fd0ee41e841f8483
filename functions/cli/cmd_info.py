"""`previously info`: what this installation would use (storage, memory root, providers)."""

from __future__ import annotations

import importlib.metadata

import typer

from core.errors import InvalidInput
from core.llm.providers import providers_from
from functions.cli.app import JsonOpt, MemoryOpt, app, emit_json, fail
from functions.llm import provider_config
from functions.settings import load_settings


@app.command()
def info(json_out: JsonOpt = False, memory: MemoryOpt = None) -> None:
    """Show the resolved settings: storage backend, memory location, configured model providers."""
    try:
        s = load_settings(**({"memory_root": memory} if memory else {}))
    except InvalidInput as exc:
        raise fail(str(exc)) from exc
    providers = [p.id for p in providers_from(provider_config(s))]
    data = {
        "version": importlib.metadata.version("previously"),
        "storage": s.storage,
        "memory": str(s.memory_root.resolve()) if s.storage == "local" else None,
        "github_repo": s.github_repo if s.storage == "github" else None,
        "providers": providers,
        "access_key": s.has_access_key,
    }
    if json_out:
        emit_json(data)
        return
    for key, value in data.items():
        shown = ", ".join(value) if isinstance(value, list) else value
        typer.echo(f"{key:12} {shown if shown not in (None, '') else '-'}")
