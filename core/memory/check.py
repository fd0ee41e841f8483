"""`previously check`: read every memory file and report what is wrong, with file and line.

Read-only. An *error* is something the product cannot read or will not see (a YAML error, a
badly named folder, an oversized file, an unreadable index); a *warning* is something it
tolerates (a phantom catalog entry, lines a rewrite would move to appendix.md, a legacy file).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from core.errors import TooLarge
from core.memory import paths
from core.memory.catalog import parse_index
from core.memory.config import parse_config
from core.memory.monthly_index import parse_monthly
from core.memory.strands import parse_strands
from core.storage.base import Reader

Severity = Literal["error", "warning"]
FileCheck = Callable[[str, str], list["Finding"]]

_SLICES = paths.SLICES.value + "/"
_SLICE_FILE_RE = re.compile(r"^(\d{4})/(\d{2})/(\d{2})/(\d{4})/(.+)$")
_SLICE_FILES = ("timeline/core.md", "timeline/agent.md", "timeline/appendix.md", "previously.md")
_MONTHLY_RE = re.compile(r"^\d{4}/\d{2}/_index\.json$")
_FLAT_RE = re.compile(r"^\d{4}/\d{2}/\d{2}/\d{4}\.md$")


@dataclass(frozen=True)
class Finding:
    """One problem: the file, the line when known (1-based), how bad, and what to do."""

    path: str
    severity: Severity
    message: str
    line: int | None = None

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line else self.path
        return f"{where}: {self.severity}: {self.message}"


@dataclass
class CheckReport:
    """Every finding of one check run."""

    files: int = 0
    slices: int = 0
    findings: list[Finding] = field(default_factory=list)

    @property
    def errors(self) -> list[Finding]:
        return [f for f in self.findings if f.severity == "error"]

    @property
    def warnings(self) -> list[Finding]:
        return [f for f in self.findings if f.severity == "warning"]

    def as_dict(self) -> dict[str, Any]:
        return {
            "ok": not self.errors,
            "files": self.files,
            "slices": self.slices,
            "errors": [asdict(f) for f in self.errors],
            "warnings": [asdict(f) for f in self.warnings],
        }


def json_error_line(text: str) -> int | None:
    """The line of a JSON syntax error, if any."""
    try:
        json.loads(text)
    except json.JSONDecodeError as exc:
        return exc.lineno
    return None


def _json_findings(path: str, text: str, problems: list[str], severity: Severity = "error") -> list[Finding]:
    line = json_error_line(text) if problems else None
    return [Finding(path, severity, p, line) for p in problems]


def check_strands(path: str, text: str) -> list[Finding]:
    """strands.json: readable, an object of lists of slice paths."""
    _, problems = parse_strands(text)
    found = _json_findings(path, text, problems)
    if found:
        found.append(Finding(path, "error", "the product reads it as empty; `previously weave` rebuilds it"))
    return found


def check_catalog(path: str, text: str) -> list[Finding]:
    """timeline/index.json: readable and well formed."""
    return _json_findings(path, text, parse_index(text)[1])


def check_monthly(path: str, text: str) -> list[Finding]:
    """A monthly `_index.json`."""
    problems = parse_monthly(text)[1]
    return _json_findings(path, text, [f"{p}; `previously weave` rebuilds it" for p in problems])


def check_config(path: str, text: str) -> list[Finding]:
    """config.json: readable, every value in range."""
    _, problems = parse_config(text)
    line = json_error_line(text)
    return [Finding(path, "error", f"{p.field}: {p.message}", line) for p in problems]


@dataclass(frozen=True)
class Checkers:
    """The per-format checks that come from the format modules (core.md, the user card)."""

    core_md: FileCheck
    card: FileCheck | None = None


def check_memory(reader: Reader, checkers: Checkers, tick: Callable[[], None] | None = None) -> CheckReport:
    """Check every file under `memory/` and the shape of the slice tree."""
    report = CheckReport()
    listing = reader.list(paths.MEMORY)
    report.files = len(listing)
    folders: dict[str, set[str]] = {}
    for path in listing:
        rel = path.value[len(_SLICES) :] if path.value.startswith(_SLICES) else None
        if rel is not None:
            m = _SLICE_FILE_RE.match(rel)
            if m:
                folders.setdefault("-".join(m.groups()[:4]), set()).add(m.group(5))
        report.findings.extend(_check_file(reader, path, rel, checkers))
        if tick:
            tick()
    report.slices = len(folders)
    report.findings.extend(_check_folders(folders))
    report.findings.extend(_check_catalog_against(reader, folders))
    report.findings.extend(_check_strands_against(reader, folders))
    return report


def _read(reader: Reader, path: paths.MemoryPath) -> tuple[str | None, Finding | None]:
    try:
        text = reader.read(path)
    except TooLarge as exc:
        return None, Finding(path.value, "error", str(exc))
    except UnicodeDecodeError:
        return None, Finding(path.value, "error", "not UTF-8 text; the product cannot read it")
    if text is not None and len(text.encode("utf-8")) > paths.MAX_FILE_BYTES:
        size = len(text.encode("utf-8"))
        message = (
            f"{size} bytes, over the {paths.MAX_FILE_BYTES}-byte limit: the product will not rewrite it; "
            "split or shorten it"
        )
        return None, Finding(path.value, "error", message)
    return text, None


def _check_file(reader: Reader, path: paths.MemoryPath, rel: str | None, checkers: Checkers) -> list[Finding]:
    text, problem = _read(reader, path)
    if problem or text is None:
        return [problem] if problem else []
    value = path.value
    if rel is not None:
        return _check_slice_tree_file(value, rel, text, checkers)
    fixed: dict[str, FileCheck | None] = {
        paths.STRANDS_JSON.value: check_strands,
        paths.CATALOG_JSON.value: check_catalog,
        paths.CONFIG_JSON.value: check_config,
        paths.CARD.value: checkers.card,
    }
    check = fixed.get(value)
    return check(value, text) if check else []


def _check_slice_tree_file(value: str, rel: str, text: str, checkers: Checkers) -> list[Finding]:
    if _MONTHLY_RE.match(rel):
        return check_monthly(value, text)
    if _FLAT_RE.match(rel):
        note = "legacy flat slice file: read only to recover an active slice, not in the catalog"
        return [Finding(value, "warning", note), *checkers.core_md(value, text)]
    m = _SLICE_FILE_RE.match(rel)
    if not m:
        note = "not in a slice folder (expected YYYY/MM/DD/HHMM/…): the product never reads this file"
        return [Finding(value, "error", note)]
    inner = m.group(5)
    if inner == "timeline/core.md":
        return checkers.core_md(value, text)
    if inner == "previously.md" and checkers.card:
        return checkers.card(value, text)
    if inner not in _SLICE_FILES:
        return [Finding(value, "warning", "unexpected file in a slice folder; the product ignores it")]
    return []


def _check_folders(folders: dict[str, set[str]]) -> list[Finding]:
    found: list[Finding] = []
    for sid, files in sorted(folders.items()):
        folder = paths.slice_dir(sid).value
        if "timeline/core.md" not in files:
            found.append(
                Finding(
                    folder, "error", "slice folder without timeline/core.md: it is left out of the catalog"
                )
            )
        _, mo, d, hm = sid.split("-")
        if not (1 <= int(mo) <= 12 and 1 <= int(d) <= 31 and int(hm[:2]) < 24 and int(hm[2:]) < 60):
            found.append(Finding(folder, "warning", "the folder name is not a real UTC date and time"))
    return found


def _check_catalog_against(reader: Reader, folders: dict[str, set[str]]) -> list[Finding]:
    """Catalog entries without a slice (phantoms) and slices the catalog lacks."""
    try:
        index, _ = parse_index(reader.read(paths.CATALOG_JSON))
    except (TooLarge, UnicodeDecodeError):
        return []
    if index is None:
        return []
    listed = {str(e["id"]) for e in index["slices"]}
    real = {sid for sid, files in folders.items() if "timeline/core.md" in files}
    found = []
    phantoms, missing = sorted(listed - real), sorted(real - listed)
    where = paths.CATALOG_JSON.value
    if phantoms:
        found.append(
            Finding(
                where,
                "warning",
                f"{len(phantoms)} entries have no slice (first: {phantoms[0]}); "
                "`previously weave` drops them",
            )
        )
    if missing:
        found.append(
            Finding(
                where,
                "warning",
                f"{len(missing)} slices are not catalogued (first: {missing[0]}); "
                "`previously weave` adds them",
            )
        )
    return found


def _check_strands_against(reader: Reader, folders: dict[str, set[str]]) -> list[Finding]:
    """Strand paths that point at no slice folder."""
    try:
        strands, _ = parse_strands(reader.read(paths.STRANDS_JSON))
    except (TooLarge, UnicodeDecodeError):
        return []
    real = {paths.slice_rel(sid) for sid in folders}
    dangling = sorted({p for ps in strands.values() for p in ps if p not in real})
    if not dangling:
        return []
    message = (
        f"{len(dangling)} slice paths point at no slice folder (first: {dangling[0]}); "
        "`previously weave` drops them"
    )
    return [Finding(paths.STRANDS_JSON.value, "warning", message)]
