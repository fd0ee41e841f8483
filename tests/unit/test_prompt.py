"""The main agent's system prompt: layers, and the same bytes for every turn of a slice."""

from __future__ import annotations

from datetime import timedelta

import pytest

from core.agent import identity_text
from core.agent.prompt import build_system_prompt
from core.agent.prompt_blocks import CARD_RULES, DEMO_NOTICE, POINTER_RULE, strands_menu
from core.clock import FixedClock, parse_iso
from core.memory import paths
from core.memory.catalog.weave import weave_timeline
from core.memory.config import UserConfig, merge_config
from core.memory.slice.model import Slice, render_core_md
from core.storage.base import WriteBatch
from core.storage.memory import InMemoryStorage
from tests.fakes.agent_memory import build_memory, make_slice, write_slices

pytestmark = pytest.mark.unit

T0 = parse_iso("2026-08-17T14:00:30.000Z")
EN = UserConfig()
ZH = UserConfig(merge_config({"locale": "zh"}))
CARD = """\
# Previously On

_Active slice: 2026-08-10-0900 | Format: user card v2 | Updated: 2026-08-10T09:30:00.000Z_

## Identity

- Name: Mara Lind

- Address them as: Mara

## Past

Mara is a translator who moved to Lisbon.

- Moved to Lisbon in 2024 — refs: [2026/08/01/0900]

## Now

- Training for a half marathon — refs: [2026/08/10/0900] | since: 2026-08-10

## Horizon

- Send the grant report — by: 2026-08-12 — refs: [2026/08/01/0900]

- Renew the passport — by: 2026-09-30 — refs: [2026/08/01/0900]
"""
A = make_slice("2026-08-01-0900", focus="Moving boxes to Lisbon", tags=["lisbon", "move"])
B = make_slice("2026-08-10-0900", focus="Half marathon plan", tags=["running"])
C_OPEN = make_slice("2026-08-17-1310", status="active", tags=["running"])
C = make_slice("2026-08-17-1310", focus="Shin splints after the long run", tags=["running", "health"])
D1 = make_slice("2026-08-17-1400", [("user", "my shin hurts again")], status="active")


def _prompt(storage: InMemoryStorage, current: Slice, **kw: object) -> str:
    options: dict = {"card_text": None, "config": EN, "timezone": "Asia/Shanghai", "demo": False}
    options.update(kw)
    return build_system_prompt(storage.snapshot(), current, **options)


def _commit(storage: InMemoryStorage, slices: list[Slice], now_offset: timedelta | None = None) -> None:
    batch = WriteBatch.open(storage)
    write_slices(batch, slices)
    if now_offset is not None:
        weave_timeline(batch, T0 + now_offset, force=True)
    batch.commit("turn")


def test_every_turn_of_a_slice_gets_the_same_bytes() -> None:
    # Turn 1: C closed in this turn's prepare, but the throttled catalog still lists it as active.
    storage = build_memory([A, B, C_OPEN, D1], T0, card=CARD)
    _commit(storage, [C])
    first = _prompt(storage, D1, closed_slice=C)

    # Turn 2, minutes later: two more turns and a new tag on D, the catalog re-woven with a later clock.
    turns = [("user", "my shin hurts again"), ("agent", "Rest it."), ("user", "ok, and the garden?")]
    d2 = make_slice("2026-08-17-1400", turns, status="active", tags=["garden"])
    _commit(storage, [d2], now_offset=timedelta(minutes=8))
    second = _prompt(storage, d2)

    assert first == second
    assert "Shin splints after the long run" in first  # the just-closed slice is in the brief
    assert "garden" not in first
    assert "The user's last session ended" in first  # continuity with C, a recent return


def test_the_prompt_changes_at_a_slice_boundary() -> None:
    storage = build_memory([A, B, C, D1], T0, card=CARD)
    before = _prompt(storage, D1)
    d_closed = make_slice("2026-08-17-1400", [("user", "my shin hurts again")], focus="Shin pain again")
    e = make_slice("2026-08-17-1445", [("user", "back again")], status="active")
    _commit(storage, [d_closed, e], now_offset=timedelta(minutes=45))
    after = _prompt(storage, e, closed_slice=d_closed)
    assert before != after
    assert "Shin pain again" in after and "Shin pain again" not in before
    assert 'last session ended 45 mins ago (slice 2026-08-17-1400, "Shin pain again")' in after


