"""The `previously` command line. Each `cmd_*.py` module in this package adds its commands."""

from __future__ import annotations

import importlib
import pkgutil

from functions.cli.app import app


def _load_commands() -> None:
    for info in pkgutil.iter_modules(__path__):
        if info.name.startswith("cmd_"):
            importlib.import_module(f"{__name__}.{info.name}")


def main() -> None:
    """Entry point of `.venv/bin/previously`."""
    _load_commands()
    app()


__all__ = ["app", "main"]
