"""`previously check`: read every memory file and report what is wrong, with file and line.

Read-only. An *error* is something the product cannot read or will not see (a YAML error, a
badly named folder, an oversized file, an unreadable index); a *warning* is something it
tolerates (a phantom catalog entry, lines a rewrite would move to appendix.md, a legacy file, a
picture no turn refers to any more).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from datetime import datetime
from typing import Any, Literal

from core.clock import try_parse_iso
from core.errors import DamagedFile, InvalidInput, SliceFormatError
from core.media.images import read_stored
from core.memory import paths
from core.memory.card.model import is_card, parse_card
from core.memory.catalog.index import parse_index, read_index
from core.memory.catalog.layout import parse_month, parse_top
from core.memory.catalog.monthly import parse_monthly
from core.memory.catalog.strand_shards import parse_menu
from core.memory.catalog.strands import parse_strands
from core.memory.config import parse_config
from core.memory.damage import read_text
from core.memory.evolution.check import check_evolution_file
from core.memory.owners import slice_core, strands
from core.memory.paths import PathClass, PathKind
from core.memory.slice.appendix import explain_unplaceable
from core.memory.slice.image_bytes import picture_problem
from core.memory.slice.model import CLOSED_BY_VALUES, as_text, escaped, parse_frontmatter
from core.memory.slice.pictures import is_legacy, is_picture, orphan_pictures
from core.storage.base import BytesReader, Reader

Severity = Literal["error", "warning"]
FileCheck = Callable[[str, str], list["Finding"]]

_LINE_RE = re.compile(r" at line (\d+)")


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
    advice = "; the product ignores what it cannot read and `previously weave` rebuilds it"
    return _json_findings(path, text, [p + advice for p in problems])


def check_strand_menu(path: str, text: str) -> list[Finding]:
    """strands/menu.json: strand → {count, latest}; derived from the shards."""
    if parse_menu(text) is not None:
        return []
    problem = "not a strand menu (strand → {count, latest}); the product derives it again from the shards"
    return _json_findings(path, text, [problem])


def check_catalog(path: str, text: str) -> list[Finding]:
    """timeline/index.json (the single-file catalog of earlier versions): readable and well formed."""
    return _json_findings(path, text, parse_index(text)[1])


def check_catalog_top(path: str, text: str) -> list[Finding]:
    """timeline/catalog.json: the catalog's counters and months."""
    if parse_top(text) is not None:
        return []
    problem = 'must be an object with a "months" list of {month, slices, sha}; `previously weave` rebuilds it'
    return _json_findings(path, text, [problem])


def check_catalog_month(path: str, text: str) -> list[Finding]:
    """timeline/index/YYYY-MM.json: that month's catalog entries."""
    month = path.rsplit("/", 1)[-1][:7]
    if parse_month(month, text) is not None:
        return []
    problem = f'must be an object with a "slices" list of entries of {month}; `previously weave` rebuilds it'
    return _json_findings(path, text, [problem])


def check_monthly(path: str, text: str) -> list[Finding]:
    """A monthly `_index.json`."""
    problems = parse_monthly(text)[1]
    return _json_findings(path, text, [f"{p}; `previously weave` rebuilds it" for p in problems])


def check_config(path: str, text: str) -> list[Finding]:
    """config.json: readable, every value in range."""
    _, problems = parse_config(text)
    line = json_error_line(text)
    return [Finding(path, "error", f"{p.field}: {p.message}", line) for p in problems]


def check_core_md(path: str, text: str, folder_id: str) -> list[Finding]:
    """A slice's core.md: YAML that parses, sensible fields, nothing a rewrite would have to move."""
    try:
        blocks = explain_unplaceable(text)
        raw = parse_frontmatter(text)
    except SliceFormatError as exc:
        m = _LINE_RE.search(str(exc))
        return [Finding(path, "error", str(exc), int(m.group(1)) if m else None)]
    found = [
        Finding(path, "warning", f"{b.reason}; a rewrite moves it to appendix.md", b.first_line)
        for b in blocks
    ]
    if not text.startswith(("---", "\ufeff---")):
        found.append(
            Finding(path, "warning", "no YAML frontmatter: it reads as an active slice without a start", 1)
        )
    found.extend(Finding(path, "warning", message) for message in _frontmatter_notes(raw, folder_id))
    found.extend(Finding(path, "warning", message, line) for line, message in _misread_headers(text))
    return found


