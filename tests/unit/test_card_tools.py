"""CardSession: every mutation tool's OK and rejection paths, the loop brake, the session results."""

from __future__ import annotations

import pytest

from core.agent.evolution.card_tools import TOOL_NAMES, CardSession
from core.clock import parse_iso
from core.llm.types import ToolCall, ToolResult
from core.memory.card.model import parse_card, render_card

pytestmark = pytest.mark.unit

NOW = parse_iso("2026-08-17T20:00:00.000Z")  # already 2026-08-18 in Shanghai
BASE = """# Previously On

_Active slice: 2026-08-08-1200 | Format: user card v2 | Updated: 2026-08-08T12:00:00.000Z_

## Identity

- Name: Alex

- Address them as: Alex

## Past

Alex is an AI engineer who prefers concise answers.

- Founded their studio in 2021 — refs: [2026/07/01/0900]

## Now

- Evaluating a Rust migration — refs: [2026/08/05/1420] | since: 2026-08-05

## Horizon

- Send the contractor invoice — by: 2026-08-20 — refs: [2026/08/07/0709]

## Self-model

- Prefer explicit low effort for simple checks.
"""
V3 = """# Previously On

_Active slice: 2026-08-05-1644 | Format: user profile + self-model | Updated: 2026-08-05T16:46:18.878Z_

## User profile

### Identity & background

- Works as a data engineer
  refs: [2026/07/26/1539] | confidence: high | updated: 2026-07-26 | obs: 2

## Self-model

### Corrections

- Skip the preamble
  refs: [2026/07/26/1539] | confidence: medium | updated: 2026-07-26 | obs: 1
"""
KNOWN = {"2026-07-01-0900", "2026-08-05-1420", "2026-08-07-0709", "2026-08-11-1426", "2026-08-15-2030"}
REF = "2026/08/11/1426"


def session(base: str = BASE, tz: str = "Asia/Shanghai") -> CardSession:
    return CardSession(
        base, slice_id="2026-08-17-2000", now=NOW, slice_exists=KNOWN.__contains__, timezone=tz
    )


def filled(section: str, n: int) -> CardSession:
    s = session("")
    for i in range(n):
        if section == "past":
            assert s.add_past_anchor(f"anchor number {i}", [REF]).startswith("OK")
        elif section == "now":
            assert s.add_now(f"hook number {i}", [REF]).startswith("OK")
        elif section == "horizon":
            assert s.add_horizon(f"task number {i}", "2026-09-01", [REF]).startswith("OK")
        elif section == "self":
            assert s.add_self_model(f"lesson number {i}").startswith("OK")
        elif section == "identity":
            s.card.identity.append(f"Extra {i}: x")
    return s


# ---------------------------------------------------------------- session basics


def test_session_starts_from_the_card_with_fresh_stamps_and_no_change() -> None:
    s = session()
    assert (s.card.slice_id, s.card.updated) == ("2026-08-17-2000", "2026-08-17T20:00:00.000Z")
    assert s.today == "2026-08-18"
    assert not s.changed
    assert s.render() == BASE.replace("2026-08-08-1200", "2026-08-17-2000").replace(
        "2026-08-08T12:00:00.000Z", "2026-08-17T20:00:00.000Z"
    )


def test_add_then_remove_is_no_change_in_substance() -> None:
    s = session()
    assert s.add_self_model("Keep answers short on mobile").startswith("OK — ")
    assert s.changed
    assert s.remove_self_model("answers short").startswith("OK — ")
    assert not s.changed
    assert s.log == [
        "add_self_model: Keep answers short on mobile",
        "remove_self_model: Keep answers short on mobile",
    ]


def test_legacy_base_is_migrated_not_dropped() -> None:
    s = session(V3)
    assert s.migrated
    assert s.card.identity == ["Works as a data engineer"]
    assert s.card.self_model == ["Skip the preamble"]
    assert not s.changed


def test_free_text_base_is_kept_as_unsorted_lines() -> None:
    s = session("Some notes I wrote myself.\nAnother line.")
    assert s.add_now("Moving house", [REF]).startswith("OK")
    out = s.render()
    assert "## Unsorted\n\nSome notes I wrote myself.\n\nAnother line.\n" in out
    assert "- Moving house — refs: [2026/08/11/1426] | since: 2026-08-18" in out


def test_untouched_entries_survive_a_mutation_byte_for_byte() -> None:
    hand = BASE + "\n## Notes\n\n- my own bullet\n"
    s = session(hand)
    before = parse_card(render_card(s.card), NOW)
    assert s.add_horizon("Book the venue", "2026-09-01", [REF]).startswith("OK")
    after = parse_card(s.render(), NOW)
    assert after.horizon[:1] == before.horizon
    assert (after.identity, after.past, after.now, after.self_model) == (
        before.identity,
        before.past,
        before.now,
        before.self_model,
    )
    assert after.unplaced == ["## Notes", "- my own bullet"]


