"""`previously mcp`: serve the memory to other agents over MCP on stdin/stdout (docs/MCP.md)."""

from __future__ import annotations

from typing import Annotated

import typer

from core.reltime import zone
from functions.cli.app import MemoryOpt, app, fail
from functions.cli.memory_root import open_storage
from functions.settings import load_settings


@app.command()
def mcp(
    memory: MemoryOpt = None,
    tz: Annotated[
        str | None, typer.Option("--tz", help="IANA timezone for local times (default: UTC).")
    ] = None,
    read_only: Annotated[
        bool, typer.Option("--read-only", help="Refuse `remember` whatever config.json allows.")
    ] = False,
) -> None:
    """Serve your memory to Claude Code, Codex, Cursor or Claude Desktop over MCP (stdio).

    Tools: recall, read_slice, read_slice_summary, timeline_window, read_card, search, and
    remember (only when config.json `mcpRemember` allows it). Logs go to stderr; stdout carries
    the protocol. See docs/MCP.md for each client's set-up.
    """
    if tz is not None and zone(tz) is None:
        raise fail(f'unknown timezone "{tz}"; use an IANA name such as Europe/Lisbon')
    from functions.api.app import version
    from functions.compose.mcp import build_access
    from functions.llm import build_registry
    from functions.mcp.server import build_server

    storage = open_storage(memory)
    registry = build_registry(load_settings())
    access = build_access(storage, registry, source="MCP (stdio)", timezone=tz, writes_allowed=not read_only)
    build_server(access, version()).run("stdio")
