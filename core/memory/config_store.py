"""`memory/user/config.json` on storage: read it tolerantly, save a validated partial change.

A change is deep-merged into whatever the file holds *when the commit happens* (an Update), so
two people saving different settings at once both keep theirs.
"""

from __future__ import annotations

from typing import Any, Protocol

from core.errors import DamagedFile
from core.memory.config import ConfigProblem, UserConfig, load_config, parse_config, patch_config
from core.memory.damage import read_text
from core.memory.paths import CONFIG_JSON, MemoryPath
from core.storage.base import Storage, WriteBatch

SAVE_MESSAGE = f"Update {CONFIG_JSON}"


class Reader(Protocol):
    """A Snapshot or a WriteBatch."""

    def read(self, path: MemoryPath) -> str | None: ...


def read_config(view: Reader) -> tuple[UserConfig, list[ConfigProblem]]:
    """The merged preferences and what was wrong with the stored file (defaults stand in; a
    file that cannot be read at all is left as it is and named)."""
    try:
        return parse_config(read_text(view, CONFIG_JSON))  # type: ignore[arg-type]  # only reads
    except DamagedFile as exc:
        return UserConfig(), [ConfigProblem("config.json", f"{exc}; using the defaults")]


def queue_config_patch(batch: WriteBatch, partial: dict[str, Any]) -> UserConfig:
    """Validate `partial` against the current file (InvalidInput naming the field) and queue the save."""
    result = patch_config(load_config(batch.read(CONFIG_JSON)), partial)

    def apply(current: str | None) -> str | None:
        text = patch_config(load_config(current), partial).to_json()
        return None if text == current else text

    batch.update(CONFIG_JSON, apply)
    return result


def save_config_patch(storage: Storage, partial: dict[str, Any]) -> UserConfig:
    """Validate `partial` and save it in one commit (nothing is written when it is refused)."""
    batch = WriteBatch.open(storage)
    result = queue_config_patch(batch, partial)
    batch.commit(SAVE_MESSAGE)
    return result
