"""`previously check` for the evolution layer: direction.md, fitness.json and the playbooks.

Kept apart from check.py (which calls it for every file under the layer's two folders).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from core.errors import InvalidInput
from core.memory.evolution import direction as d
from core.memory.evolution import fitness as f
from core.memory.evolution.paths import (
    DIRECTION_MD,
    FITNESS_JSON,
    PLAYBOOK_AGENTS,
    PLAYBOOKS,
    UNDO_DIR,
    playbook_md,
)
from core.memory.evolution.store import PLAYBOOK_MAX_CHARS
from core.memory.paths import MemoryPath
from core.text import utf16_len

_PLAYBOOK_FILES = {playbook_md(a).value for a in PLAYBOOK_AGENTS}


@dataclass(frozen=True)
class Finding:
    """One problem (check.py turns it into its own Finding): file, severity, message, line."""

    path: str
    severity: Literal["error", "warning"]
    message: str
    line: int | None = None


def check_evolution_file(path: MemoryPath, text: str, now: datetime) -> list[Finding]:
    """Findings for one file under memory/evolution/ or memory/agent-playbooks/."""
    value = path.value
    if value == DIRECTION_MD.value:
        return _direction(value, text, now)
    if value == FITNESS_JSON.value:
        return _fitness(value, text)
    if value in _PLAYBOOK_FILES:
        n = utf16_len(text.strip())
        if n > PLAYBOOK_MAX_CHARS:
            return [
                Finding(value, "warning", f"{n} characters; only the first {PLAYBOOK_MAX_CHARS} are used")
            ]
        return []
    if path.is_under(PLAYBOOKS):
        return [Finding(value, "warning", f"no sub-agent reads it (playbooks: {', '.join(PLAYBOOK_AGENTS)})")]
    if path.is_under(UNDO_DIR):
        return []
    return [Finding(value, "warning", "not part of the evolution layer; nothing reads it")]


def _direction(value: str, text: str, now: datetime) -> list[Finding]:
    parsed = d.parse_direction(text)
    lines = text.split("\n")
    out = [
        Finding(value, "warning", "a line in no direction section; a rewrite keeps it under ## Unsorted",
                next((i + 1 for i, raw in enumerate(lines) if raw.rstrip() == entry), None))
        for entry in parsed.unsorted
    ]  # fmt: skip
    today = now.date().isoformat()
    out += [
        Finding(
            value, "warning", f"hypothesis {h.id} expired on {h.expires}; the next evolution pass resolves it"
        )
        for h in parsed.hypotheses
        if h.expired(today)
    ]
    if len(parsed.portrait) > d.PORTRAIT_MAX:
        out.append(
            Finding(value, "warning", f"{len(parsed.portrait)} Portrait traits; the cap is {d.PORTRAIT_MAX}")
        )
    if len(parsed.hypotheses) > d.HYPOTHESES_MAX:
        out.append(
            Finding(value, "warning", f"{len(parsed.hypotheses)} hypotheses; the cap is {d.HYPOTHESES_MAX}")
        )
    return out


def _fitness(value: str, text: str) -> list[Finding]:
    try:
        f.parse_fitness(text)
    except InvalidInput as exc:
        return [
            Finding(
                value, "error", f"{exc}; the evolution agent leaves it alone until it is fixed or removed"
            )
        ]
    return []
