"""The staging journal of the local folder: temporary files of a killed commit never outlive it.

A commit stages each file as a hidden temporary sibling, then renames it into place. Before it
stages, it writes the folders it will stage into to `.previously.staging` at the root; once every
file is in place the journal goes. A process killed in between (kill -9 of an import, a turn)
leaves the journal, and the next commit — any writer, under the folder's lock — removes exactly
those folders' temporary files before writing its own, without walking the memory.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

STAGING_JOURNAL = ".previously.staging"


def write_journal(journal: Path, folders: list[str]) -> None:
    journal.parent.mkdir(parents=True, exist_ok=True)
    with open(journal, "w", encoding="utf-8") as fh:
        fh.write("\n".join(folders) + "\n")
        fh.flush()
        os.fsync(fh.fileno())


def sweep_staged(root: Path) -> int:
    """Remove the temporary files a killed commit left in the folders its journal names."""
    journal = root / STAGING_JOURNAL
    try:
        folders = journal.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        return 0
    except (OSError, UnicodeDecodeError):
        folders = []
    memory = os.path.realpath(root / "memory")
    removed = 0
    for folder in folders:
        real = os.path.realpath(folder)
        if not real.startswith(memory + os.sep) and real != memory:
            continue  # a journal names only folders inside the memory
        with contextlib.suppress(OSError), os.scandir(real) as entries:
            for entry in entries:
                if (
                    entry.name.startswith(".")
                    and entry.name.endswith(".tmp")
                    and entry.is_file(follow_symlinks=False)
                ):
                    with contextlib.suppress(OSError):
                        os.unlink(entry.path)
                        removed += 1
    with contextlib.suppress(FileNotFoundError):
        journal.unlink()
    return removed
