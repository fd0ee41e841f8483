"""card_edit: numbering as `card show` prints it; one entry edited or deleted, nothing else touched."""

from __future__ import annotations

import pytest

from core.clock import parse_iso
from core.errors import InvalidInput, NotFound
from core.memory.card.edit import delete_entry, edit_entry, format_numbered, numbered_entries, parse_address
from core.memory.card.model import Card, parse_card

pytestmark = pytest.mark.unit

NOW = parse_iso("2026-08-17T06:00:00.000Z")
TEXT = """# Previously On

_Active slice: 2026-08-08-1200 | Format: user card v2 | Updated: 2026-08-08T12:00:00.000Z_

## Identity

- Name: Alex

- Address them as: Alex

## Past

Alex is an AI engineer.

- Founded their studio in 2021 — refs: [2026/07/01/0900]

## Now

- Evaluating a Rust migration — refs: [2026/08/05/1420] | since: 2026-08-05

- Training for a 5K — refs: [2026/08/11/1426] | since: 2026-08-11

## Horizon

- Send the contractor invoice — by: 2026-08-20 — refs: [2026/08/07/0709]

## Self-model

- Prefer explicit low effort for simple checks.

## Unsorted

a stray line
"""


@pytest.fixture
def card() -> Card:
    return parse_card(TEXT, NOW)


def _others(c: Card, section: str) -> dict:
    data = c.substance()
    data.pop(section)
    return data


def test_numbering_follows_sections_and_positions(card: Card) -> None:
    assert [e.address for e in numbered_entries(card)] == [
        "identity 1",
        "identity 2",
        "past",
        "anchor 1",
        "now 1",
        "now 2",
        "horizon 1",
        "self_model 1",
        "unsorted 1",
    ]
    listing = format_numbered(card, today="2026-08-17").splitlines()
    assert listing[4].startswith("now 1         Evaluating a Rust migration — refs: [2026/08/05/1420]")
    assert listing[4].endswith("| since: 2026-08-05  [stale]")
    assert listing[5] == "now 2         Training for a 5K — refs: [2026/08/11/1426] | since: 2026-08-11"
    assert format_numbered(card, today="2026-08-21").splitlines()[6].endswith("[overdue]")
    assert format_numbered(Card()) == "(the card is empty)"


@pytest.mark.parametrize(
    ("address", "expected"),
    [
        ("now 2", ("now", 2)),
        ("Self-model 1", ("self_model", 1)),
        ("self 3", ("self_model", 3)),
        ("past", ("past", 1)),
        ("profile", ("past", 1)),
        ("anchors 2", ("anchor", 2)),
    ],
)
def test_parse_address(address: str, expected: tuple[str, int]) -> None:
    assert parse_address(address) == expected


@pytest.mark.parametrize("address", ["now", "later 1", ""])
def test_parse_address_errors(address: str) -> None:
    with pytest.raises(InvalidInput):
        parse_address(address)


def test_edit_now_text_keeps_refs_since_and_everything_else(card: Card) -> None:
    with pytest.raises(InvalidInput, match="blank space"):  # kept exactly or refused, never trimmed
        edit_entry(card, "now", 2, "  Training for a 10K ")
    out = edit_entry(card, "now", 2, "Training for a 10K")
    assert (out.now[1].text, out.now[1].refs, out.now[1].since) == (
        "Training for a 10K",
        ["2026/08/11/1426"],
        "2026-08-11",
    )
    assert out.now[0] == card.now[0]
    assert _others(out, "now") == _others(card, "now")
    assert card.now[1].text == "Training for a 5K"  # the input card is not mutated


