"""Text that looks like the format comes back byte for byte (formats/escape.py, FORMAT.md)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.clock import parse_iso
from core.imports.writer import import_slices
from core.memory import paths
from core.memory.formats import matter
from core.memory.formats.escape import escape_turn, has_flag_line, needs_escape, unescape_turn
from core.memory.slice.agent_md import append_cognition, cognition_entry, cognition_for
from core.memory.slice.core_edits import FlushTurn, flush_core_md, mark_escaped
from core.memory.slice.merge import append_turn, merge_turns
from core.memory.slice.model import Slice, Turn, body_turns, parse_core_md, render_core_md
from core.memory.slice.turns import count_turns, parse_turns
from core.storage.base import WriteBatch
from core.storage.memory import InMemoryStorage
from core.text import js_trim
from tests.fakes.texts import SHORT_TEXTS, TURN_HEADER

pytestmark = pytest.mark.unit

FAKE_HEADER = TURN_HEADER
TEXT = SHORT_TEXTS  # the shared strategy's pieces (tests/fakes/texts.py)
START = "2026-01-01T00:00:00.000Z"


def _slice(contents: list[str]) -> Slice:
    turns = [Turn(f"t{i // 2}", START, ("user", "agent")[i % 2], c) for i, c in enumerate(contents)]
    return Slice(slice_id="2026-01-01-0000", start=START, turns=turns)


def _original_view(text: str) -> list[str]:
    """The turn texts the original's slice parser reads (our port of it, without unescaping)."""
    return [t.content for t in body_turns(matter.split(text).body)]


@pytest.mark.parametrize(
    "message",
    [
        "Explain the ## Turn syntax please, and keep this tail",
        f"Look:\n{FAKE_HEADER}\n\nThis is not a turn.",
        "## Turn at the very start",
        "ends with a header mark ## Turn ",
        "\\frac{1}{2} and a trailing backslash \\",
        "  indented\n\nand two trailing newlines\n\n",
    ],
)
def test_the_reported_messages_come_back_verbatim(message: str) -> None:
    s = _slice([message, "Sure. Here is ## Turn explained:\n" + FAKE_HEADER])
    text = render_core_md(s)
    back = parse_core_md(text)
    assert [t.content for t in back.turns] == [t.content for t in s.turns]
    assert count_turns(text) == len(parse_turns(text)) == 2
    assert render_core_md(back) == text


@given(st.lists(TEXT, min_size=1, max_size=4))
@settings(max_examples=300, deadline=None)
def test_any_text_round_trips_through_core_md(contents: list[str]) -> None:
    s = _slice(contents)
    text = render_core_md(s)
    assert [t.content for t in parse_core_md(text).turns] == contents
    # Every reader sees exactly these turns, the original's parser included.
    assert count_turns(text) == len(parse_turns(text)) == len(contents)
    original = _original_view(text)
    assert len(original) == len(contents)
    assert all("## Turn " not in c for c in original)
    if not any(needs_escape(c) for c in contents):
        assert original == contents and not has_flag_line(matter.split(text).yaml_text)


@given(TEXT)
@settings(max_examples=500, deadline=None)
def test_escape_is_reversible_and_survives_trimming(content: str) -> None:
    stored = escape_turn(content)
    assert unescape_turn(stored) == content
    assert js_trim(stored) == stored and "## Turn " not in stored


@given(st.lists(TEXT, min_size=1, max_size=3), TEXT)
@settings(max_examples=200, deadline=None)
def test_any_text_round_trips_through_agent_md(bodies: list[str], spoof: str) -> None:
    text = ""
    for i, body in enumerate(bodies):
        text = append_cognition(text, cognition_entry(f"id{i}", START, body))
    text = append_cognition(text, cognition_entry("last", START, spoof + "\n" + FAKE_HEADER))
    for i, body in enumerate(bodies):
        got = cognition_for(text, f"id{i}")
        assert got == js_trim(body)
    assert cognition_for(text, "abcDEF") is None


