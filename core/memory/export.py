"""Taking the memory out: every file under `memory/` in one zip, and one slice as Markdown.

Which file is which comes from the owners' registry (`core.memory.owners.registry`); every
file is copied as its bytes are stored, damaged ones too (an authored file is left byte for byte).
The zip holds each file byte for byte at its repository path (`memory/…`), so unzipping it
beside an empty folder gives a memory Previously reads as it is. The search index is derived
(rebuilt by `previously maintain`) and left out unless asked for. A file that cannot be read
(over the size cap, a link out of the folder) is named in `EXPORT.txt` rather than silently missing. Entries
carry a fixed timestamp, so the same memory always makes the same bytes.
"""

from __future__ import annotations

import zipfile
from dataclasses import dataclass, field
from typing import IO

from core.errors import InvalidInput
from core.memory import paths
from core.memory.owners.registry import by_name, owner_of
from core.memory.slice.view import SliceDetail
from core.storage.base import BytesReader

NOTE_NAME = "EXPORT.txt"
_FIXED_TIME = (1980, 1, 1, 0, 0, 0)
SEARCH_INDEX = by_name("search index")  # derived: its owner rebuilds it, so it stays out unless asked


@dataclass
class ExportReport:
    """What went into the zip and what could not."""

    files: int = 0
    bytes: int = 0
    skipped: list[str] = field(default_factory=list)  # "path: reason"
    search_included: bool = False

    def as_dict(self) -> dict[str, object]:
        return {
            "files": self.files,
            "bytes": self.bytes,
            "skipped": self.skipped,
            "search_included": self.search_included,
        }


def _entry(name: str) -> zipfile.ZipInfo:
    info = zipfile.ZipInfo(name, date_time=_FIXED_TIME)
    info.compress_type = zipfile.ZIP_DEFLATED
    info.external_attr = 0o644 << 16
    return info


def export_zip(reader: BytesReader, out: IO[bytes], include_search: bool = False) -> ExportReport:
    """Write the memory as a zip to `out` (a file or a buffer)."""
    report = ExportReport(search_included=include_search)
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf:
        for path in reader.list(paths.MEMORY):
            owner = owner_of(path)
            if not include_search and owner is SEARCH_INDEX:
                continue
            try:
                data = reader.read_bytes(path)  # byte for byte: pictures, and text as stored
            except InvalidInput as exc:  # too large, a link out of the folder
                report.skipped.append(f"{path}: {exc}")
                continue
            if data is None:
                continue
            zf.writestr(_entry(path.value), data)
            report.files += 1
            report.bytes += len(data)
        zf.writestr(_entry(NOTE_NAME), _note(report))
    return report


def _note(report: ExportReport) -> str:
    lines = [
        "An export of a Previously memory: every file under memory/, byte for byte.",
        "Unzip it into an empty folder and point Previously at that folder (--memory DIR).",
    ]
    if not report.search_included:
        lines.append(
            "The search index (memory/episodic/search/) is left out: it is derived from the "
            "slices and `previously maintain` rebuilds it."
        )
    if report.skipped:
        lines.append("These files could not be read and are NOT in this export; copy them by hand:")
        lines.extend(f"  {s}" for s in report.skipped)
    return "\n".join(lines) + "\n"


def slice_markdown(detail: SliceDetail) -> str:
    """One slice as a readable Markdown document: its marks, then every turn word for word."""
    s = detail.slice
    lines = [f"# {s.focus or s.slice_id}", ""]
    when = s.start + (f" – {s.end}" if s.end else "")
    lines += [f"_Slice {s.slice_id} · {when} · {s.timezone}_", ""]
    if s.summary:
        lines += [s.summary, ""]
    for title, items in (("Tags", s.tags), ("Open loops", s.open_loops), ("Decisions", s.decisions)):
        if items:
            lines += [f"**{title}:** " + ", ".join(items), ""]
    for turn in s.turns:
        who = "You" if turn.role == "user" else "Previously"
        lines += [f"## {who} — {turn.timestamp}", "", turn.content, ""]
    return "\n".join(lines).rstrip() + "\n"