# ---------------------------------------------------------------- Identity


def test_set_identity_replaces_the_line_for_that_field() -> None:
    s = session()
    assert s.set_identity("name", "  Alexandra ") == 'OK — Identity now reads "Name: Alexandra".'
    assert s.card.identity == ["Name: Alexandra", "Address them as: Alex"]


def test_set_identity_appends_a_new_field() -> None:
    s = session()
    assert s.set_identity("pronouns", "she/her").startswith("OK")
    assert s.card.identity[-1] == "Pronouns: she/her"


def test_set_identity_rejects_when_eight_lines_and_field_is_new() -> None:
    s = filled("identity", 8)
    out = s.set_identity("alias", "Al")
    assert out.startswith("REJECTED: Identity already has 8 lines")
    assert len(s.card.identity) == 8


def test_set_identity_unknown_field_and_too_long_value() -> None:
    s = session()
    assert s.set_identity("nickname", "Al").startswith("REJECTED: field must be one of")  # type: ignore[arg-type]
    out = s.set_identity("name", "x" * 301)
    assert out.startswith("REJECTED: Identity name is 301 chars; the limit is 300.")
    assert not s.changed


# ---------------------------------------------------------------- Past


def test_update_past_profile_ok_empty_multiline_and_too_long() -> None:
    s = session()
    assert s.update_past_profile("Alex builds things.") == "OK — Past profile replaced (19 chars)."
    assert s.card.past.profile == "Alex builds things."
    assert "cannot be emptied" in s.update_past_profile("   ")
    assert "single line" in s.update_past_profile("one\ntwo")
    assert s.update_past_profile("y" * 2401).startswith(
        "REJECTED: The Past profile is 2401 chars; the limit is 2400."
    )
    assert s.card.past.profile == "Alex builds things."


def test_add_past_anchor_appends_with_normalised_refs() -> None:
    s = session()
    out = s.add_past_anchor("Moved to Lisbon in 2025", ["2026-08-11-1426-ab_C9", "2026/08/07/0709"])
    assert out == "OK — anchor added to Past (2/8)."
    assert s.card.past.anchors[-1].refs == ["2026/08/11/1426-ab_C9", "2026/08/07/0709"]


@pytest.mark.parametrize(
    ("refs", "expected"),
    [
        ([], "REJECTED: refs are required"),
        (["yesterday"], 'REJECTED: "yesterday" is not a slice ref.'),
        (["2026/08/11"], 'REJECTED: "2026/08/11" is not a slice ref.'),
        (
            ["2026-08-12-0000"],
            'REJECTED: ref "2026-08-12-0000" points at slice 2026-08-12-0000, which does not exist.',
        ),
    ],
)
def test_add_past_anchor_ref_rejections(refs: list[str], expected: str) -> None:
    s = session()
    assert s.add_past_anchor("Something durable", refs).startswith(expected)
    assert len(s.card.past.anchors) == 1


def test_add_past_anchor_duplicate_and_cap() -> None:
    s = session()
    assert s.add_past_anchor("  founded their STUDIO in 2021 ", [REF]).startswith(
        "REJECTED: this Past entry is already on the card"
    )
    full = filled("past", 8)
    assert full.add_past_anchor("one more", [REF]).startswith("REJECTED: Past already holds 8 anchors")


def test_check_order_length_before_refs_before_duplicate() -> None:
    s = session()
    assert "chars; the limit" in s.add_past_anchor("z" * 301, [])
    assert s.add_past_anchor("Founded their studio in 2021", []).startswith("REJECTED: refs are required")


def test_remove_past_anchor_match_and_no_match() -> None:
    s = session()
    out = s.remove_past_anchor("nothing like it")
    assert out.startswith(
        'REJECTED: no Past anchor entry contains "nothing like it". Current entries: "Founded'
    )
    assert s.remove_past_anchor("STUDIO") == 'OK — removed from Past: "Founded their studio in 2021".'
    assert s.card.past.anchors == []
    assert "Current entries: (none)" in s.remove_past_anchor("studio")


def test_blank_match_is_refused_rather_than_hitting_the_first_entry() -> None:
    s = session()
    assert s.remove_now("  ").startswith("REJECTED: match is empty")
    assert len(s.card.now) == 1


# ---------------------------------------------------------------- Now


def test_add_now_prepends_with_today_in_the_users_zone() -> None:
    s = session()
    assert (
        s.add_now("Training for a 5K", ["2026-08-11-1426"])
        == "OK — added to the top of Now (since 2026-08-18)."
    )
    assert [n.text for n in s.card.now] == ["Training for a 5K", "Evaluating a Rust migration"]
    assert s.card.now[0].refs == [REF]