@given(st.lists(TEXT, min_size=1, max_size=3), st.booleans())
@settings(max_examples=200, deadline=None)
def test_any_text_round_trips_through_flush(contents: list[str], onto_existing: bool) -> None:
    existing = render_core_md(_slice(["earlier \\", "reply"])) if onto_existing else None
    flushed = [FlushTurn(("user", "agent")[i % 2], c, START) for i, c in enumerate(contents)]
    text = flush_core_md(existing, "2026-01-01-0000", flushed, START)
    earlier = ["earlier \\", "reply"] if onto_existing else []
    assert [t.content for t in parse_core_md(text).turns] == earlier + contents
    assert count_turns(text) == len(earlier) + len(contents)


def test_marking_an_old_file_keeps_what_it_reads() -> None:
    old = (
        "---\nslice_id: 2026-01-01-0000\n# a comment\nstatus: active\n---\n"
        "## Turn a1 — 2026-01-01T00:00:00.000Z (user)\n\n\\begin{x} #\\# Turn \\\\\n"
    )
    marked = mark_escaped(old)
    assert [t.content for t in parse_core_md(marked).turns] == [t.content for t in parse_core_md(old).turns]
    assert "# a comment\n" in marked and marked.count("turn_escape: v1") == 1
    assert mark_escaped(marked) == marked


@given(st.lists(TEXT, min_size=1, max_size=3), TEXT, st.booleans())
@settings(max_examples=200, deadline=None)
def test_appends_and_conflict_merges_keep_any_text(contents: list[str], extra: str, plain: bool) -> None:
    before = render_core_md(_slice(["plain words"] if plain else contents))
    kept = ["plain words"] if plain else contents
    added = append_turn(Turn("zz", START, "user", extra), START).core(before)
    assert added is not None
    assert [t.content for t in parse_core_md(added).turns] == [*kept, extra]
    local = parse_core_md(before)
    local.turns.append(Turn("yy", START, "agent", extra))
    merged = merge_turns(added, local)
    assert [t.content for t in parse_core_md(merged).turns] == [*kept, extra, extra]


@given(st.lists(TEXT, min_size=1, max_size=4))
@settings(max_examples=50, deadline=None)
def test_imported_slices_keep_any_text(contents: list[str]) -> None:
    storage = InMemoryStorage()
    batch = WriteBatch.open(storage)
    import_slices(batch, [_slice(contents)], parse_iso(START))
    batch.commit("import")
    text = storage.snapshot().read(paths.core_md("2026-01-01-0000")) or ""
    assert [t.content for t in parse_core_md(text).turns] == contents


@given(TEXT, TEXT, st.lists(TEXT, max_size=3))
@settings(max_examples=200, deadline=None)
def test_frontmatter_text_never_leaks_into_the_body(focus: str, summary: str, tags: list[str]) -> None:
    s = Slice(slice_id="2026-01-01-0000", start=START, focus=focus, summary=summary, tags=tags)
    s.turns = [Turn("a1", START, "user", "x")]
    back = parse_core_md(render_core_md(s))
    assert (back.focus, back.summary, back.tags) == (focus, summary, tags)
    assert [t.content for t in back.turns] == ["x"]


def test_marking_a_file_without_frontmatter_keeps_its_bom_and_turns() -> None:
    old = "\ufeff## Turn a1 — 2026-01-01T00:00:00.000Z (user)\n\nhi\n"
    marked = mark_escaped(old)
    assert marked.startswith("\ufeff---\nturn_escape: v1\n---\n")
    assert [t.content for t in parse_core_md(marked).turns] == ["hi"]


@pytest.mark.parametrize(
    "body", ["#\\# Cognition ", "## Cognition ", "so: #\\# Cognition", "x ## Cognition\n \n"]
)
def test_a_cognition_mark_at_the_very_end_of_an_entry_reads_back(body: str) -> None:
    """Appending the next entry trims the one before (and readers trim every entry): a mark
    whose space that takes still reads back without its escape."""
    text = append_cognition(cognition_entry("a", START, body), cognition_entry("b", START, "next"))
    assert cognition_for(text, "a") == js_trim(body)
    assert cognition_for(cognition_entry("a", START, body), "a") == js_trim(body)
