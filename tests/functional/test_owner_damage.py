"""Every file kind of the registry, damaged in turn, blocks nothing (docs/FORMAT.md "Who owns each
file"): a message is still saved, the turn answers, maintain runs through and names what it
owns the naming of, the page loads, and a damaged authored file is left byte for byte."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from core.clock import FixedClock, SequentialIds
from core.jobs.maintain import run_maintenance
from core.memory.owners.registry import REGISTRY, Owner
from core.memory.owners.scan import damage_of
from core.memory.paths import MemoryPath, classify
from core.storage.local import LocalStorage
from tests.fakes.fake_model_server import FakeModelServer
from tests.fakes.files import save_as_an_editor
from tests.fakes.images import jpeg
from tests.functional.api_env import make_env
from tests.functional.turn_support import make_harness

pytestmark = pytest.mark.functional

START = "2026-11-30T10:00:00.000Z"
LATER = "2026-11-30T10:05:00.000Z"
Damage = Callable[[Owner, bytes], bytes | None]  # the damaged bytes, or None when it does not apply


def _not_utf8(owner: Owner, data: bytes) -> bytes | None:
    # A binary kind (pictures: real image bytes) is never UTF-8: its damage is being cut short or too large.
    return None if owner.binary else data + b"\xff\xfe not UTF-8"


def _oversized(owner: Owner, data: bytes) -> bytes | None:
    return data + b"x" * (owner.cap + 1) if owner.cap <= 1_000_000 else None  # 50 MB: too slow here


def _broken(owner: Owner, data: bytes) -> bytes | None:
    if owner.check is None:
        return None
    return (
        b'{"unclosed": [' if owner.example and owner.example.value.endswith(".json") else b"---\nfocus: [\n"
    )


def _truncated(owner: Owner, data: bytes) -> bytes | None:
    return data[: len(data) // 2] if len(data) > 1 else None


DAMAGES: dict[str, Damage] = {
    "not-utf8": _not_utf8,
    "oversized": _oversized,
    "broken": _broken,
    "truncated": _truncated,
}
CASES = [
    pytest.param(owner, how, id=f"{owner.name}-{how}")
    for owner in REGISTRY
    if owner.kind is not None  # run records live outside the memory (tests/functional/test_turn_recovery*)
    for how in DAMAGES
]


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A memory two turns old, maintained once (catalog, strands, search index, card, snapshots)."""
    root = tmp_path_factory.mktemp("template")
    with FakeModelServer() as fake:
        h = make_harness(LocalStorage(root), FixedClock.at(START), fake)
        assert h.brain is not None
        h.brain.main("Hello.", "Noted.")
        assert h.turn("Hello, I'm Nell.").status == "done"
        assert h.turn("I live in Bristol.").status == "done"
        run_maintenance(h.deps, use_model=False)
    return root


def _target(root: Path, owner: Owner) -> MemoryPath:
    """An existing file of this kind in the memory, else the registry's example path (for a
    slice-folder kind, inside the memory's first slice folder)."""
    files = [f.relative_to(root).as_posix() for f in sorted(root.rglob("*")) if f.is_file()]
    files = [rel for rel in files if not any(p.startswith(".") for p in rel.split("/"))]
    for rel in files:
        if owner.owns(rel):
            return MemoryPath(rel)
    assert owner.example is not None
    inner = classify(owner.example).inner
    folders = [found.folder_id for rel in files if (found := classify(rel)).folder_id is not None]
    return folders[0].dir / inner if inner and folders else owner.example


def _before(file: Path, owner: Owner) -> bytes:
    """What the file holds before the damage: its bytes, or for a new one a valid file of its kind."""
    if file.exists():
        return file.read_bytes()
    return jpeg() if owner.binary else b"x"


@pytest.mark.parametrize(("owner", "how"), CASES)
def test_a_damaged_file_blocks_nothing(
    template: Path, tmp_path: Path, fake_models: FakeModelServer, owner: Owner, how: str
) -> None:
    root = tmp_path / "memory-root"
    shutil.copytree(template, root)
    path = _target(root, owner)
    file = root / path.value
    before = _before(file, owner)
    damaged = DAMAGES[how](owner, before)
    if damaged is None:
        pytest.skip(f"{how} does not apply to {owner.name}")
    file.parent.mkdir(parents=True, exist_ok=True)
    save_as_an_editor(file, damaged)
    # The owner's own reader says whether this is damage (a truncated file may still read whole).
    is_damaged = damage_of(LocalStorage(root).snapshot(), owner, path) is not None  # type: ignore[arg-type]
    if owner.binary:  # a picture cut short or too large is damage, told by its bytes
        assert is_damaged, f"{how} {path.value} reads as a whole picture"

    h = make_harness(LocalStorage(root), FixedClock.at(LATER), fake_models)
    assert h.brain is not None and isinstance(h.deps.ids, SequentialIds)
    h.deps.ids.counter = 100  # past the template's turn ids
    h.brain.main("Still here.")
    state = h.turn("Are you still there?")
    assert state.status == "done" and state.reply == "Still here.", state.events[-1]
    assert state.slice_id and any(t.content == "Are you still there?" for t in h.slice(state.slice_id).turns)

    report = run_maintenance(h.deps, use_model=False)
    assert report.stopped is None
    if is_damaged and owner.authored and "maintain" in owner.named_by:
        assert any(line.startswith(path.value) for line in report.damaged), report.damaged

    page = make_env(storage=LocalStorage(root)).client.get("/api/state")
    assert page.status_code == 200, page.text
    if is_damaged and "the page" in owner.named_by:
        assert any(path.value in line for line in page.json()["damaged"])
    if is_damaged and owner.authored:
        assert file.read_bytes() == damaged, "a damaged authored file is left byte for byte"
