"""Where the evolution layer lives: the direction, the fitness ledger, the sub-agents' playbooks.

These files have one writer, the direction pass (and the user's own edits through the page);
the generic write tool refuses everything under these two folders (`is_evolution_path`).
"""

from __future__ import annotations

from typing import Literal, get_args

from core.errors import InvalidInput
from core.memory.paths import MEMORY, MemoryPath

EVOLUTION = MEMORY / "evolution"
PLAYBOOKS = MEMORY / "agent-playbooks"
DIRECTION_MD = EVOLUTION / "direction.md"
FITNESS_JSON = EVOLUTION / "fitness.json"
UNDO_DIR = EVOLUTION / "undo"

PlaybookAgent = Literal["recall", "search", "thinkdeep"]
PLAYBOOK_AGENTS: tuple[str, ...] = get_args(PlaybookAgent)


def playbook_md(agent: str) -> MemoryPath:
    """`memory/agent-playbooks/<agent>.md` for one of the three sub-agents."""
    if agent not in PLAYBOOK_AGENTS:
        raise InvalidInput(
            f"There is no playbook for {agent!r}; the sub-agents are {', '.join(PLAYBOOK_AGENTS)}."
        )
    return PLAYBOOKS / f"{agent}.md"


def undo_copy(path: MemoryPath) -> MemoryPath:
    """Where the text a write replaced is kept (one level of undo per file)."""
    return (
        UNDO_DIR / path.value.rsplit("/", 1)[-1]
        if path.is_under(EVOLUTION)
        else UNDO_DIR / f"playbook-{path.name}"
    )


def is_evolution_path(path: MemoryPath) -> bool:
    """Whether `path` belongs to the evolution layer (owned by the direction pass)."""
    return path.is_under(EVOLUTION) or path.is_under(PLAYBOOKS)
