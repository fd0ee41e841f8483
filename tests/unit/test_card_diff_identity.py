"""Card diff beyond the vectors (moves, caps, unified diff, summary) and the identity block."""

from __future__ import annotations

import pytest

from core.memory.card.diff import (
    ChangeCounts,
    diff_card_lines,
    summarize_card_changes,
    summary_line,
    unified_card_diff,
)
from core.memory.card.identity import IdentityProfile, identity_block, identity_block_for, parse_identity

pytestmark = pytest.mark.unit

BEFORE = """# Previously On

## Past

- Old anchor — refs: [2026/07/01/0900]

## Now

- Training for a marathon in October — refs: [2026/08/11/1426] | since: 2026-08-11

- Looking for a flat — refs: [2026/08/12/0800] | since: 2026-08-12
"""
AFTER = """# Previously On

## Past

Alex runs.

- Old anchor — refs: [2026/07/01/0900]

- Training for a marathon in October — refs: [2026/08/11/1426]

## Now

- Found a flat in Alfama — refs: [2026/08/16/0900] | since: 2026-08-16
"""


def test_now_to_past_move_counts_as_demoted() -> None:
    counts = summarize_card_changes(BEFORE, AFTER)
    # The profile appeared (added), the marathon moved to Past (demoted), the flat hunt ended (revised).
    assert counts == ChangeCounts(added=1, reinforced=0, demoted=1, removed=0, superseded=1)


def test_unrelated_entries_are_not_paired_through_dates_and_refs() -> None:
    before = "## Now\n\n- Alpha — refs: [2026/08/11/1426] | since: 2026-08-11\n"
    after = "## Now\n\n- Bravo — refs: [2026/08/11/1427] | since: 2026-08-11\n"
    assert summarize_card_changes(before, after) == ChangeCounts(added=1, removed=1)


def test_line_diff_is_capped_at_twelve_per_side() -> None:
    before = "\n".join(f"- old {i}" for i in range(20))
    after = "\n".join(f"- new {i}" for i in range(20))
    changes = diff_card_lines(before, after)
    assert [c.type for c in changes] == ["removed"] * 12 + ["added"] * 12


def test_unified_diff_and_summary_line() -> None:
    diff = unified_card_diff(BEFORE, AFTER)
    assert diff.startswith("--- card (before)\n+++ card (after)\n@@")
    assert "\n+Alex runs." in diff and "\n-- Looking for a flat" in diff
    assert unified_card_diff(BEFORE, BEFORE) == ""
    assert summary_line(ChangeCounts()) == "The card is unchanged."
    line = summary_line(summarize_card_changes(BEFORE, AFTER))
    assert line == "Card updated: 1 entry added, 1 entry revised, 1 entry moved from Now to Past."


def test_identity_block_lists_structured_fields_then_the_lines() -> None:
    card = "## Identity\n\n- Name: Ana (also Anna)\n- Alias: An, Nana\n- Pronouns: she/her\n\n## Past\n"
    profile = parse_identity(card)
    assert profile == IdentityProfile(
        body="Name: Ana (also Anna)\nAlias: An, Nana\nPronouns: she/her",
        name="Ana",
        aliases=("An", "Nana"),
        pronouns="she/her",
    )
    assert identity_block(profile) == (
        "## Who you're assisting\nName: Ana\nAliases: An, Nana\nPronouns: she/her\n\n"
        "Name: Ana (also Anna)\nAlias: An, Nana\nPronouns: she/her"
    )


def test_identity_chinese_patterns_and_absence() -> None:
    profile = parse_identity("## Identity\n\n- 用户自称 小林，可用 林哥 称呼\n")
    assert profile is not None and (profile.name, profile.address_as) == ("小林", "林哥")
    assert parse_identity("## Past\n\nNothing about identity.\n") is None
    assert parse_identity("## Identity\n\n## Past\n") is None
    assert identity_block_for("no card at all") == ""