def _misread_headers(text: str) -> list[tuple[int | None, str]]:
    """Turn headers that look written inside a message: a repeated id and role, or a lone turn
    whose time goes back.

    An unescaped file (from the original, or edited by hand) cannot tell such a line from a
    real turn; a file Previously writes escapes them (docs/FORMAT.md, "Escaped turn text"), so
    there every header is a real turn. Times going back are no sign of damage when the turn
    is one half of a whole exchange (its id has both a user and an agent turn): two writers
    saving at once interleave their exchanges, and an import keeps the source's own times.
    """
    parsed = slice_core.parse_slice(text)
    roles: dict[str | None, set[str]] = {}
    for t in parsed.turns:
        roles.setdefault(t.turn_id, set()).add(t.role)
    found: list[tuple[int | None, str]] = []
    seen: set[tuple[str | None, str]] = set()
    latest: datetime | None = None
    lines, at = text.split("\n"), 0
    for t in parsed.turns:
        at = next((i for i in range(at, len(lines)) if lines[i].rstrip("\r") == t.header), at)
        when = try_parse_iso(t.timestamp)
        label = t.turn_id or t.legacy_label
        whole = t.turn_id is not None and len(roles.get(t.turn_id, ())) > 1
        if t.turn_id is not None and (t.turn_id, t.role) in seen:
            found.append(
                (at + 1, f"a second {t.role} turn {label}: {_TWICE if escaped(parsed) else _MISREAD}")
            )
        elif when is not None and latest is not None and when < latest and not whole and not escaped(parsed):
            found.append((at + 1, f"turn {label} is older than the turn before it: {_MISREAD}"))
        seen.add((t.turn_id, t.role))
        latest = when if latest is None or (when is not None and when > latest) else latest
    return found


_MISREAD = (
    "it may be a header-shaped line written inside a message, so that message shows in two "
    "parts; both parts are kept as written and nothing is lost, so there is nothing to repair"
)
_TWICE = "the same message saved twice (both copies are kept as written; nothing is lost)"


def _frontmatter_notes(raw: dict[str, Any], folder_id: str) -> list[str]:
    notes = []
    sid = as_text(raw.get("slice_id"))
    if sid and sid != folder_id:
        notes.append(f"slice_id {sid!r} differs from its folder ({folder_id}); the folder wins")
    status = as_text(raw.get("status"))
    if status not in ("", "active", "closed"):
        notes.append(f"status {status!r} is neither active nor closed; it reads as active")
    closed_by = as_text(raw.get("closed_by"))
    if status == "closed" and closed_by and closed_by not in CLOSED_BY_VALUES:
        notes.append(f"closed_by {closed_by!r} is unknown; it reads as user_explicit")
    start = as_text(raw.get("start"))
    if start and try_parse_iso(start) is None:
        notes.append(f"start {start!r} is not an ISO time: the time cap never closes this slice")
    return notes


def check_card(path: str, text: str, now: datetime) -> list[Finding]:
    """The user card (live or a slice's snapshot): lines no section takes are kept, but flagged."""
    if not text.strip():
        return []
    if not is_card(text):
        return [Finding(path, "warning", "does not look like a user card (no stamp, no Identity or Past)")]
    lines = text.split("\n")
    note = "a line in no card section; a rewrite keeps it under ## Unsorted"
    return [
        Finding(
            path, "warning", note, next((i + 1 for i, raw in enumerate(lines) if raw.strip() == entry), None)
        )
        for entry in parse_card(text, now).unplaced
    ]


def check_memory(
    reader: BytesReader,
    now: datetime,
    tick: Callable[[], None] | None = None,
    on_total: Callable[[int], None] | None = None,
) -> CheckReport:
    """Check every file under `memory/` and the shape of the slice tree (`tick` once per file)."""
    report = CheckReport()
    listing = reader.list(paths.MEMORY)
    report.files = len(listing)
    if on_total:
        on_total(len(listing))
    folders: dict[str, set[str]] = {}
    flats: set[str] = set()
    for path in listing:
        kind = paths.classify(path)
        if kind.kind is PathKind.LEGACY_FLAT and kind.slice_id:
            flats.add(kind.slice_id.slash)
        elif kind.folder_id:
            folders.setdefault(kind.folder_id.dash, set()).add(kind.inner)
        report.findings.extend(_check_file(reader, path, kind, now))
        if tick:
            tick()
    report.slices = len(folders)
    report.findings.extend(_check_folders(folders))
    report.findings.extend(_check_catalog_against(reader, folders))
    report.findings.extend(_check_strands_against(reader, folders, flats))
    report.findings.extend(_check_pictures(reader, folders))
    return report


def _read(reader: Reader, path: paths.MemoryPath) -> tuple[str | None, Finding | None]:
    try:
        return read_text(reader, path), None
    except DamagedFile as exc:  # over the size cap, not UTF-8
        return None, Finding(path.value, "error", exc.damage.problem)


_FIXED_CHECKS: dict[PathKind, FileCheck] = {
    PathKind.STRANDS: check_strands,
    PathKind.STRAND_SHARD: check_strands,
    PathKind.STRAND_MENU: check_strand_menu,
    PathKind.CATALOG: check_catalog,
    PathKind.CATALOG_TOP: check_catalog_top,
    PathKind.CATALOG_MONTH: check_catalog_month,
    PathKind.CONFIG: check_config,
    PathKind.MONTHLY_INDEX: check_monthly,
}


