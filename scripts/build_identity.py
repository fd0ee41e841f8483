#!/usr/bin/env python3
"""Compile identity/SOUL.md and identity/DIRECTIVES.md into core/agent/identity_text.py.

The agent's character and standing rules are frozen into the code at build time, so nothing at
run time reads them from disk (and no tool can rewrite them). `--check` exits 1 when the
generated module is not current; it is what lint runs.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
SOURCES = {"SOUL": "identity/SOUL.md", "DIRECTIVES": "identity/DIRECTIVES.md"}
TARGET = "core/agent/identity_text.py"
_FENCE = "---"
HEADER = "The agent's identity, generated from identity/*.md by scripts/build_identity.py — do not edit."


@dataclass(frozen=True)
class IdentityFile:
    """One identity file: its frontmatter and its trimmed body."""

    meta: dict[str, object]
    body: str


def parse(text: str, source: str) -> IdentityFile:
    """Split frontmatter from body; the frontmatter must name the agent."""
    lines = text.replace("\r\n", "\n").split("\n")
    if not lines or lines[0].strip() != _FENCE:
        raise ValueError(f"{source}: must start with a '---' frontmatter block naming the agent")
    try:
        end = next(i for i in range(1, len(lines)) if lines[i].strip() == _FENCE)
    except StopIteration:
        raise ValueError(f"{source}: the frontmatter block is not closed with '---'") from None
    meta = yaml.safe_load("\n".join(lines[1:end])) or {}
    if not isinstance(meta, dict) or not str(meta.get("name") or "").strip():
        raise ValueError(f"{source}: the frontmatter needs a `name`")
    return IdentityFile(meta, "\n".join(lines[end + 1 :]).strip())


def _literal(text: str) -> str:
    """A triple-quoted Python literal holding exactly `text`."""
    escaped = text.replace("\\", "\\\\").replace('"""', '\\"\\"\\"')
    if escaped.endswith('"'):
        escaped = escaped[:-1] + '\\"'  # a quote right before the closing ones would merge with them
    return f'"""\\\n{escaped}"""'


def render(root: Path = ROOT) -> str:
    """The generated module's text for the identity files under `root`."""
    files = {key: parse((root / rel).read_text(encoding="utf-8"), rel) for key, rel in SOURCES.items()}
    name = str(files["SOUL"].meta["name"]).strip()
    soul = files["SOUL"].body or (
        f"You are {name}, a personal assistant with a long-term memory of your conversations with the user."
    )
    return "\n".join(
        [
            f'"""{HEADER}"""',
            "",
            f"AGENT_NAME = {json.dumps(name, ensure_ascii=False)}",
            "",
            f"SOUL = {_literal(soul)}",
            "",
            f"DIRECTIVES = {_literal(files['DIRECTIVES'].body)}",
            "",
        ]
    )


def main(argv: list[str] | None = None) -> int:
    """Write the module, or with --check report whether it is current."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if the generated module is stale")
    args = parser.parse_args(argv)
    try:
        text = render()
    except (OSError, ValueError, yaml.YAMLError) as exc:
        print(f"build_identity: {exc}", file=sys.stderr)
        return 2
    target = ROOT / TARGET
    current = target.read_text(encoding="utf-8") if target.is_file() else None
    if args.check:
        if current != text:
            print(f"{TARGET} is out of date: run `python scripts/build_identity.py`", file=sys.stderr)
            return 1
        return 0
    if current != text:
        target.write_text(text, encoding="utf-8")
        print(f"wrote {TARGET}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
