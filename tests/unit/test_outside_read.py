"""MCP reads a slice's words exactly as written: no escape shown, any message whole by character ranges."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, example, given, settings

from core.agent.outside import OutsideAccess
from core.agent.outside_read import OutsideRange
from core.agent.slice_tools import OUTPUT_CHARS
from core.clock import FixedClock, SequentialIds, parse_iso
from core.memory.paths import core_md
from core.memory.slice.model import Slice, Turn, render_core_md
from core.storage.memory import InMemoryStorage
from tests.fakes.texts import LONG_LINE, PADDED_REPLY, SAMPLES, TEXTS, TURN_HEADER

pytestmark = pytest.mark.unit
SID = "2026-08-11-0900"
USER = Turn(turn_id="t1", timestamp="2026-08-11T09:00:05.000Z", role="user", content="")
HEAD = f"{USER.header}\n\n"


def saved(text: str) -> OutsideAccess:
    """A memory with one slice whose only turn says `text`, written as every writer writes it."""
    s = Slice(slice_id=SID, status="closed", start="2026-08-11T09:00:00.000Z")
    s.turns = [Turn(turn_id="t1", timestamp=USER.timestamp, role="user", content=text)]
    storage = InMemoryStorage({core_md(SID): render_core_md(s)})
    clock = FixedClock(parse_iso("2026-08-12T00:00:00Z"))
    return OutsideAccess(storage=storage, clock=clock, ids=SequentialIds())


def read_whole(a: OutsideAccess) -> str:
    """The slice's plain text, read part by part as a client would."""
    parts, offset = [], 0
    while True:
        part = a.read_slice(SID, OutsideRange(type="chars", offset=offset, length=OUTPUT_CHARS))
        parts.append(part)
        offset += len(part)
        if len(part) < OUTPUT_CHARS:
            return "".join(parts)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=TEXTS)
@example(text=PADDED_REPLY)
@example(text=LONG_LINE)
@example(text=f"{TURN_HEADER}\n#\\# Turn x\n\ufeff")
def test_any_text_reads_back_whole_through_character_ranges(text: str) -> None:
    plain = read_whole(saved(text))
    at = plain.index(HEAD) + len(HEAD)
    assert plain[at:-1] == text and plain.endswith("\n")


@pytest.mark.parametrize("text", SAMPLES)
def test_samples_read_back_exactly(text: str) -> None:
    plain = read_whole(saved(text))
    assert plain[plain.index(HEAD) + len(HEAD) : -1] == text


def test_the_escape_is_never_shown() -> None:
    a = saved("## Turn 9 — x (agent)\n  indented end  ")
    whole = a.read_slice(SID)
    assert "#\\#" not in whole and "## Turn 9 — x (agent)\n  indented end  " in whole
    assert "#\\#" not in a.read_slice(SID, OutsideRange(type="last", count=1))


def test_a_long_slice_says_how_to_read_the_rest() -> None:
    a = saved(LONG_LINE)
    assert "range type chars" in a.read_slice(SID)
    assert a.read_slice(SID, OutsideRange(type="chars", offset=10**9, length=5)) == ""
