"""Forgetting takes an exchange's pictures with it — also an exchange taken back (answer again,
edit) that lives on only in agent.md — while pictures a surviving turn links to stay, and the
export holds no forgotten picture."""

from __future__ import annotations

import io
import zipfile

import pytest
from starlette.testclient import TestClient

from core.actions.forget import forget
from core.actions.retract import retract_exchange
from core.clock import FixedClock
from core.media.attach import reattach
from core.media.images import Upload, prepare_images
from core.memory.export import export_zip
from core.memory.paths import SliceId
from core.memory.slice.agent_parts import queue_removal
from core.memory.slice.picture_links import split_turn_text
from core.storage.base import WriteBatch
from core.storage.memory import InMemoryStorage
from functions.api.app import create_app
from tests.fakes.fake_model_server import FakeModelServer
from tests.fakes.images import jpeg_with_location, png
from tests.functional.api_env import harness_deps as _deps
from tests.functional.api_env import with_key
from tests.functional.turn_support import Harness, make_harness

pytestmark = pytest.mark.functional
SLICE = "2026-08-11-1115"
IMAGES = "memory/episodic/slices/2026/08/11/1115/images/"


def pictures(h: Harness) -> set[str]:
    """The picture files of the slice, by name."""
    return {p.removeprefix(IMAGES) for p in h.files() if p.startswith(IMAGES)}


def exported(h: Harness) -> set[str]:
    out = io.BytesIO()
    export_zip(h.storage.snapshot(), out)
    with zipfile.ZipFile(out) as zf:
        return {n.removeprefix(IMAGES) for n in zf.namelist() if n.startswith(IMAGES)}


def _user_id(h: Harness, index: int = -1) -> str:
    users = [t for t in h.slice(SLICE).turns if t.role == "user"]
    turn_id = users[index].turn_id
    assert turn_id is not None
    return turn_id


def answered_again(fake: FakeModelServer) -> tuple[Harness, str, str]:
    """A slice with an exchange without pictures, then one with two pictures taken back and sent
    again (`reattach`): (harness, the taken-back turn id, the new turn id)."""
    h = make_harness(InMemoryStorage(), FixedClock.at("2026-08-11T11:15:00.000Z"), fake)
    assert h.brain is not None
    h.brain.main("Hello.", "Two squares.", "Again: two squares.")
    assert h.turn("Hi.").status == "done"
    images = tuple(prepare_images([Upload("trip.jpg", jpeg_with_location()), Upload("b.png", png())]))
    assert h.turn("What is in these?", attachments=images).status == "done"
    old = _user_id(h)
    taken = retract_exchange(h.deps.storage, SLICE, old, h.clock)
    again = reattach(h.storage.snapshot(), taken.pictures)
    assert h.turn(taken.message, attachments=again).status == "done"
    new = _user_id(h)
    assert new != old
    assert pictures(h) == {f"{t}-{n}.{e}" for t in (old, new) for n, e in ((1, "jpg"), (2, "png"))}
    return h, old, new


def test_forgetting_a_taken_back_exchange_deletes_its_pictures_and_keeps_the_resent_ones(
    fake_models: FakeModelServer,
) -> None:
    h, old, new = answered_again(fake_models)
    report = forget(h.deps.storage, SLICE, h.clock, turn_id=old)
    assert not report.whole_slice
    kept = {f"{new}-1.jpg", f"{new}-2.png"}
    assert pictures(h) == kept
    assert {f"{IMAGES}{old}-1.jpg", f"{IMAGES}{old}-2.png"} <= set(report.deleted)
    assert exported(h) == kept
    # The surviving turn still shows its pictures.
    [_, user] = [t for t in h.slice(SLICE).turns if t.role == "user"]
    words, linked = split_turn_text(user.content, SLICE, new)
    assert words == "What is in these?" and [p.file for p in linked] == [f"{new}-1.jpg", f"{new}-2.png"]


def test_forgetting_the_resent_exchange_keeps_the_taken_back_ones_pictures(
    fake_models: FakeModelServer,
) -> None:
    h, old, new = answered_again(fake_models)
    forget(h.deps.storage, SLICE, h.clock, turn_id=new)
    assert pictures(h) == {f"{old}-1.jpg", f"{old}-2.png"}
    assert f"## Cognition {old}" in (h.read(SliceId.parse(SLICE).agent_md.value) or "")
    forget(h.deps.storage, SLICE, h.clock, turn_id=old)
    assert pictures(h) == set() and exported(h) == set()


def test_forgetting_the_slice_after_a_retraction_leaves_no_picture(fake_models: FakeModelServer) -> None:
    h, _, _ = answered_again(fake_models)
    with TestClient(create_app(_deps(h))) as client:
        r = client.delete(f"/api/slices/{SLICE}", headers=with_key())
    assert r.status_code == 200, r.text
    assert pictures(h) == set() and exported(h) == set()
    assert not [p for p in h.files() if "/2026/08/11/1115/" in p]


def test_a_picture_a_surviving_turn_links_to_stays(fake_models: FakeModelServer) -> None:
    """A surviving message that links another exchange's picture keeps it (nothing it shows goes)."""
    h, old, new = answered_again(fake_models)
    link = f"![trip.jpg](../images/{old}-1.jpg)"
    assert h.brain is not None
    h.brain.main("That one again.")
    assert h.turn(f"Look at this one again:\n{link}").status == "done"
    with TestClient(create_app(_deps(h))) as client:
        r = client.delete(f"/api/slices/{SLICE}/turns/{old}", headers=with_key())
    assert r.status_code == 200, r.text
    assert pictures(h) == {f"{old}-1.jpg", f"{new}-1.jpg", f"{new}-2.png"}


def test_pictures_an_earlier_forget_left_behind_can_be_forgotten_by_their_turn_id(
    fake_models: FakeModelServer,
) -> None:
    """Before forgetting took them, a forgotten taken-back exchange left its pictures: they are
    nobody's now, and forgetting that turn id deletes them; an id with nothing at all is 404."""
    h, old, new = answered_again(fake_models)
    batch = WriteBatch.open(h.deps.storage)
    queue_removal(batch, SLICE, old)  # what the earlier forget did: the notes only
    batch.commit(f"Forget turn {old} of slice {SLICE}")
    assert {f"{old}-1.jpg", f"{old}-2.png"} <= pictures(h)
    with TestClient(create_app(_deps(h))) as client:
        r = client.delete(f"/api/slices/{SLICE}/turns/{old}", headers=with_key())
        assert r.status_code == 200, r.text
        assert pictures(h) == {f"{new}-1.jpg", f"{new}-2.png"}
        assert client.delete(f"/api/slices/{SLICE}/turns/{old}", headers=with_key()).status_code == 404
