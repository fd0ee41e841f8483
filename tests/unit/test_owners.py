"""The registry of file kinds (core/memory/owners/registry.py): one owner per kind, a byte-for-byte
round trip, and the table in docs/FORMAT.md generated from it."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from core.errors import DamagedFile
from core.memory import paths
from core.memory.owners.registry import REGISTRY, owner_of, registry_table
from core.storage.base import WriteBatch
from core.storage.memory import InMemoryStorage

pytestmark = pytest.mark.unit

FORMAT_MD = Path(__file__).resolve().parents[2] / "docs/FORMAT.md"


def test_every_registered_example_is_owned_by_its_own_kind_through_classify() -> None:
    for owner in REGISTRY:
        if owner.example is not None:
            assert owner_of(owner.example) is owner, owner.name


def test_every_file_kind_classify_knows_has_an_owner() -> None:
    owned = {o.kind for o in REGISTRY}
    unowned = set(paths.PathKind) - owned - {paths.PathKind.SLICES_STRAY, paths.PathKind.OTHER}
    assert not unowned


def test_docs_format_md_shows_the_registry() -> None:
    text = FORMAT_MD.read_text(encoding="utf-8")
    table = text.split("<!-- owners:begin -->\n", 1)[1].split("<!-- owners:end -->", 1)[0]
    assert table == registry_table(), "regenerate the table in docs/FORMAT.md from registry_table()"


@given(st.text(max_size=300))
def test_what_a_writer_is_given_its_reader_returns_byte_for_byte(text: str) -> None:
    for owner in REGISTRY:
        if owner.example is None:
            continue
        batch = WriteBatch.open(InMemoryStorage())
        owner.write(batch, owner.example, text)
        try:
            assert owner.read(batch, owner.example) == text
        except DamagedFile:
            assert owner.check is not None  # only a kind with its own parse may refuse text