def test_add_now_since_given_and_invalid() -> None:
    s = session()
    assert s.add_now("Hook A", [REF], since="2026-08-10").endswith("(since 2026-08-10).")
    assert s.add_now("Hook B", [REF], since="10 Aug").startswith("REJECTED: since must be a date")
    assert s.add_now("Hook B", [REF], since="2026-02-30").startswith("REJECTED: since must be a date")


def test_add_now_cap() -> None:
    s = filled("now", 5)
    assert s.add_now("sixth", [REF]).startswith("REJECTED: Now already holds 5 items")


def test_remove_now() -> None:
    s = session()
    assert s.remove_now("rust") == 'OK — removed from Now: "Evaluating a Rust migration".'
    assert s.card.now == []


def test_promote_now_to_past_moves_to_the_end_with_refs() -> None:
    s = session()
    assert s.promote_now_to_past("rust migration").startswith("OK — moved from Now to Past")
    assert s.card.now == []
    assert [(a.text, a.refs) for a in s.card.past.anchors][-1] == (
        "Evaluating a Rust migration",
        ["2026/08/05/1420"],
    )


def test_promote_with_anchors_full_keeps_the_now_item() -> None:
    s = filled("past", 8)
    assert s.add_now("A hook", [REF]).startswith("OK")
    assert s.promote_now_to_past("hook").startswith(
        "REJECTED: Past already holds 8 anchors, so nothing can be"
    )
    assert [n.text for n in s.card.now] == ["A hook"]


def test_promote_onto_an_identical_anchor_merges_refs() -> None:
    s = session()
    assert s.add_now("founded their studio in 2021", ["2026/08/07/0709"]).startswith("OK")
    assert s.promote_now_to_past("studio").startswith("OK")
    assert [(a.text, a.refs) for a in s.card.past.anchors] == [
        ("Founded their studio in 2021", ["2026/07/01/0900", "2026/08/07/0709"])
    ]


# ---------------------------------------------------------------- Horizon


def test_add_horizon_ok_and_rejections() -> None:
    s = session()
    assert s.add_horizon("Book the venue", "2026-09-01", [REF]) == "OK — added to Horizon, due 2026-09-01."
    assert s.card.horizon[-1].by == "2026-09-01"
    assert s.add_horizon("Other", "", [REF]).startswith("REJECTED: by must be a date")
    assert s.add_horizon("x" * 201, "2026-09-01", [REF]).startswith("REJECTED: A Horizon item is 201 chars")
    assert (
        filled("horizon", 5)
        .add_horizon("sixth", "2026-09-01", [REF])
        .startswith("REJECTED: Horizon already holds 5 items")
    )


def test_resolve_horizon_with_note() -> None:
    s = session()
    out = s.resolve_horizon("invoice", note="paid on the 19th")
    assert out == 'OK — resolved and removed from Horizon: "Send the contractor invoice" (paid on the 19th).'
    assert s.card.horizon == []
    assert s.log == ["resolve_horizon: Send the contractor invoice (paid on the 19th)"]


def test_resolve_horizon_without_note_nudges_to_record_the_outcome() -> None:
    s = session()
    out = s.resolve_horizon("INVOICE")
    assert out.startswith("OK — resolved and removed from Horizon")
    assert "record the outcome" in out
    assert s.log == ["resolve_horizon: Send the contractor invoice"]


# ---------------------------------------------------------------- Self-model


def test_add_self_model_ok_duplicate_cap() -> None:
    s = session()
    assert s.add_self_model("Lead with the answer") == "OK — lesson added to Self-model (2/10)."
    assert s.add_self_model("lead with the answer").startswith("REJECTED: this Self-model entry is already")
    assert filled("self", 10).add_self_model("eleventh").startswith("REJECTED: Self-model already holds 10")


@pytest.mark.parametrize(
    "text",
    [
        "Never use recall for this user",
        "Don't call the recall tool",
        "dont use recall",
        "Never read the slices",
    ],
)
def test_self_model_cannot_switch_off_a_standing_rule(text: str) -> None:
    s = session()
    assert s.add_self_model(text).startswith("REJECTED: this lesson contradicts a standing rule")


def test_self_model_override_with_the_users_words_is_accepted() -> None:
    s = session()
    out = s.add_self_model("Never use recall for small talk — overrides: user asked 2026/08/11/1426")
    assert out.startswith("OK")


# ---------------------------------------------------------------- loop brake


