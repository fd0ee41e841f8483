"""MCP `remember`: the staged-note store, the config gate, and the note becoming a turn."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.clock import FixedClock, SequentialIds, parse_iso
from core.errors import ConflictError, InvalidInput, NotFound, ReadOnly
from core.memory.config import load_config, parse_config
from core.memory.paths import CONFIG_JSON, core_md
from core.memory.slice import staged_notes as sn
from core.memory.slice.model import parse_core_md
from core.storage.base import WriteBatch
from core.storage.memory import InMemoryStorage
from tests.fakes.slices import slice_text

pytestmark = pytest.mark.unit

NOW = parse_iso("2026-08-11T11:20:00Z")
OPEN_ID = "2026-08-11-1115"


def memory(mode: str | None = None, *, open_slice: bool = True) -> InMemoryStorage:
    files = {}
    if mode is not None:
        files[CONFIG_JSON] = json.dumps({"mcpRemember": mode})
    if open_slice:
        turns = [("user", "Planning the Lisbon trip."), ("agent", "Which week?")]
        files[core_md(OPEN_ID)] = slice_text(OPEN_ID, turns, status="active")
    return InMemoryStorage(files)


def remember(storage: InMemoryStorage, text: str, source: str = "MCP (stdio)") -> sn.Remembered:
    batch = WriteBatch.open(storage)
    config = load_config(batch.read(CONFIG_JSON))
    done = sn.remember(batch, text, source, config, NOW, SequentialIds("n"))
    batch.commit("remember")
    return done


def test_off_by_default_and_nothing_is_written() -> None:
    storage = memory(None)
    before = dict(storage.files)
    with pytest.raises(ReadOnly, match='"mcpRemember": "stage"'):
        remember(storage, "The flight is on the 14th.")
    assert storage.files == before and storage.commits == []


def test_config_knows_the_setting_and_refuses_a_wrong_value() -> None:
    assert load_config('{"mcpRemember": "append"}').mcp_remember == "append"
    config, problems = parse_config('{"mcpRemember": "always"}')
    assert config.mcp_remember == "off"
    assert [p.field for p in problems] == ["mcpRemember"]
    assert "mcpRemember" not in load_config(None).to_json()  # absent until set


def test_stage_keeps_the_exact_text_in_its_own_file() -> None:
    storage = memory("stage")
    text = "  Nell's visa appointment: 3 Sept, 09:40 — bring the photos.\n"
    done = remember(storage, text)
    assert done.outcome == "staged" and done.note is not None
    stored = sn.read_note(storage.snapshot(), done.note.note_id)
    assert stored == done.note
    assert stored.text == text and stored.source == "MCP (stdio)" and stored.status == "staged"
    assert stored.note_id == "20260811-112000-n00001"
    assert storage.files[core_md(OPEN_ID)] == memory().files[core_md(OPEN_ID)]  # the slice is untouched


def test_append_adds_a_marked_user_turn_and_keeps_every_other_turn() -> None:
    storage = memory("append")
    done = remember(storage, "Decided: the lake house on the 14th.", source="Claude Code")
    assert (done.outcome, done.slice_id, done.turn_id) == ("appended", OPEN_ID, "n00001")
    s = parse_core_md(storage.files[core_md(OPEN_ID)])
    assert [t.content for t in s.turns] == [
        "Planning the Lisbon trip.",
        "Which week?",
        "[remembered via Claude Code]\n\nDecided: the lake house on the 14th.",
    ]
    assert s.turns[-1].role == "user" and s.turns[-1].timestamp == "2026-08-11T11:20:00.000Z"


def test_append_stages_when_no_conversation_is_open() -> None:
    for storage in (memory("append", open_slice=False), _expired()):
        done = remember(storage, "Remember the dentist.")
        assert done.outcome == "staged" and done.why_staged == "no conversation is open to add it to"


def _expired() -> InMemoryStorage:
    storage = memory("append")
    storage.files[CONFIG_JSON] = json.dumps({"mcpRemember": "append", "slicing": {"maxSliceMinutes": 5}})
    return storage


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "Nothing to remember"),
        ("  \n ", "Nothing to remember"),
        ("x" * (sn.MAX_NOTE_CHARS + 1), "the limit is 20000"),
    ],
)
def test_bad_notes_are_refused_and_nothing_is_written(text: str, message: str) -> None:
    storage = memory("append")
    before = dict(storage.files)
    with pytest.raises(InvalidInput, match=message):
        remember(storage, text)
    assert storage.files == before


def test_accept_turns_a_staged_note_into_a_turn_once() -> None:
    storage = memory("stage")
    note = remember(storage, "The cat's name is Miso.").note
    assert note is not None
    batch = WriteBatch.open(storage)
    decided = sn.accept(batch, note.note_id, load_config(None), NOW, SequentialIds("a"))
    batch.commit("accept")
    assert decided.status == "accepted" and decided.slice_id == OPEN_ID
    turns = parse_core_md(storage.files[core_md(OPEN_ID)]).turns
    assert turns[-1].content == "[remembered via MCP (stdio)]\n\nThe cat's name is Miso."
    assert sn.read_note(storage.snapshot(), note.note_id).status == "accepted"
    with pytest.raises(ConflictError, match="already accepted"):
        sn.accept(WriteBatch.open(storage), note.note_id, load_config(None), NOW, SequentialIds("b"))


def test_accept_without_an_open_conversation_keeps_the_note_staged() -> None:
    storage = memory("stage", open_slice=False)
    note = remember(storage, "Call the landlord.").note
    assert note is not None
    with pytest.raises(ConflictError, match="the note stays staged"):
        sn.accept(WriteBatch.open(storage), note.note_id, load_config(None), NOW, SequentialIds())
    assert sn.read_note(storage.snapshot(), note.note_id).status == "staged"


def test_decline_marks_the_note_and_keeps_its_words() -> None:
    storage = memory("stage")
    note = remember(storage, "Not this one.").note
    assert note is not None
    batch = WriteBatch.open(storage)
    sn.decline(batch, note.note_id, NOW)
    batch.commit("decline")
    kept = sn.read_note(storage.snapshot(), note.note_id)
    assert (kept.status, kept.text) == ("declined", "Not this one.")
    assert [n.note_id for n in sn.list_notes(storage.snapshot())] == [note.note_id]


def test_unknown_and_corrupt_notes_say_what_is_wrong() -> None:
    storage = memory("stage")
    with pytest.raises(NotFound, match="previously notes"):
        sn.read_note(storage.snapshot(), "nope")
    with pytest.raises(InvalidInput, match="not a note id"):
        sn.note_path("../x")
    storage.files[sn.note_path("broken")] = "{not json"
    with pytest.raises(InvalidInput, match=r"memory/inbox/notes/broken\.json is not valid JSON"):
        sn.list_notes(storage.snapshot())
    storage.files[sn.note_path("broken")] = json.dumps({"note_id": "broken", "text": 3})
    with pytest.raises(InvalidInput, match="not a staged note"):
        sn.read_note(storage.snapshot(), "broken")


@given(st.text(min_size=1).filter(lambda t: t.strip()), st.text(max_size=100))
def test_any_note_round_trips_through_its_file(text: str, source: str) -> None:
    note = sn.StagedNote("20260811-112000-abc", "2026-08-11T11:20:00.000Z", sn.clean_source(source), text)
    assert sn.parse_note(sn.render_note(note)) == note


def test_the_clock_and_ids_make_the_note_id() -> None:
    clock = FixedClock(NOW)
    batch = WriteBatch.open(memory("stage"))
    note = sn.stage(batch, "hello", "", clock.now(), SequentialIds("z"))
    assert (note.note_id, note.source) == ("20260811-112000-z00001", "MCP")


def test_the_format_doc_example_is_what_render_writes() -> None:
    doc = (Path(__file__).resolve().parents[2] / "docs" / "FORMAT.md").read_text(encoding="utf-8")
    example = doc.split("\n## Staged notes\n", 1)[1].split("```json\n", 1)[1].split("```\n", 1)[0]
    assert sn.render_note(sn.parse_note(example)) == example


@settings(max_examples=60, deadline=None)
@given(st.text(min_size=1, max_size=300).filter(lambda t: t.strip()))
def test_any_appended_note_reads_back_word_for_word(text: str) -> None:
    storage = memory("append")
    try:
        remember(storage, text)
    except InvalidInput:
        return  # refused as a whole: nothing was written (checked in the tests above)
    s = parse_core_md(storage.files[core_md(OPEN_ID)])
    assert [t.content for t in s.turns[:2]] == ["Planning the Lisbon trip.", "Which week?"]
    assert s.turns[-1].content == sn.marked_text(text, "MCP (stdio)")  # the note, word for word
