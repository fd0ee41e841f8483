"""The CLI imports only the module of the command it runs, and knows where every command lives."""

from __future__ import annotations

import importlib
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

import functions.cli as cli

pytestmark = pytest.mark.unit


def test_every_command_is_in_the_lazy_table() -> None:
    cli._load_commands()
    group = cli.app.registered_commands
    names = {c.name or c.callback.__name__.replace("_", "-") for c in group if c.callback}
    names |= {g.name for g in cli.app.registered_groups if g.name}
    assert names == set(cli.COMMANDS), "add new commands to functions/cli/__init__.py COMMANDS"
    for name, module in cli.COMMANDS.items():
        source = importlib.util.find_spec(f"functions.cli.{module}")
        assert source is not None and source.origin is not None
        text = Path(source.origin).read_text(encoding="utf-8")
        assert f'"{name}"' in text or f"def {name}(" in text, (name, module)
    assert {m.name for m in pkgutil.iter_modules(cli.__path__) if m.name.startswith("cmd_")} == set(
        cli.COMMANDS.values()
    )


def test_running_a_command_imports_only_its_module() -> None:
    code = (
        "import sys; import functions.cli as c; c.load_commands(['hash-key']);"
        "print(sorted(m for m in sys.modules if m.startswith('functions.cli.cmd_')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "['functions.cli.cmd_aws']"
    code_all = code.replace("['hash-key']", "['--help']")
    out_all = subprocess.run(
        [sys.executable, "-c", code_all], capture_output=True, text=True, check=True
    ).stdout
    assert out_all.count("cmd_") == len(set(cli.COMMANDS.values()))