def test_edit_refs_and_dates(card: Card) -> None:
    out = edit_entry(card, "horizon", 1, refs=["2026-08-15-2030"], by="")
    assert (out.horizon[0].refs, out.horizon[0].by) == (["2026/08/15/2030"], "")
    out = edit_entry(card, "now", 1, since="2026-08-06")
    assert out.now[0].since == "2026-08-06"
    with pytest.raises(InvalidInput, match="since must be a date"):
        edit_entry(card, "now", 1, since="last week")
    with pytest.raises(InvalidInput, match="not a slice ref"):
        edit_entry(card, "anchor", 1, refs=["somewhere"])
    with pytest.raises(InvalidInput, match="does not exist"):
        edit_entry(card, "anchor", 1, refs=["2026/01/01/0000"], slice_exists=lambda _sid: False)
    with pytest.raises(InvalidInput, match="carry no refs"):
        edit_entry(card, "identity", 1, refs=["2026/08/15/2030"])
    with pytest.raises(InvalidInput, match="Only horizon entries"):
        edit_entry(card, "now", 1, by="2026-09-01")


def test_edit_enforces_caps_and_one_line(card: Card) -> None:
    with pytest.raises(InvalidInput, match="201 chars; the limit is 200"):
        edit_entry(card, "horizon", 1, "h" * 201)
    with pytest.raises(InvalidInput, match="single line"):
        edit_entry(card, "self_model", 1, "one\ntwo")
    with pytest.raises(InvalidInput, match="empty"):
        edit_entry(card, "now", 1, "   ")
    # The Identity cap applies to the value after its label.
    assert edit_entry(card, "identity", 2, "Address them as: " + "a" * 300).identity[1].endswith("a" * 300)
    with pytest.raises(InvalidInput, match="limit is"):
        edit_entry(card, "identity", 2, "Address them as: " + "a" * 301)


def test_edit_refuses_a_duplicate_in_the_same_section(card: Card) -> None:
    with pytest.raises(InvalidInput, match="identical now entry"):
        edit_entry(card, "now", 2, "evaluating a rust migration")
    assert edit_entry(card, "now", 1, "Evaluating a Rust migration").now == card.now  # itself is fine


def test_edit_profile_and_unsorted(card: Card) -> None:
    assert edit_entry(card, "past", 1, "Alex builds tools.").past.profile == "Alex builds tools."
    assert edit_entry(card, "unsorted", 1, "a tidier line").unplaced == ["a tidier line"]


def test_delete_one_entry(card: Card) -> None:
    out, gone = delete_entry(card, "now", 1)
    assert (gone.address, gone.text, gone.refs, gone.since) == (
        "now 1",
        "Evaluating a Rust migration",
        ["2026/08/05/1420"],
        "2026-08-05",
    )
    assert [n.text for n in out.now] == ["Training for a 5K"]
    assert _others(out, "now") == _others(card, "now")
    assert len(card.now) == 2


@pytest.mark.parametrize(("section", "field"), [("past", "past"), ("unsorted", "unplaced")])
def test_delete_profile_and_unsorted(card: Card, section: str, field: str) -> None:
    out, _ = delete_entry(card, section, 1)
    assert _others(out, field) == _others(card, field)
    assert out.past.profile == ("" if section == "past" else card.past.profile)
    assert out.past.anchors == card.past.anchors


def test_out_of_range_is_not_found(card: Card) -> None:
    with pytest.raises(NotFound, match="There is no now 3: now has 2 entries"):
        delete_entry(card, "now", 3)
    with pytest.raises(NotFound, match=r"anchor has 1 entry \(anchor 1\)"):
        edit_entry(card, "anchor", 0, "x")


def test_self_model_refs_are_refs_and_an_edit_of_the_words_keeps_them() -> None:
    from core.memory.card.model import render_card

    line = "- Keep answers short — refs: [2024/08/19/1845], [2024/09/01/0900]"
    card = parse_card(f"## Self-model\n\n{line}\n", NOW)
    (entry,) = numbered_entries(card)
    assert (entry.text, entry.refs) == ("Keep answers short", ["2024/08/19/1845", "2024/09/01/0900"])
    edited = edit_entry(card, "self_model", 1, "Keep answers very short")
    assert "- Keep answers very short — refs: [2024/08/19/1845], [2024/09/01/0900]" in render_card(edited)
    (again,) = numbered_entries(edited)
    assert again.refs == entry.refs
