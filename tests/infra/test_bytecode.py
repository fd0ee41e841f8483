"""Lambda bundles carry bytecode of the runtime's Python when the machine has one (layers/bytecode.py)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from infra import packaging
from layers.bytecode import LAMBDA_PYTHON_ENV, compile_tree, find_python, python_version

pytestmark = pytest.mark.infra
HERE = f"{sys.version_info[0]}.{sys.version_info[1]}"


def test_compiled_files_are_unchecked_hash_pyc_of_that_interpreter(tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("VALUE = 41 + 1\n", encoding="utf-8")
    assert compile_tree(tmp_path, sys.executable) == 1
    (pyc,) = tmp_path.rglob("*.pyc")
    head = pyc.read_bytes()[:8]
    assert head[:4] == importlib.util.MAGIC_NUMBER
    # PEP 552 flags: hash-based (bit 0) without checking the source (bit 1 clear), so the zip's
    # timestamps never make Lambda's Python ignore the file.
    assert int.from_bytes(head[4:8], "little") == 0b01


def test_the_interpreter_is_found_by_version_and_never_a_wrong_one(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(LAMBDA_PYTHON_ENV, sys.executable)
    assert python_version(sys.executable) == HERE
    assert find_python(HERE) == sys.executable
    assert find_python("3.99") is None  # the named one is of another version: refused
    monkeypatch.setenv(LAMBDA_PYTHON_ENV, "/nonexistent/python")
    assert python_version("/nonexistent/python") is None


def test_staged_function_code_is_compiled_when_a_runtime_python_exists(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(packaging, "find_python", lambda: sys.executable)
    assets = packaging.prepare_assets(tmp_path / "no-layer", tmp_path / "build")
    assert assets.code_compiled
    compiled = {p.parent.parent.name for p in (assets.code_dir / "core" / "turn").rglob("*.pyc")}
    assert compiled == {"turn"} or "turn" in compiled
    assert list((assets.code_dir / "functions" / "handlers" / "__pycache__").glob("maintain.*.pyc"))


def test_without_one_the_code_ships_plain_and_synth_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(packaging, "find_python", lambda: None)
    assets = packaging.prepare_assets(tmp_path / "no-layer", tmp_path / "build")
    assert not assets.code_compiled and not list(assets.code_dir.rglob("*.pyc"))
