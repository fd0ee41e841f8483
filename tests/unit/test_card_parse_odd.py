"""Hand-edited and odd cards: the tolerant parser keeps every entry, and a round trip is stable."""

from __future__ import annotations

import re

import pytest

from core.clock import parse_iso
from core.memory.card.model import (
    Card,
    NowItem,
    aged_now_items,
    is_card,
    new_card,
    overdue_horizon,
    parse_card,
    render_card,
    split_refs,
)

pytestmark = pytest.mark.unit

NOW = parse_iso("2026-08-17T06:00:00.000Z")

HAND_EDITED = """\
# Previously On
_Active slice: 2026-08-08-1200 | Format: user card v2 | Updated: 2026-08-08T12:00:00.000Z_
A stray note above every section.
## identity
- Name: Alex
* Alias: Al
Pronouns they/them written without a dash
## Profile
<!-- the paragraph below was written by hand -->
Alex writes Rust
and runs on Wednesdays.
- Left the agency in 2024 — refs: 2026/07/01/0900, 2026/07/02/1000
### a sub-heading someone added
## Recent
- Training for a 5K <!-- ⚠️ check --> — refs: [2026/08/11/1426] | since: 2026-08-11
- No date on this one — refs: [2026/08/12/0800]
+ Plus-bullet hook | since: 2026-08-01
## Horizon
- Draft the speech — by: 2026-08-21 — refs: [2026/08/15/2030]
- Someday trip — by: next spring — refs: [2026/08/15/2030]
## Notes
- a bullet in a section the card does not know
free text there too
## Self model
- Lead with empathy when venting
<!--
a multi-line comment
-->
"""


def _words(text: str) -> set[str]:
    return set(re.findall(r"[^\W_]+", text.lower()))


def test_hand_edited_card_is_parsed_entry_by_entry() -> None:
    card = parse_card(HAND_EDITED, NOW)
    assert card.identity == ["Name: Alex", "Alias: Al"]
    assert card.past.profile == "Alex writes Rust\nand runs on Wednesdays."
    assert [(a.text, a.refs) for a in card.past.anchors] == [
        ("Left the agency in 2024", ["2026/07/01/0900", "2026/07/02/1000"])
    ]
    assert [(n.text, n.refs, n.since) for n in card.now] == [
        ("Training for a 5K", ["2026/08/11/1426"], "2026-08-11"),
        ("No date on this one", ["2026/08/12/0800"], "2026-08-17"),
        ("Plus-bullet hook", [], "2026-08-01"),
    ]
    assert [(h.text, h.by) for h in card.horizon] == [
        ("Draft the speech", "2026-08-21"),
        ("Someday trip — by: next spring", ""),
    ]
    assert card.self_model == ["Lead with empathy when venting"]
    assert card.unplaced == [
        "A stray note above every section.",
        "Pronouns they/them written without a dash",
        "### a sub-heading someone added",
        "## Notes",
        "- a bullet in a section the card does not know",
        "free text there too",
    ]


def test_round_trip_loses_no_words_and_is_stable() -> None:
    first = render_card(parse_card(HAND_EDITED, NOW))
    without_comments = re.sub(r"<!--.*?-->", "", HAND_EDITED, flags=re.DOTALL)
    # Every word a person wrote is still there (bookkeeping words aside).
    assert _words(without_comments) - _words(first) <= {"profile", "recent", "model", "identity"}
    second = render_card(parse_card(first, NOW))
    assert second == first
    assert "## Unsorted\n\nA stray note above every section.\n\n" in first


def test_crlf_and_consecutive_bullets() -> None:
    text = "# Previously On\r\n\r\n## Now\r\n- a | since: 2026-08-01\r\n- b | since: 2026-08-02\r\n"
    card = parse_card(text, NOW)
    assert [(n.text, n.since) for n in card.now] == [("a", "2026-08-01"), ("b", "2026-08-02")]


def test_blank_and_empty_input() -> None:
    card = parse_card("", NOW)
    assert card == Card(updated="2026-08-17T06:00:00.000Z")
    assert render_card(card) == render_card(new_card("", NOW))
    assert not is_card("")


def test_empty_bullets_are_skipped_and_comment_only_bullets_do_not_render_blank() -> None:
    card = parse_card("## Self-model\n-\n- <!-- nothing -->\n- real\n", NOW)
    assert card.self_model == ["real"]


def test_multiline_entry_text_in_memory_cannot_break_the_layout() -> None:
    card = new_card("2026-08-17-0600", NOW)
    card.now.append(NowItem("first line\n## Horizon\n- injected", ["2026/08/11/1426"], "2026-08-11"))
    again = parse_card(render_card(card), NOW)
    assert [n.text for n in again.now] == ["first line ## Horizon - injected"]
    assert again.horizon == []


def test_split_refs_variants() -> None:
    assert split_refs("x — refs: [a], [b]") == ("x", ["a", "b"])
    assert split_refs("x — refs: a, b") == ("x", ["a", "b"])
    assert split_refs("x — refs:") == ("x", [])
    assert split_refs("no refs here") == ("no refs here", [])


def test_aged_now_items_flag_seven_days_and_more() -> None:
    card = Card(
        now=[
            NowItem("six days", since="2026-08-11"),
            NowItem("seven days", since="2026-08-10"),
            NowItem("broken", since="soon"),
        ]
    )
    assert [n.text for n in aged_now_items(card, "2026-08-17")] == ["seven days"]
    assert [n.text for n in card.now] == ["six days", "seven days", "broken"]  # nothing removed


def test_overdue_ignores_undated_and_malformed() -> None:
    card = parse_card(
        "## Horizon\n- a — by: 2026-08-16\n- b\n- c — by: 2026-08-17\n- d — by: tomorrow\n",
        NOW,
    )
    assert [h.text for h in overdue_horizon(card.horizon, "2026-08-17")] == ["a"]


def test_is_card_recognises_both_stamps_and_the_heading_pair() -> None:
    assert is_card("_Active slice: x | Format: user card | Updated: y_")
    assert is_card("## Identity\n## Past\n")
    assert not is_card("## Identity\n## Now\n")
