"""A demo persona's overlay in S3 (moto): shared by containers, wiped after a day, capped, exact."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import boto3
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from moto import mock_aws

from core.clock import FixedClock
from core.errors import InvalidInput, StorageError, TooLarge
from core.storage.base import Put, Update
from core.storage.demo import DemoStorage
from core.storage.paths import MemoryPath
from functions.aws.demo_overlay import S3Overlay, overlay_prefix

pytestmark = pytest.mark.functional
CARD = MemoryPath("memory/user/current-previously.md")
NOTE = MemoryPath("memory/notes/visitor.md")
BUCKET = "runs"


@pytest.fixture
def s3() -> Iterator[Any]:
    with mock_aws():
        client = boto3.client("s3", region_name="us-east-1")
        client.create_bucket(Bucket=BUCKET)
        yield client


@pytest.fixture
def persona(tmp_path: Path) -> Path:
    root = tmp_path / "sample"
    (root / "memory" / "user").mkdir(parents=True)
    (root / "memory" / "user" / "current-previously.md").write_text("# Previously On\n", encoding="utf-8")
    (root / "persona.json").write_text('{"id": "nell"}', encoding="utf-8")
    return root


def container(s3: Any, persona: Path, clock: FixedClock, max_bytes: int = 20_000_000) -> DemoStorage:
    """The demo as one Lambda container builds it (its own S3Overlay over the shared bucket)."""
    return DemoStorage(persona, lambda pid: S3Overlay(s3, BUCKET, pid, clock, max_bytes=max_bytes))


def keys(s3: Any) -> list[str]:
    return sorted(o["Key"] for o in s3.list_objects_v2(Bucket=BUCKET).get("Contents", []))


def test_what_one_container_writes_another_reads_and_the_persona_is_untouched(s3: Any, persona: Path) -> None:
    clock = FixedClock.at("2026-12-01T10:00:00Z")
    writer, reader = container(s3, persona, clock), container(s3, persona, clock)
    writer.commit([Update(CARD, lambda t: (t or "") + "- visitor\n"), Put(NOTE, "hello")], "turn")
    snap = reader.snapshot()
    assert snap.read(CARD) == "# Previously On\n- visitor\n" and snap.read(NOTE) == "hello"
    assert snap.version == writer.snapshot().version
    assert reader.overlay_paths == sorted([CARD, NOTE])
    assert (persona / "memory/user/current-previously.md").read_text(encoding="utf-8") == "# Previously On\n"
    assert not (persona / "memory/notes").exists()
    assert all(k.startswith("demo/nell/overlay/") for k in keys(s3))
    assert "demo/nell/overlay/manifest.json" in keys(s3)


def test_the_overlay_is_wiped_a_day_after_its_first_write(s3: Any, persona: Path) -> None:
    clock = FixedClock.at("2026-12-01T10:00:00Z")
    storage = container(s3, persona, clock)
    storage.commit([Put(NOTE, "first")], "turn")
    clock.advance(hours=23)
    storage.commit([Put(NOTE, "second")], "turn")  # a later write does not extend the day
    assert container(s3, persona, clock).snapshot().read(NOTE) == "second"
    clock.advance(hours=1)
    fresh = container(s3, persona, clock)
    assert fresh.snapshot().read(NOTE) is None and fresh.overlay_paths == []
    clock.advance(seconds=5)
    assert fresh.snapshot().version == fresh.snapshot().version == "demo-0", "steady while empty"
    assert fresh.snapshot().read(CARD) == "# Previously On\n", "the persona itself is still there"
    fresh.commit([Update(NOTE, lambda t: (t or "") + "new day")], "turn")
    assert storage.snapshot().read(NOTE) == "new day", "a new overlay, seen by every container"


def test_a_visitor_cannot_fill_the_bucket_past_the_cap(s3: Any, persona: Path) -> None:
    clock = FixedClock.at("2026-12-01T10:00:00Z")
    storage = container(s3, persona, clock, max_bytes=1000)
    storage.commit([Put(NOTE, "x" * 600)], "turn")
    before = keys(s3)
    with pytest.raises(TooLarge, match=r"no room for more changes.*wipes its changes 24 hours after"):
        storage.commit([Put(NOTE, "y" * 500)], "turn")  # rewrites count too: the bucket keeps them
    assert keys(s3) == before, "nothing more was written"
    assert storage.snapshot().read(NOTE) == "x" * 600, "what was there is kept"
    clock.advance(days=1)
    storage.commit([Put(NOTE, "y" * 500)], "turn")  # a new overlay has room again
    assert storage.snapshot().read(NOTE) == "y" * 500


def test_a_damaged_manifest_is_a_clear_error_and_the_persona_stays_readable(s3: Any, persona: Path) -> None:
    clock = FixedClock.at("2026-12-01T10:00:00Z")
    s3.put_object(Bucket=BUCKET, Key="demo/nell/overlay/manifest.json", Body=b"{not json")
    storage = container(s3, persona, clock)
    with pytest.raises(
        StorageError, match=r"manifest demo/nell/overlay/manifest\.json is damaged.*delete it"
    ):
        storage.snapshot()
    with pytest.raises(StorageError, match="damaged"):
        storage.commit([Put(NOTE, "lost?")], "turn")
    assert (persona / "memory/user/current-previously.md").read_text(encoding="utf-8") == "# Previously On\n"


@pytest.mark.parametrize(
    "files",
    ['{"../x": "' + "a" * 40 + '"}', '{"memory/notes/a.md": "../../runs/x"}', '["memory/notes/a.md"]'],
)
def test_a_manifest_naming_a_path_outside_the_memory_or_no_sha_is_damaged(
    s3: Any, persona: Path, files: str
) -> None:
    body = '{"started": "2026-12-01T10:00:00.000Z", "commits": 1, "written_bytes": 1, "files": ' + files + "}"
    s3.put_object(Bucket=BUCKET, Key="demo/nell/overlay/manifest.json", Body=body.encode())
    with pytest.raises(StorageError, match="damaged"):
        container(s3, persona, FixedClock.at("2026-12-01T11:00:00Z")).snapshot()


def test_a_persona_id_that_is_no_safe_prefix_is_refused() -> None:
    for bad in ("../nell", "Nell", "a/b", "", "x\n"):
        with pytest.raises(InvalidInput):
            overlay_prefix(bad)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=st.text(max_size=2000))
def test_any_text_comes_back_exactly_in_another_container(s3: Any, persona: Path, text: str) -> None:
    clock = FixedClock.at("2026-12-01T10:00:00Z")
    container(s3, persona, clock).commit([Put(NOTE, text)], "turn")
    assert container(s3, persona, clock).snapshot().read(NOTE) == text


def test_a_blob_that_does_not_hold_its_text_is_a_clear_error(s3: Any, persona: Path) -> None:
    clock = FixedClock.at("2026-12-01T10:00:00Z")
    container(s3, persona, clock).commit([Put(NOTE, "the visitor's words")], "turn")
    (blob,) = [k for k in keys(s3) if "/blobs/" in k]
    s3.put_object(Bucket=BUCKET, Key=blob, Body=b"something else")
    with pytest.raises(StorageError, match="does not hold the text it names"):
        container(s3, persona, clock).snapshot().read(NOTE)
