"""A commit killed between staging and renaming leaves temporary files; the next writer removes them."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from core.memory.paths import core_md
from core.storage.base import Put
from core.storage.local import LocalStorage
from core.storage.staging import STAGING_JOURNAL

pytestmark = pytest.mark.contract
ROOT = Path(__file__).resolve().parents[2]
# A child that stages 50 slices and is killed (-9) before renaming any of them into place.
CHILD = """
import os, sys
from pathlib import Path
from core.memory.paths import core_md
from core.storage.base import Put
from core.storage import local
from core.storage.local import LocalStorage

def killed(src, dst):
    os.kill(os.getpid(), 9)

local.os.replace = killed
ids = [f"2026-03-{d:02d}-{h:02d}00" for d in range(1, 6) for h in range(10)]
LocalStorage(Path(sys.argv[1])).commit([Put(core_md(i), f"slice {i}") for i in ids], "import")
"""


def _temps(root: Path) -> list[Path]:
    return [p for p in (root / "memory").rglob(".*.tmp")]


def test_the_next_writer_removes_what_a_killed_commit_staged(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(tmp_path)], cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}
    )
    assert done.returncode == -9
    assert len(_temps(tmp_path)) == 50 and (tmp_path / STAGING_JOURNAL).exists()
    storage = LocalStorage(tmp_path)
    storage.commit([Put(core_md("2026-04-01-0900"), "an ordinary turn")], "turn")
    assert _temps(tmp_path) == []
    assert not (tmp_path / STAGING_JOURNAL).exists()
    assert storage.snapshot().read(core_md("2026-04-01-0900")) == "an ordinary turn"


def test_a_journal_never_leads_outside_the_memory(tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / ".keep.tmp").write_text("not ours", encoding="utf-8")
    (tmp_path / STAGING_JOURNAL).write_text(f"{outside}\n{tmp_path}/memory/../elsewhere\n", encoding="utf-8")
    LocalStorage(tmp_path).commit([Put(core_md("2026-04-01-0900"), "x")], "turn")
    assert (outside / ".keep.tmp").exists()
