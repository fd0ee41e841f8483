"""Every vector file in the vectors directory, and every section of it, is read by some test.

A section no test reads (a new function in a fuller vector set) or a file no test opens fails
here by name instead of being ignored. Reads count when they happen at import (`cases`,
`value`, `uses`), so the result does not depend on which tests ran first or on which worker.
"""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

from tests.conformance.vectors import HELD_BACK, VectorFile, opened
from tests.conftest import TEST_DATA, vectors_dir

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


def documented_sections() -> dict[str, list[str]]:
    """The vendored README's table: each vector file and the top-level sections it documents
    (the leading name of every backticked field in its "Main fields" column)."""
    table: dict[str, list[str]] = {}
    for line in (TEST_DATA / "vectors" / "README.md").read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        m = re.fullmatch(r"`([a-z_]+\.json)`", cells[0]) if len(cells) == 3 else None
        if m:
            names = (re.match(r"[A-Za-z_]\w*", code) for code in re.findall(r"`([^`]+)`", cells[2]))
            table[m.group(1)] = list(dict.fromkeys(n.group(0) for n in names if n))
    return table


DOCUMENTED = documented_sections()


def test_the_readme_documents_the_held_back_files() -> None:
    assert set(DOCUMENTED) >= HELD_BACK and len(DOCUMENTED) >= len(FILES)


@pytest.mark.parametrize("name", sorted(DOCUMENTED))
def test_every_documented_section_is_read(name: str) -> None:
    """Also for a file the vendored copy lacks (HELD_BACK): a test opens it and reads every
    section the README names, so the full measured set meets a test for each."""
    files = _all_tests_imported()
    if name not in files:
        pytest.fail(f"{name}: no conformance test reads this vector file", pytrace=False)
    unread = [s for s in DOCUMENTED[name] if s not in files[name].read]
    assert not unread, f"{name}: documented sections no test reads: {unread}"
    if files[name].data:  # present: the README's names are the file's sections
        assert set(DOCUMENTED[name]) <= set(files[name].data), (
            f"{name}: README names a section the file lacks"
        )
