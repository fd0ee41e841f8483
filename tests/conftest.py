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
# What the tests read that the project did not write, vendored with licence and provenance
# (tests/data/README.md): a clone of the repository alone passes the suite.
TEST_DATA = REPO_ROOT / "tests" / "data"
LOCOMO_DEV = TEST_DATA / "locomo-dev"
TIERS = ("unit", "functional", "contract", "conformance", "infra", "browser")
# No GitHub disk cache shared between tests (nor with the user's own, in ~/.cache): request
# counts stay exact. A test of the cache gives it a folder of its own.
os.environ.setdefault("PREVIOUSLY_CACHE_DIR", "off")


def vectors_dir() -> Path:
    """$PREVIOUSLY_VECTORS_DIR, default the vendored copy in tests/data/vectors."""
    env = os.environ.get("PREVIOUSLY_VECTORS_DIR")
    return Path(env) if env else TEST_DATA / "vectors"


def load_vectors(name: str) -> Any:
    """Load one vector file; a missing file fails the test (never skips)."""
    path = vectors_dir() / name
    if not path.is_file():
        pytest.fail(f"vector file missing: {path} (set PREVIOUSLY_VECTORS_DIR)")
    return json.loads(path.read_text(encoding="utf-8"))


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Every test carries the marker of its tier, the folder it lives in (tests/<tier>/...)."""
    for item in items:
        parts = Path(str(item.fspath)).relative_to(REPO_ROOT / "tests").parts
        tier = parts[0] if len(parts) > 1 else None
        if tier not in TIERS:
            raise pytest.UsageError(f"{item.nodeid}: a test lives under tests/<tier>/, one of {TIERS}")
        if item.get_closest_marker(tier) is None:
            item.add_marker(getattr(pytest.mark, tier))


@pytest.fixture
def clock() -> FixedClock:
    return FixedClock.at("2026-08-11T11:15:00.000Z")


@pytest.fixture
def ids() -> SequentialIds:
    return SequentialIds()


@pytest.fixture
def mem_storage() -> InMemoryStorage:
    return InMemoryStorage()
