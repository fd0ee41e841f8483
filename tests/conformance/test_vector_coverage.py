"""Every vector file in the vectors directory, and every section of it, is read by some test.

A section no test reads (a new function in a fuller vector set) or a file no test opens fails
here by name instead of being ignored. Reads count when they happen at import (`cases`,
`value`, `uses`), so the result does not depend on which tests ran first or on which worker.
"""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

from tests.conformance.vectors import VectorFile, opened
from tests.conftest import vectors_dir

pytestmark = pytest.mark.conformance
HERE = Path(__file__).parent


def _all_tests_imported() -> dict[str, VectorFile]:
    """Import every conformance test module (as pytest does), so every file's reads are known."""
    for module in sorted(HERE.glob("test_*.py")):
        importlib.import_module(f"tests.conformance.{module.stem}")
    return opened()


FILES = sorted(p.name for p in vectors_dir().glob("*.json"))


def test_the_vectors_directory_holds_files() -> None:
    assert FILES, f"no vector files in {vectors_dir()} (set PREVIOUSLY_VECTORS_DIR)"


@pytest.mark.parametrize("name", FILES)
def test_every_section_is_read(name: str) -> None:
    files = _all_tests_imported()
    if name not in files:
        pytest.fail(f"{name}: no conformance test reads this vector file", pytrace=False)
    vf = files[name]
    unread = sorted(set(vf.data) - vf.read)
    assert not unread, f"{name}: sections no test reads: {unread}"
