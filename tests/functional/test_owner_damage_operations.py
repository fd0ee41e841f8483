"""Every file kind of the registry, damaged in turn, and the operations over the owners (issue 29,
"what check, forget, export, rebuild, MCP and the page do with it"): `check` runs through and
names the damaged file, export copies every file it can read byte for byte (a damaged authored
file too), the MCP briefing and card answer, forgetting a slice still works, and a damaged
authored file outside the forgotten slice is left byte for byte."""

from __future__ import annotations

import io
import shutil
import zipfile
from pathlib import Path

import pytest

from core.actions.check import check_memory
from core.actions.forget import forget
from core.agent.outside import OutsideAccess
from core.clock import FixedClock, SequentialIds
from core.memory.export import export_zip
from core.memory.owners.registry import Owner
from core.memory.owners.scan import damage_of
from core.memory.paths import SLICES, classify
from core.storage.local import LocalStorage
from tests.fakes.files import save_as_an_editor
from tests.functional.test_owner_damage import CASES, DAMAGES, LATER, _before, _target, template

pytestmark = pytest.mark.functional
__all__ = ["template"]  # the fixture: a memory two turns old, maintained once


@pytest.mark.parametrize(("owner", "how"), CASES)
def test_check_export_mcp_and_forget_meet_a_damaged_file(
    template: Path, tmp_path: Path, owner: Owner, how: str
) -> None:
    root = tmp_path / "memory-root"
    shutil.copytree(template, root)
    path = _target(root, owner)
    file = root / path.value
    damaged = DAMAGES[how](owner, _before(file, owner))
    if damaged is None:
        pytest.skip(f"{how} does not apply to {owner.name}")
    file.parent.mkdir(parents=True, exist_ok=True)
    save_as_an_editor(file, damaged)
    storage = LocalStorage(root)
    clock = FixedClock.at(LATER)
    is_damaged = damage_of(storage.snapshot(), owner, path) is not None  # type: ignore[arg-type]

    report = check_memory(storage.snapshot(), clock.now())
    if is_damaged and how in ("not-utf8", "oversized"):  # unreadable: check names it, whatever its kind
        assert any(f.path == path.value and f.severity == "error" for f in report.findings), report.findings

    out = io.BytesIO()
    exported = export_zip(storage.snapshot(), out, include_search=True)
    names = zipfile.ZipFile(out).namelist()
    if path.value in names:
        assert zipfile.ZipFile(out).read(path.value) == damaged, "export copies the file as stored"
    else:
        assert any(s.startswith(path.value) for s in exported.skipped), exported.skipped

    access = OutsideAccess(storage=storage, clock=clock, ids=SequentialIds())
    assert access.briefing().startswith("Previously on")
    access.read_card()

    # Forget the slice the damaged file is not in (the template has two slices or one: then it).
    found = (classify(p).folder_id for p in storage.snapshot().list(SLICES))
    slices = sorted({f.dash for f in found if f is not None})
    home = classify(path).folder_id
    others = [s for s in slices if home is None or s != home.dash]
    target = (others or slices)[0]
    gone = forget(storage, target, clock)
    assert gone.whole_slice and gone.slice_id == target
    if owner.authored and (home is None or home.dash != target):
        assert path.value not in gone.changed
        assert file.read_bytes() == damaged, "a damaged authored file is left byte for byte"
