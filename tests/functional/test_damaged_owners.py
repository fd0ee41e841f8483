"""A damaged user card, timeline.md or indexed slice never blocks the rest (docs/FORMAT.md
"Who owns each file"): messages are saved, turns answer from the newest readable snapshot,
the page loads and names the file, maintain exits 0 and names it, derived files are rebuilt."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from core.clock import FixedClock
from core.memory import paths
from core.storage.local import LocalStorage
from functions.cli import cmd_maintain  # noqa: F401 - registers the command
from tests.conftest import SAMPLE_ROOT
from tests.fakes.fake_model_server import FakeModelServer
from tests.functional.api_env import make_env
from tests.functional.test_damaged_files import _run
from tests.functional.turn_support import make_harness

pytestmark = pytest.mark.functional

CLOCK = "2026-11-30T10:00:00.000Z"
NEWEST_SNAPSHOT = "memory/episodic/slices/2026/11/26/2010/previously.md"


@pytest.fixture
def sample(tmp_path: Path) -> Path:
    shutil.copytree(SAMPLE_ROOT / "memory", tmp_path / "memory")
    return tmp_path


def _damage_card(root: Path, how: str) -> bytes:
    card = root / paths.CARD.value
    data = card.read_bytes() + (b"\xff\xfe not UTF-8" if how == "not-utf8" else b"x" * 1_100_000)
    card.write_bytes(data)
    return data


@pytest.mark.parametrize("how", ["not-utf8", "oversized"])
def test_a_damaged_card_blocks_no_message_and_the_turn_uses_the_newest_snapshot(
    sample: Path, fake_models: FakeModelServer, how: str
) -> None:
    damaged = _damage_card(sample, how)
    snapshot = (sample / NEWEST_SNAPSHOT).read_text(encoding="utf-8")
    h = make_harness(LocalStorage(sample), FixedClock.at(CLOCK), fake_models)
    assert h.brain is not None
    h.brain.main("Noted.")
    state = h.turn("The flights are booked.")
    assert state.status == "done" and state.reply == "Noted."
    assert state.slice_id is not None
    assert any(t.content == "The flights are booked." for t in h.slice(state.slice_id).turns)
    said = [e["reason"] for e in state.events if e["type"] == "card.skipped"]
    assert any("damaged" in r and NEWEST_SNAPSHOT in r for r in said), said
    system = h.brain.requests["main"][0].body["messages"][0]["content"]
    name_line = next(line for line in snapshot.splitlines() if "Nell" in line)
    assert name_line in system, "the prompt carries the snapshot's card"
    assert (sample / paths.CARD.value).read_bytes() == damaged, "the card is left byte for byte"


def test_a_damaged_card_still_lets_the_page_load_and_names_it(sample: Path) -> None:
    damaged = _damage_card(sample, "not-utf8")
    env = make_env(storage=LocalStorage(sample))
    r = env.client.get("/api/state")
    assert r.status_code == 200
    body = r.json()
    assert body["name"] == "Nell Marchetti", "the briefing reads the newest snapshot"
    assert any(paths.CARD.value in line for line in body["damaged"])
    code, out = _run("maintain", "--no-model", "--memory", str(sample))
    assert code == 0, out
    assert f"damaged, skipped and left as it is: {paths.CARD}" in out
    assert (sample / paths.CARD.value).read_bytes() == damaged


def test_a_damaged_config_still_lets_the_page_load(sample: Path) -> None:
    config = sample / paths.CONFIG_JSON.value
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_bytes(b'{"locale": "\xff"}')
    r = make_env(storage=LocalStorage(sample)).client.get("/api/state")
    assert r.status_code == 200 and any("config.json" in line for line in r.json()["damaged"])
    assert config.read_bytes() == b'{"locale": "\xff"}'


def test_maintain_rebuilds_a_timeline_md_that_is_not_utf8(sample: Path) -> None:
    timeline = sample / paths.TIMELINE_MD.value
    timeline.write_bytes(b"\xff\xfe broken")
    code, out = _run("maintain", "--no-model", "--memory", str(sample))
    assert code == 0, out
    assert timeline.read_text(encoding="utf-8").startswith("#")


def test_a_slice_damaged_after_it_was_indexed_is_named_and_shown_with_its_problem(sample: Path) -> None:
    code, out = _run("maintain", "--no-model", "--memory", str(sample))
    assert code == 0, out
    sid = "2024-08-04-1932"
    core = sample / paths.core_md(sid).value
    damaged = core.read_bytes() + b"\xff broken"
    core.write_bytes(damaged)
    code, out = _run("maintain", "--no-model", "--memory", str(sample))
    assert code == 0, out
    assert f"damaged, skipped and left as it is: {paths.core_md(sid)}" in out
    timeline = {
        e["id"]: e
        for e in make_env(storage=LocalStorage(sample)).client.get("/api/timeline").json()["slices"]
    }
    assert "not UTF-8" in (timeline[sid]["problem"] or "")
    assert core.read_bytes() == damaged
    core.write_bytes(damaged[: -len(b"\xff broken")])  # repaired: the next pass clears the problem
    code, out = _run("maintain", "--no-model", "--memory", str(sample))
    assert code == 0 and "damaged" not in out, out
    timeline = {
        e["id"]: e
        for e in make_env(storage=LocalStorage(sample)).client.get("/api/timeline").json()["slices"]
    }
    assert timeline[sid]["problem"] is None


def test_forgetting_the_active_slice_takes_it_off_the_active_list_and_the_timeline(
    fake_models: FakeModelServer,
) -> None:
    from core.actions.forget import forget
    from core.memory.catalog.pending import parse_active, parse_pending
    from core.storage.memory import InMemoryStorage

    h = make_harness(InMemoryStorage(), FixedClock.at(CLOCK), fake_models)
    assert h.brain is not None
    h.brain.main("Hi.")
    state = h.turn("Something I will regret saying.")
    sid = state.slice_id
    assert sid and sid in (parse_active(h.read(paths.PENDING_JSON.value)) or [])
    forget(h.storage, sid, h.clock)
    pending = h.read(paths.PENDING_JSON.value)
    assert sid not in (parse_active(pending) or []) and all(e["id"] != sid for e in parse_pending(pending))
    env = make_env(storage=h.storage.inner)
    assert all(e["id"] != sid for e in env.client.get("/api/timeline").json()["slices"])
