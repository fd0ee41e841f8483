"""LoCoMo import: the scoring tool's conventions, bad files, importing twice."""

from __future__ import annotations

import json

import pytest

from core.clock import parse_iso
from core.errors import InvalidInput
from core.imports.locomo import (
    conversation_slices,
    load_conversations,
    parse_session_time,
    pick_conversation,
    turn_id,
)
from core.imports.writer import import_slices
from core.memory import paths
from core.storage.base import WriteBatch
from core.storage.memory import InMemoryStorage

pytestmark = pytest.mark.unit

NOW = parse_iso("2026-08-11T12:00:00.000Z")


def sample(sample_id: str = "conv-1") -> dict:
    return {
        "sample_id": sample_id,
        "conversation": {
            "speaker_a": "Ann",
            "speaker_b": "Bo",
            "session_1_date_time": "1:56 pm on 8 May, 2023",
            "session_1": [
                {"speaker": "Ann", "dia_id": "D1:1", "text": "Hi Bo!"},
                {"speaker": "Bo", "dia_id": "D1:2", "text": "Hey Ann.", "blip_caption": "a dog"},
                {"speaker": "Bo", "dia_id": "D1:3", "text": "Look at this."},
                {"speaker": "Ann", "dia_id": "D1:4", "text": "Cute!"},
            ],
            "session_2_date_time": "9:05 am on 12 May, 2023",
            "session_2": [{"speaker": "Bo", "dia_id": "D2:1", "text": "Morning."}],
            "session_3_date_time": "10:00 am on 13 May, 2023",
            "session_3": [],
        },
        "qa": [],
    }


def test_sessions_become_closed_slices_with_the_tools_ids() -> None:
    [conv] = load_conversations(json.dumps([sample()]))
    s1, s2 = conversation_slices(conv)
    assert (s1.slice_id, s2.slice_id) == ("2023-05-08-1356", "2023-05-12-0905")
    assert (s1.status, s1.start, s1.end) == ("closed", "2023-05-08T13:56:00.000Z", "2023-05-08T13:57:30.000Z")
    assert [t.role for t in s1.turns] == ["user", "agent", "agent", "user"]
    # rounds: (Ann, Bo) share an id, the second Bo line opens its own round
    r0, r1, r2 = turn_id("conv-1", 1, 0), turn_id("conv-1", 1, 1), turn_id("conv-1", 1, 2)
    assert [t.turn_id for t in s1.turns] == [r0, r0, r1, r2]
    assert s1.turns[1].content == "Hey Ann.\n[shares a dog]"
    assert [t.timestamp for t in s1.turns][:2] == ["2023-05-08T13:56:00.000Z", "2023-05-08T13:56:30.000Z"]


def test_turn_id_is_the_scoring_tools() -> None:
    # pinned from /work/shared/eval/locomo_common.turn_id
    assert turn_id("conv-26", 1, 0) == "1tfewu"
    assert (turn_id("conv-44", 3, 7), turn_id("conv-44", 3, 7, 1)) == ("_OzpCw", "C9JQBA")


def test_session_time_parsing() -> None:
    assert parse_session_time("12:09 am on 1 January, 2024").isoformat() == "2024-01-01T00:09:00+00:00"
    assert parse_session_time("12:30 pm on 2 Feb, 2024".replace("Feb", "February")).hour == 12
    with pytest.raises(InvalidInput, match="Unreadable session time"):
        parse_session_time("yesterday")


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("{oops", "not valid JSON"),
        ("[]", "holds no LoCoMo conversations"),
        ('[{"sample_id": "x"}]', "is this a LoCoMo file"),
        ("[1]", "not a conversation object"),
    ],
)
def test_bad_files_get_clear_errors(text: str, needle: str) -> None:
    with pytest.raises(InvalidInput, match=needle):
        load_conversations(text, "f.json")


def test_several_conversations_need_a_choice() -> None:
    convs = load_conversations(json.dumps([sample("conv-1"), sample("conv-2")]))
    with pytest.raises(InvalidInput, match="choose one with --conversation"):
        pick_conversation(convs, None)
    with pytest.raises(InvalidInput, match="it has: conv-1, conv-2"):
        pick_conversation(convs, "conv-9")
    assert pick_conversation(convs, "conv-2").sample_id == "conv-2"


def test_unknown_speaker_and_same_minute_sessions_are_errors() -> None:
    bad = sample()
    bad["conversation"]["session_2"][0]["speaker"] = "Eve"
    with pytest.raises(InvalidInput, match="unknown speaker 'Eve'"):
        conversation_slices(load_conversations(json.dumps(bad))[0])
    twin = sample()
    twin["conversation"]["session_2_date_time"] = "1:56 pm on 8 May, 2023"
    with pytest.raises(InvalidInput, match="same minute"):
        conversation_slices(load_conversations(json.dumps(twin))[0])


def _import(storage: InMemoryStorage, slices: list) -> dict:
    batch = WriteBatch.open(storage)
    report = import_slices(batch, slices, NOW)
    batch.commit("import")
    return report.as_dict()


def test_importing_twice_neither_duplicates_nor_overwrites() -> None:
    slices = conversation_slices(load_conversations(json.dumps(sample()))[0])
    storage = InMemoryStorage()
    first = _import(storage, slices)
    assert first["imported"] == ["2023-05-08-1356", "2023-05-12-0905"]
    assert first["catalog"]["total"] == 2
    assert (
        json.loads(storage.files[paths.monthly_index("2023", "05")])["slices"][0]["id"] == "2023-05-08-1356"
    )
    commits = len(storage.commits)
    again = _import(storage, slices)
    assert again["imported"] == [] and again["unchanged"] == first["imported"]
    assert len(storage.commits) == commits
    # a user's own slice at the same minute is kept as it is
    mine = "---\nslice_id: 2023-05-08-1356\n---\nmine\n"
    storage.files[paths.core_md("2023-05-08-1356")] = mine
    third = _import(storage, slices)
    assert third["kept_existing"] == ["2023-05-08-1356"]
    assert storage.files[paths.core_md("2023-05-08-1356")] == mine