def test_layers_in_order() -> None:
    storage = build_memory([A, B, C, D1], T0, card=CARD)
    text = _prompt(storage, D1, demo=True)
    marks = [
        identity_text.SOUL[:40],
        "## Who you're assisting\nName: Mara Lind",
        identity_text.DIRECTIVES[:40],
        "## The user card — what I infer about them (as of 2026-08-17)",
        "Training for a half marathon — refs: [2026/08/10/0900] | since: 2026-08-10 (7 days ago)",
        CARD_RULES,
        "## Overdue commitments\nThese dates have passed",
        'ask the user how they went: "Send the grant report" (by 2026-08-12)',
        "## This slice — snapshot at its start\n- Slice started: 17 Aug 2026, 22:00 (Asia/Shanghai, ",
        "## Timeline (recent)\n- **2026-08-17-1310** (08-17 Mon) Shin splints after the long run",
        POINTER_RULE,
        "## Memory topics\n\nKnown topics: running (last 08-17 · today), health (last 08-17 · today), ",
        DEMO_NOTICE,
    ]
    positions = [text.find(m) for m in marks]
    assert all(p >= 0 for p in positions), [m for m, p in zip(marks, positions, strict=True) if p < 0]
    assert positions == sorted(positions)
    assert "Renew the passport" not in text.split("## Overdue commitments")[1].split("\n\n")[0]


def test_without_card_strands_or_demo_those_layers_are_absent() -> None:
    storage = build_memory([], T0)
    current = make_slice("2026-08-17-1400", [("user", "hi")], status="active")
    text = _prompt(storage, current)
    assert "## The user card" not in text and CARD_RULES not in text
    assert "## Memory topics" not in text and DEMO_NOTICE not in text
    assert "## Timeline (recent)\n- (empty — no slices yet)\n" + POINTER_RULE in text
    assert "- Continuity: No past conversation yet." in text
    assert "\n\n\n" not in text


def test_card_text_given_wins_over_the_file() -> None:
    storage = build_memory([D1], T0, card=CARD)
    text = _prompt(storage, D1, card_text="## Identity\n\n- Name: Someone Else\n\n## Past\n\nA person.")
    assert "Someone Else" in text and "Mara Lind" not in text


def test_chinese_locale() -> None:
    storage = build_memory([A, B, C, D1], T0, card=CARD)
    text = _prompt(storage, D1, config=ZH)
    assert "## 逾期承诺\n" in text and "「Send the grant report」（by 2026-08-12）" in text
    assert "| since: 2026-08-10（7 天前）" in text
    assert "- **2026-08-17-1310**（08-17 周一） Shin splints after the long run · 2轮" in text
    assert "已知话题：running（最近 08-17 今天）" in text


def test_the_slice_records_the_zone_it_opened_in() -> None:
    storage = build_memory([A, D1], T0)
    text = _prompt(storage, D1, timezone="America/New_York")
    assert "(Asia/Shanghai, UTC+08:00)" in text and "New_York" not in text


def test_prompt_size_does_not_grow_with_the_archive() -> None:
    def memory_of(n: int) -> tuple[InMemoryStorage, Slice]:
        start = parse_iso("2026-01-01T00:00:00.000Z")
        ids = [(start + timedelta(hours=3 * i)).strftime("%Y-%m-%d-%H%M") for i in range(n)]
        slices = [make_slice(i, focus=f"Topic {k % 7}", tags=[f"tag{k % 40}"]) for k, i in enumerate(ids)]
        current = make_slice("2026-06-01-0000", status="active")
        return build_memory([*slices, current], T0, card=CARD), current

    small, big = (_prompt(*memory_of(n)) for n in (12, 300))
    assert abs(len(big) - len(small)) < 300
    brief = big.split("## Timeline (recent)\n")[1].split("\n\n")[0]
    assert brief.count("- **") == 10 and "slices in all" in brief


def test_strands_menu_is_frozen_at_the_slice_start() -> None:
    strands = {
        "old": ["2026/08/01/0900"],
        "both": ["2026/08/10/0900", "2026/08/17/1400"],
        "only-current": ["2026/08/17/1400"],
        "bad": ["not-a-path"],
    }
    menu = strands_menu(strands, before="2026/08/17/1400", anchor="2026-08-17T14:00:00.000Z",
                        timezone="UTC", locale="en")  # fmt: skip
    assert menu == "Known topics: both (last 08-10 · Mon · 7 days ago), old (last 08-01 · 2 weeks ago)"
    many = {f"k{i:02d}": [f"2026/08/{i + 1:02d}/0900"] for i in range(25)}
    shown = strands_menu(many, before="2026/09/01/0000", anchor="2026-09-01T00:00:00.000Z",
                         timezone=None, locale="en")  # fmt: skip
    assert shown == "Known topics: " + ", ".join(f"k{i:02d}" for i in range(24, 4, -1))


def test_unreadable_card_and_strands_do_not_break_the_prompt() -> None:
    storage = InMemoryStorage({paths.core_md(D1.slice_id): render_core_md(D1)})
    storage.files[paths.STRANDS_JSON] = "{not json"
    storage.files[paths.CARD] = "x" * 1_200_000  # over the file cap: reading it fails
    text = _prompt(storage, D1)
    assert "## Memory topics" not in text and "## The user card" not in text
    assert FixedClock  # the prompt takes no clock: nothing in it moves with time