def _check_file(reader: BytesReader, path: paths.MemoryPath, kind: PathClass, now: datetime) -> list[Finding]:
    if kind.slice_id and is_picture(kind.inner) and not is_legacy(path):
        return _check_image_file(reader, path)
    text, problem = _read(reader, path)
    if problem or text is None:
        return [problem] if problem else []
    value = path.value
    if kind.slice_id or kind.kind is PathKind.SLICES_STRAY:
        return _check_slice_tree_file(value, kind, text, now)
    if kind.kind is PathKind.CARD:
        return check_card(value, text, now)
    if kind.kind is PathKind.EVOLUTION:
        return [Finding(x.path, x.severity, x.message, x.line) for x in check_evolution_file(path, text, now)]
    check = _FIXED_CHECKS.get(kind.kind)
    return check(value, text) if check else []


def _check_slice_tree_file(value: str, kind: PathClass, text: str, now: datetime) -> list[Finding]:
    sid = kind.slice_id
    if kind.kind is PathKind.LEGACY_FLAT and sid:
        note = "legacy flat slice file: read only to recover an active slice, not in the catalog"
        return [Finding(value, "warning", note), *check_core_md(value, text, sid.dash)]
    if sid is None:
        note = "not in a slice folder (expected YYYY/MM/DD/HHMM/…): the product never reads this file"
        return [Finding(value, "error", note)]
    if kind.kind is PathKind.CORE_MD:
        return check_core_md(value, text, sid.dash)
    if kind.kind is PathKind.CARD_SNAPSHOT:
        return check_card(value, text, now)
    if is_picture(kind.inner):
        return _check_image(value, text)
    if kind.kind is PathKind.SLICE_FILE:
        return [Finding(value, "warning", "unexpected file in a slice folder; the product ignores it")]
    return []


def _check_image(value: str, text: str) -> list[Finding]:
    """A picture saved as base64 text (docs/FORMAT.md, "Pictures"): `maintain` migrates it."""
    try:
        read_stored(text)
    except InvalidInput:
        return [Finding(value, "error", "damaged picture: not base64 (the turn's link shows nothing)")]
    note = "picture saved as base64 text: `previously maintain` turns it into the image file the turn links"
    return [Finding(value, "warning", note)]


def _check_image_file(reader: BytesReader, path: paths.MemoryPath) -> list[Finding]:
    """A picture attached to a turn: an image file of the kind its name says."""
    try:
        data = reader.read_bytes(path)
    except InvalidInput as exc:  # over the size cap, a link out of the folder
        return [Finding(path.value, "error", str(exc))]
    if data is not None and (problem := picture_problem(data, path.name)) is not None:
        return [Finding(path.value, "error", f"damaged picture: {problem}")]
    return []


def _check_pictures(reader: Reader, folders: dict[str, set[str]]) -> list[Finding]:
    """Pictures no turn refers to any more (docs/FORMAT.md "Pictures"): a warning, as nothing is
    lost and the user may want them; the message says how to remove them."""
    found = []
    for sid, files in sorted(folders.items()):
        if not any(is_picture(inner) for inner in files):
            continue
        for orphan in orphan_pictures(reader, sid):
            note = (
                f"picture of slice {sid} that no turn refers to any more: turn {orphan.turn_id} is gone "
                "and no text of the slice links it (left by an earlier forget or an interrupted turn); "
                f"`previously forget {sid} --turn {orphan.turn_id}` deletes it, or delete the file by hand"
            )
            found.append(Finding(orphan.path.value, "warning", note))
    return found


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
        if paths.SliceId.parse(sid).started is None:
            found.append(Finding(folder, "warning", "the folder name is not a real UTC date and time"))
    return found


def _check_catalog_against(reader: Reader, folders: dict[str, set[str]]) -> list[Finding]:
    """Catalog entries without a slice (phantoms) and slices the catalog lacks (pending entries count)."""
    index = read_index(reader)
    if index is None:
        return []
    listed = {str(e["id"]) for e in index["slices"]}
    real = {sid for sid, files in folders.items() if "timeline/core.md" in files}
    found = []
    phantoms, missing = sorted(listed - real), sorted(real - listed)
    where = paths.CATALOG_TOP_JSON.value
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


def _check_strands_against(reader: Reader, folders: dict[str, set[str]], flats: set[str]) -> list[Finding]:
    """Strand paths that point at no slice folder."""
    found_strands, _ = strands.read_strands(reader)
    real = {paths.slice_rel(sid) for sid in folders} | flats
    dangling = sorted({p for ps in found_strands.values() for p in ps if p not in real})
    if not dangling:
        return []
    message = (
        f"{len(dangling)} slice paths point at no slice folder (first: {dangling[0]}); "
        "`previously weave` drops them"
    )
    return [Finding(paths.STRANDS_DIR.value, "warning", message)]
