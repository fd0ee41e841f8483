"""Identifiers checked by a pattern refuse a trailing newline (`$` would accept "abc\\n")."""

from __future__ import annotations

import re

import pytest

from core import reltime
from core.agent import time_tools
from core.errors import InvalidInput
from core.jobs import evolve_runs
from core.media import attach
from core.memory import paths
from core.memory.slice import agent_parts, pictures
from core.storage import demo, github
from core.turn import labels, runstore_fs
from functions import settings
from functions.aws import runstore

PATTERNS: dict[str, tuple[re.Pattern[str], str]] = {
    "run-store name": (runstore_fs._NAME_RE, "turn-1"),
    "evolve run id": (evolve_runs.RUN_ID, "run1"),
    "picture name": (attach.NAME_RE, "abc-1.png"),
    "picture file": (pictures._FILE_RE, "abc-1.png.b64"),
    "persona id": (demo.PERSONA_ID_RE, "jia"),
    "repository": (github._REPO_RE, "me/memory"),
    "settings repository": (settings._REPO_RE, "me/memory"),
    "S3 turn id": (runstore._ID, "turn-1"),
    "S3 run key": (runstore._KEY, "deadline"),
    "agent part path": (paths._AGENT_PART_RE, "timeline/agent-2.md"),
    "agent part name": (agent_parts._PART_RE, "agent-2.md"),
    "day": (time_tools._DAY_RE, "2026-01-02"),
    "label day": (labels._DAY_RE, "2026-01-02"),
    "date key": (reltime._DATE_KEY_RE, "2026-01-02"),
}


@pytest.mark.parametrize("what", sorted(PATTERNS))
def test_a_trailing_newline_is_not_part_of_an_identifier(what: str) -> None:
    pattern, good = PATTERNS[what]
    assert pattern.match(good)
    assert not pattern.match(good + "\n")


def test_a_picture_path_with_a_trailing_newline_is_not_a_picture() -> None:
    assert pictures.is_picture("images/abc-1.png.b64")
    assert not pictures.is_picture("images/abc-1.png.b64\n")
    assert not pictures.is_picture("images/sub/abc-1.png.b64")


def test_the_run_stores_refuse_a_turn_id_with_a_newline(tmp_path) -> None:
    store = runstore_fs.FolderRunStore(tmp_path)
    with pytest.raises(InvalidInput):
        store.put("turn-1\n", "deadline", "x")
    with pytest.raises(InvalidInput):
        runstore._check("turn-1\n", runstore._ID, "turn id")
    assert list(tmp_path.iterdir()) == []
