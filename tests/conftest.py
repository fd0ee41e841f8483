"""Shared fixtures: the test vectors, a fixed clock, in-memory storage."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from core.clock import FixedClock, SequentialIds
from core.storage.memory import InMemoryStorage

# Fixtures of the fakes, available to every test (fake_github: a running fake GitHub server;
# fake_models: a running fake model server).
pytest_plugins = ["tests.fakes.fake_github", "tests.fakes.fixtures"]

REPO_ROOT = Path(__file__).resolve().parent.parent
SAMPLE_ROOT = REPO_ROOT / "sample"


def vectors_dir() -> Path:
    """$PREVIOUSLY_VECTORS_DIR, default ../shared/spec/vectors resolved from the repository root."""
    env = os.environ.get("PREVIOUSLY_VECTORS_DIR")
    return Path(env) if env else (REPO_ROOT.parent / "shared" / "spec" / "vectors").resolve()


def load_vectors(name: str) -> Any:
    """Load one vector file; a missing file fails the test (never skips)."""
    path = vectors_dir() / name
    if not path.is_file():
        pytest.fail(f"vector file missing: {path} (set PREVIOUSLY_VECTORS_DIR)")
    return json.loads(path.read_text(encoding="utf-8"))


@pytest.fixture
def clock() -> FixedClock:
    return FixedClock.at("2026-08-11T11:15:00.000Z")


@pytest.fixture
def ids() -> SequentialIds:
    return SequentialIds()


@pytest.fixture
def mem_storage() -> InMemoryStorage:
    return InMemoryStorage()
