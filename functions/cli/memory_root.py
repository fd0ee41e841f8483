"""Which memory a command works on: `--memory DIR`, else the backend the environment selects."""

from __future__ import annotations

from pathlib import Path

from core.errors import InvalidInput
from core.storage.base import Storage
from core.storage.local import LocalStorage
from functions.cli.app import fail
from functions.compose.backends import build_storage
from functions.settings import load_settings


def open_storage(option: Path | None, must_exist: bool = True, *, every_slice: bool = False) -> Storage:
    """`--memory DIR` (a folder holding memory/), else STORAGE / GITHUB_* / $PREVIOUSLY_MEMORY.

    A local folder that does not hold a memory yet is a clear error when `must_exist`;
    `every_slice`: the command lists every slice (`backends.build_storage`).
    """
    try:
        storage = build_storage(load_settings(), option, every_slice=every_slice)
    except InvalidInput as exc:
        raise fail(str(exc)) from exc
    if isinstance(storage, LocalStorage) and storage.root.exists() and not storage.root.is_dir():
        raise fail(f"{storage.root} is a file, not a folder; pass --memory DIR, the folder holding memory/")
    if must_exist and isinstance(storage, LocalStorage) and not (storage.root / "memory").is_dir():
        raise fail(
            f"no memory at {storage.root} (expected {storage.root / 'memory'}/); "
            "pass --memory DIR, the folder that holds memory/"
        )
    return storage
