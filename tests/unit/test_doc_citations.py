"""Code cites the repository's own docs (docs/FORMAT.md for a file format), never a document
outside it (the original's REFERENCE.md, the shared spec or design notes), and a cited section
exists under that name."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

pytestmark = pytest.mark.unit
ROOT = Path(__file__).resolve().parents[2]
SUFFIXES = {".py", ".js", ".jsx", ".ts", ".tsx", ".css", ".html"}
OUTSIDE = re.compile(r"REFERENCE|\.\./shared|\bspec/|§|design/(?:API|ARCHITECTURE|STYLE|UI|AWS-NOTES)\.md")
CITATION = re.compile(r"docs/([A-Z]+)\.md \"([^\"\n]+)\"")


def _code_files() -> list[Path]:
    files = []
    for folder in ("core", "functions", "web", "layers", "infra"):
        for path in (ROOT / folder).rglob("*"):
            skipped = {"node_modules", "dist", "vendor"} & set(path.parts)
            if path.suffix in SUFFIXES and path.is_file() and not skipped:
                files.append(path)
    return files


def test_code_cites_no_document_outside_the_repository() -> None:
    found = []
    for path in _code_files():
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if OUTSIDE.search(line):
                found.append(f"{path.relative_to(ROOT)}:{n}: {line.strip()}")
    assert found == [], "cite docs/FORMAT.md (or another docs/*.md section) instead"


def test_every_cited_section_exists() -> None:
    headings: dict[str, list[str]] = {}
    for doc in (ROOT / "docs").glob("*.md"):
        lines = doc.read_text(encoding="utf-8").splitlines()
        headings[doc.stem] = [line.lstrip("#").strip().lower() for line in lines if line.startswith("#")]
    missing = []
    for path in _code_files():
        for name, section in CITATION.findall(path.read_text(encoding="utf-8")):
            if not any(section.lower() in h for h in headings.get(name, [])):
                missing.append(f'{path.relative_to(ROOT)}: docs/{name}.md "{section}"')
    assert missing == []