def test_loop_brake_over_length_attempts_1_2_3() -> None:
    s = session()
    text = "word " * 80  # 399 chars once trimmed
    first = s.add_now(text, [REF])
    assert first.startswith("REJECTED: A Now item is 399 chars; the limit is 300.")
    second = s.add_now("  " + text.upper(), [REF])  # same key: case and spacing do not matter
    assert second.startswith("LOOP BRAKE (attempt 2): ")
    assert "399 chars against a 300 limit" in second and "at least 99 chars" in second
    assert second.endswith(first)
    third = s.add_now(text, [REF])
    assert third.startswith("OK — FORCED: ")
    assert s.card.now[0].text == ("word " * 60).strip()
    assert s.log == ["forced: add_now: " + ("word " * 10)[:50]]


def test_loop_brake_forced_write_with_bad_refs_is_still_rejected() -> None:
    s = session()
    text = "q" * 320
    assert s.add_past_anchor(text, ["2026-01-01-0000"]).startswith("REJECTED: A Past anchor is 320")
    assert s.add_past_anchor(text, ["2026-01-01-0000"]).startswith("LOOP BRAKE (attempt 2)")
    third = s.add_past_anchor(text, ["2026-01-01-0000"])
    assert third.startswith("LOOP BRAKE (attempt 3): the text was cut to 300 chars, but the call still fails")
    assert "does not exist" in third
    assert s.add_past_anchor(text, ["2026-01-01-0000"]).startswith("LOOP BRAKE (attempt 4)")
    assert len(s.card.past.anchors) == 1 and s.log == []


def test_loop_brake_other_rejections_are_skipped_from_the_third_attempt() -> None:
    s = session()
    for _ in range(2):
        s.add_now("Evaluating a Rust migration", [REF])
    third = s.add_now("Evaluating a Rust migration", [REF])
    assert third.startswith("LOOP BRAKE (attempt 3): ") and "SKIPPED" in third and "call finish" in third
    assert third.endswith("REJECTED: this Now entry is already on the card. Nothing to add; move on.")
    assert len(s.card.now) == 1


def test_loop_brake_counts_per_exact_call() -> None:
    s = session()
    assert s.remove_now("zzz").startswith("REJECTED")
    assert s.remove_now("yyy").startswith("REJECTED")  # different args: a fresh first attempt
    assert s.remove_now(" ZZZ ").startswith("LOOP BRAKE (attempt 2)")


def test_forced_truncation_counts_utf16_units() -> None:
    s = session()
    text = "a" + "😀" * 150  # 301 UTF-16 units
    for _ in range(3):
        out = s.add_self_model(text)
    assert out.startswith("OK — FORCED")
    assert s.card.self_model[-1] == "a" + "😀" * 149  # a half emoji is dropped, never kept


# ---------------------------------------------------------------- model-facing description


def test_every_tool_is_described_with_a_schema() -> None:
    s = session()
    described = {t.spec.name: t.spec for t in s.as_tools()}
    assert tuple(described) == TOOL_NAMES
    for d in described.values():
        assert d.description and d.parameters["type"] == "object"
    assert described["add_horizon"].parameters["required"] == ["text", "by", "refs"]
    assert described["set_identity"].parameters["properties"]["field"]["enum"] == [
        "name",
        "address_as",
        "pronouns",
        "alias",
    ]


def test_calls_are_validated_by_the_one_tool_engine() -> None:
    s = session()
    tools = {t.spec.name: t for t in s.as_tools()}

    def run(name: str, arguments: dict[str, object]) -> ToolResult:
        return tools[name].run(ToolCall(id=f"c-{name}", name=name, arguments=arguments))

    assert run("add_now", {"text": "Hook", "refs": "2026-08-11-1426"}).content.startswith("OK")
    assert s.card.now[0].refs == [REF]
    before = list(s.card.now)
    refused = run("add_now", {"text": "Hook 2"})
    assert refused.is_error and refused.call_id == "c-add_now"
    assert refused.content.startswith("ERROR: invalid arguments for add_now: refs: Field required.")
    assert s.card.now == before  # the refused call changed nothing
    # An argument the schema does not name is ignored, as for every other tool.
    assert run("remove_now", {"match": "Hook", "why": "done"}).content.startswith("OK")


def test_time_context_helpers() -> None:
    s = session()
    assert [n.text for n in s.aged_now()] == ["Evaluating a Rust migration"]  # since 08-05, today 08-18
    assert s.overdue() == []
    assert s.add_horizon("Late thing", "2026-08-17", [REF]).startswith("OK")
    assert [h.text for h in s.overdue()] == ["Late thing"]


def test_a_bare_string_ref_in_a_direct_call_is_one_ref() -> None:
    s = session()
    assert s.add_now("Hook", "2026-08-11-1426").startswith("OK")  # type: ignore[arg-type]
    assert s.card.now[0].refs == [REF]
