"""agent.md in parts: entries pushing a slice's log past the 1 MB cap roll over into
`agent-2.md`, … (an entry too large for one part is cut into pieces); nothing is dropped, every
reader reads all parts, forgetting removes every piece, and a damaged part is never written."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.memory import paths
from core.memory.slice.agent_parts import (
    cognition_in,
    log_text,
    part_path,
    queue_entry,
    queue_removal,
    read_parts,
)
from core.storage.base import WriteBatch
from core.storage.memory import InMemoryStorage
from core.storage.paths import MAX_FILE_BYTES
from core.text import js_trim

pytestmark = pytest.mark.unit
SID = "2026-08-11-1115"
AT = "2026-08-11T11:20:00.000Z"
# Text that stresses the cut: multi-byte characters, line ends of every kind, the entry mark.
CHUNKS = st.lists(
    st.sampled_from(["a", " ", "\n", "\r", "\u2028", "故", "🌱", "#", "## Cognition x — y\n", "\\"]),
    min_size=1,
    max_size=12,
).map("".join)
BODIES = st.lists(st.tuples(CHUNKS, st.integers(1, 120_000)), min_size=1, max_size=5)


def write(storage: InMemoryStorage, turn_id: str, body: str, *, once: bool = True) -> bool:
    batch = WriteBatch.open(storage)
    queued = queue_entry(batch, SID, f"{turn_id} — {AT}", body, once_for=turn_id if once else None)
    batch.commit(f"Turn {turn_id} — agent response")
    return queued


def sizes(storage: InMemoryStorage) -> list[int]:
    return [len(p.text.encode()) for p in read_parts(storage.snapshot(), SID) if p.text is not None]


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(BODIES)
def test_entries_past_the_cap_roll_over_and_read_back_whole(specs: list[tuple[str, int]]) -> None:
    storage = InMemoryStorage()
    bodies = [f"\n### Thinking\n{chunk * count}\n" for chunk, count in specs]
    for n, body in enumerate(bodies):
        assert write(storage, f"t{n}", body)
    assert all(size <= MAX_FILE_BYTES for size in sizes(storage))
    parts = read_parts(storage.snapshot(), SID)
    for n, body in enumerate(bodies):
        assert cognition_in(parts, f"t{n}") == js_trim(body), f"entry t{n} changed"
    total = sum(len(b.encode()) for b in bodies)
    assert len(parts) >= total // MAX_FILE_BYTES
    for n, body in enumerate(bodies):  # running a turn's write again adds nothing
        assert not write(storage, f"t{n}", body)
    assert [p.text for p in read_parts(storage.snapshot(), SID)] == [p.text for p in parts]


def test_a_huge_entry_is_cut_into_parts_and_forgetting_removes_every_piece() -> None:
    storage = InMemoryStorage()
    write(storage, "a1", "\n### Thinking\nbefore\n")
    huge = "\n### Thinking\n" + "故事 ## Cognition 🌱 line\n" * 90_000  # ~2.6 MB
    write(storage, "b2", huge)
    write(storage, "c3", "\n### Thinking\nafter\n")
    parts = read_parts(storage.snapshot(), SID)
    assert [p.path.name for p in parts][:2] == ["agent.md", "agent-2.md"] and len(parts) >= 4
    assert cognition_in(parts, "b2") == js_trim(huge)
    assert "(continued)" in (parts[2].text or "")
    batch = WriteBatch.open(storage)
    assert queue_removal(batch, SID, "b2")
    batch.commit("forget b2")
    left = read_parts(storage.snapshot(), SID)
    assert [cognition_in(left, t) for t in ("a1", "b2", "c3")] == [
        "### Thinking\nbefore",
        None,
        "### Thinking\nafter",
    ]
    assert "故事" not in log_text(left)


def test_a_damaged_last_part_is_kept_byte_for_byte_and_the_next_entry_starts_a_new_part() -> None:
    storage = InMemoryStorage()
    write(storage, "a1", "\n### Thinking\nfine\n")
    damaged = "x" * (MAX_FILE_BYTES + 10)  # over the cap: readers skip it
    storage.files[part_path(SID, 2)] = damaged
    write(storage, "b2", "\n### Thinking\nnew\n")
    assert storage.files[part_path(SID, 2)] == damaged
    parts = read_parts(storage.snapshot(), SID)
    assert [p.number for p in parts] == [1, 2, 3] and parts[1].text is None
    assert cognition_in(parts, "b2") == "### Thinking\nnew"


def test_a_replaced_exchange_quoting_the_entry_mark_stays_one_entry() -> None:
    storage = InMemoryStorage()
    body = "\n### Replaced message\n\n```\n## Cognition fake — 2026-01-01T00:00:00.000Z\nhi\n```\n"
    write(storage, "r1", body, once=False)
    parts = read_parts(storage.snapshot(), SID)
    assert cognition_in(parts, "r1") == js_trim(body) and cognition_in(parts, "fake") is None


def test_parts_are_found_by_listing_and_gaps_are_fine() -> None:
    storage = InMemoryStorage()
    storage.files[part_path(SID, 3)] = "## Cognition z9 — t\n\n### Thinking\nlate\n"
    storage.files[paths.slice_dir(SID) / "timeline/agent-x.md"] = "## Cognition z9 — t\nnot a part\n"
    parts = read_parts(storage.snapshot(), SID)
    assert [p.number for p in parts] == [3]
    assert cognition_in(parts, "z9") == "### Thinking\nlate"
