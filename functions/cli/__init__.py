"""The `previously` command line. Each `cmd_*.py` module in this package adds its commands.

Only the module of the command being run is imported (a command's imports cost up to a second
of start-up); `--help`, a typo or a command missing from `COMMANDS` loads them all.
"""

from __future__ import annotations

import importlib
import pkgutil
import sys

from functions.cli.app import app

# command name → the module that defines it (tests/unit/test_cli_lazy.py keeps this complete).
COMMANDS = {
    "aws-secrets": "cmd_aws",
    "hash-key": "cmd_aws",
    "card": "cmd_card",
    "chat": "cmd_chat",
    "check": "cmd_check",
    "evolve": "cmd_evolve",
    "export": "cmd_forget",
    "forget": "cmd_forget",
    "import": "cmd_import",
    "info": "cmd_info",
    "maintain": "cmd_maintain",
    "mcp": "cmd_mcp",
    "models": "cmd_models",
    "notes": "cmd_notes",
    "recall": "cmd_recall",
    "serve": "cmd_serve",
    "weave": "cmd_weave",
}


def load_commands(argv: list[str] | None = None) -> None:
    """Import the module of the command named in `argv`, or every command module."""
    args = sys.argv[1:] if argv is None else argv
    name = next((a for a in args if not a.startswith("-")), None)
    module = COMMANDS.get(name or "")
    if module is not None and "--help" not in args[:1]:
        importlib.import_module(f"{__name__}.{module}")
        return
    for info in pkgutil.iter_modules(__path__):
        if info.name.startswith("cmd_"):
            importlib.import_module(f"{__name__}.{info.name}")


def _load_commands() -> None:
    """Every command (tests, and anything that needs the whole CLI)."""
    load_commands([])


def main() -> None:
    """Entry point of `.venv/bin/previously`."""
    load_commands()
    app()


__all__ = ["COMMANDS", "app", "load_commands", "main"]
