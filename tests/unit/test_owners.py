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
from tests.fakes.images import jpeg

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
        if owner.example is None or owner.binary:
            continue
        batch = WriteBatch.open(InMemoryStorage())
        owner.write(batch, owner.example, text)
        try:
            assert owner.read(batch, owner.example) == text
        except DamagedFile:
            assert owner.check is not None  # only a kind with its own parse may refuse text


@given(st.binary(max_size=300))
def test_a_binary_kind_round_trips_its_bytes_byte_for_byte(middle: bytes) -> None:
    data = b"\xff\xd8\xff" + middle + b"\xff\xd9"  # a JPEG's start and end markers round any bytes
    for owner in (o for o in REGISTRY if o.binary):
        assert owner.example is not None and owner.example.name.endswith(".jpg")
        batch = WriteBatch.open(InMemoryStorage())
        owner.write_bytes(batch, owner.example, data)
        assert owner.read_bytes(batch, owner.example) == data


def test_pictures_are_image_files_read_as_bytes() -> None:
    pictures = next(o for o in REGISTRY if o.name == "pictures")
    assert pictures.binary and pictures.example is not None
    assert pictures.example.name == "t1-1.jpg" and pictures.cap == paths.MAX_FILE_BYTES
    whole = jpeg()
    batch = WriteBatch.open(InMemoryStorage())
    pictures.write_bytes(batch, pictures.example, whole)
    assert pictures.read_bytes(batch, pictures.example) == whole
    batch.put_bytes(pictures.example, whole[: len(whole) // 2])
    damage = pictures.damage(batch, pictures.example)
    assert damage is not None and "cut short" in damage.problem
    batch.put_bytes(pictures.example, b"not a picture")
    damage = pictures.damage(batch, pictures.example)
    assert damage is not None and "not the image its name says" in damage.problem
