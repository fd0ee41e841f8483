"""The layer build's checks, on small fabricated layers (no download)."""

from __future__ import annotations

from pathlib import Path

import pytest

from layers.build import LayerReport, _measure, problems

pytestmark = pytest.mark.unit

ELF_AARCH64 = b"\x7fELF" + b"\x02\x01\x01" + b"\x00" * 11 + (183).to_bytes(2, "little")
ELF_X86_64 = b"\x7fELF" + b"\x02\x01\x01" + b"\x00" * 11 + (62).to_bytes(2, "little")


def _layer(tmp_path: Path, binary: bytes) -> Path:
    site = tmp_path / "python" / "pkg"
    site.mkdir(parents=True)
    (site / "__init__.py").write_text("x = 1\n", encoding="utf-8")
    (site / "_native.cpython-313-aarch64-linux-gnu.so").write_bytes(binary + b"\x00" * 100)
    return tmp_path


def test_an_arm64_layer_passes(tmp_path: Path) -> None:
    report = _measure(_layer(tmp_path, ELF_AARCH64), "k", reused=False)
    assert report.foreign_binaries == [] and report.file_count == 2
    assert report.largest == {"pkg": report.total_bytes}
    assert problems(report, budget_mb=1) == []


def test_an_x86_binary_is_refused(tmp_path: Path) -> None:
    report = _measure(_layer(tmp_path, ELF_X86_64), "k", reused=False)
    assert report.foreign_binaries == ["pkg/_native.cpython-313-aarch64-linux-gnu.so"]
    assert "not aarch64" in problems(report, budget_mb=1)[0]


def test_over_budget_and_over_the_lambda_limit_are_refused() -> None:
    report = LayerReport("x", "k", 200 * 1024 * 1024, 10, {}, [], False)
    found = problems(report, budget_mb=150, code_bytes=60 * 1024 * 1024)
    assert any("over the 150 MiB budget" in p for p in found)
    assert any("250 MB" in p for p in found)
