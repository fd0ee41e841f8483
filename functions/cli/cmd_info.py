"""`previously info`: what this installation would use (storage, memory root, providers)."""

from __future__ import annotations

import importlib.metadata

import typer

from core.errors import InvalidInput
from functions.cli.app import JsonOpt, app, emit_json, fail
from functions.settings import load_settings


@app.command()
def info(json_out: JsonOpt = False) -> None:
    """Show the resolved settings: storage backend, memory location, configured model providers."""
    try:
        s = load_settings()
    except InvalidInput as exc:
        raise fail(str(exc)) from exc
    providers = [
        name
        for name, key in (
            ("anthropic", s.anthropic_api_key),
            ("openai", s.openai_api_key or s.openai_base_url),
            ("deepseek", s.deepseek_api_key),
        )
        if key
    ]
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
