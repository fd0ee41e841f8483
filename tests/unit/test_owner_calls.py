"""Every operation goes through the owners (issue 29): the operations over the memory — forget,
check, edit, take-back (core/actions) and export — read and write memory files through the
owner modules (core/memory/owners), never by naming a file's path and calling its codec.

Enforced by reading the source, like tests/unit/test_layers.py.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

# Where `parse_core_md(` may be called. The owners, the core.md codec itself and the slice
# package's readers and writer (the owner's own implementation), and — stated one by one — the
# readers outside the operations that still parse text they were handed. Adding a file here
# needs a reason; core/actions and export must never appear.
PARSE_CORE_MD_ALLOWED = {
    "core/memory/owners/slice_core.py": "the core.md owner",
    "core/memory/slice/merge.py": "the core.md writer (SliceUpdate) the owner queues",
    "core/memory/slice/view.py": "the slice reader the API and MCP show",
    "core/memory/slice/slicer.py": "the active-slice reader of a turn",
    "core/memory/slice/legacy.py": "the legacy flat file's reader",
    "core/memory/slice/pictures.py": "which pictures a slice's turns link",
    "core/turn/steps/save.py": "the turn's save (not an operation over the owners)",
    "core/turn/steps/finalize.py": "the turn's finalize (as above)",
    "core/turn/closing.py": "the turn's close (as above)",
    "core/imports/plan.py": "imports plan slices from the text they build",
    "core/imports/run.py": "an import's merge with an existing slice",
    "core/jobs/maintain.py": "maintenance's picture migration reads the turns it rewrites links of",
    "core/jobs/evolve_now.py": "evolution reads recent turns for its prompt",
    "core/agent/outside_read.py": "the model's read tool over one slice",
    "core/agent/outside_context.py": "the model's context of another slice",
    "core/search/reader.py": "the search index reads every slice it indexes",
}

# The operations over the owners: none of them names a file kind's codec or its path.
OPERATIONS = [*sorted((ROOT / "core/actions").glob("*.py")), ROOT / "core/memory/export.py"]
CODEC_CALLS = re.compile(
    r"\b(parse_core_md|render_core_md|rewrite_core_md|render_strands|load_strands|render_files"
    r"|readable_slice_file|edit_slice|remove_pending|remove_monthly)\("
)
OWNED_PATHS = re.compile(r"\bpaths\.(STRANDS_JSON|PENDING_JSON|TIMELINE_MD|core_md)\b(?!\.value)")


def _calls(path: Path, name: str) -> bool:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            fn = node.func
            called = fn.id if isinstance(fn, ast.Name) else fn.attr if isinstance(fn, ast.Attribute) else None
            if called == name:
                return True
    return False


@pytest.mark.unit
def test_parse_core_md_is_called_only_by_its_owners() -> None:
    callers = {
        str(p.relative_to(ROOT))
        for top in ("core", "functions")
        for p in sorted((ROOT / top).rglob("*.py"))
        if _calls(p, "parse_core_md")
    }
    assert callers - set(PARSE_CORE_MD_ALLOWED) == set()
    assert not any(c.startswith("core/actions/") or c == "core/memory/export.py" for c in callers)


@pytest.mark.unit
@pytest.mark.parametrize("path", OPERATIONS, ids=lambda p: p.name)
def test_operations_read_and_write_through_the_owners(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    found = [m[0] for m in CODEC_CALLS.finditer(text)] + [m[0] for m in OWNED_PATHS.finditer(text)]
    assert found == [], f"{path.relative_to(ROOT)} assembles a file itself: {found}"
