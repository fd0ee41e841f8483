"""The evolution layer's formats: direction.md and fitness.json round-trip, hold bounds, lose nothing."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from core.clock import parse_iso
from core.errors import InvalidInput
from core.memory.evolution import direction as d
from core.memory.evolution import fitness as f

pytestmark = pytest.mark.unit

DIRECTION = """\
# Direction
updated: 2026-08-11T11:15:00.000Z

## Portrait
- Thinks aloud before deciding — refs: [2026/08/11/1015, 2026/07/30/0900]

## Hypotheses
- h1: Wants the short answer first when a deadline is near — test: short-first replies in deadline weeks draw no "too long" — refs: [2026/08/11/1015] | opened: 2026-08-11 | expires: 2026-09-01

## Rejected
- Dislikes being asked follow-up questions | rejected: 2026-08-01
"""  # noqa: E501


def test_a_direction_file_round_trips_byte_for_byte() -> None:
    parsed = d.parse_direction(DIRECTION)
    assert [t.text for t in parsed.portrait] == ["Thinks aloud before deciding"]
    assert parsed.portrait[0].refs == ["2026/08/11/1015", "2026/07/30/0900"]
    (h,) = parsed.hypotheses
    assert (h.id, h.opened, h.expires, h.refs) == ("h1", "2026-08-11", "2026-09-01", ["2026/08/11/1015"])
    assert h.test == 'short-first replies in deadline weeks draw no "too long"'
    assert h.expired("2026-09-02") and not h.expired("2026-09-01")
    assert parsed.rejected == [d.Rejected("Dislikes being asked follow-up questions", "2026-08-01")]
    assert d.render_direction(parsed) == DIRECTION


def test_hand_written_lines_are_kept_under_unsorted() -> None:
    text = DIRECTION.replace("## Rejected", "- a trait without refs\nstray words\n\n## Rejected")
    parsed = d.parse_direction(text)
    assert parsed.unsorted == ["- a trait without refs", "stray words"]
    again = d.parse_direction(d.render_direction(parsed))
    assert again.unsorted == parsed.unsorted and again.portrait == parsed.portrait


def test_an_absent_direction_is_empty_and_renders_its_sections() -> None:
    empty = d.parse_direction(None)
    assert empty.substance() == ([], [], [], [])
    assert d.render_direction(empty) == "# Direction\n\n## Portrait\n\n## Hypotheses\n\n## Rejected\n"


def test_the_ttl_is_capped() -> None:
    assert d.expiry("2026-08-11", 21) == "2026-09-01"
    assert d.expiry("2026-08-11", 400) == "2026-09-25"  # TTL_DAYS_MAX = 45
    assert d.expiry("2026-08-11", 0) == "2026-08-12"


_line = st.text(st.characters(blacklist_categories=("Cs", "Cc", "Zl", "Zp")), min_size=1, max_size=60).filter(
    lambda s: s.strip() == s and s and not any(m in s for m in ("—", "|", "[", "]", ","))
)


@given(text=_line, claim=_line, test=_line)
def test_any_text_the_tools_accept_reads_back_exactly(text: str, claim: str, test: str) -> None:
    ref = ["2026/08/11/1015"]
    direction = d.Direction(
        updated="2026-08-11T11:15:00.000Z",
        portrait=[d.Trait(text, ref)],
        hypotheses=[d.Hypothesis("h1", claim, test, ref, "2026-08-11", "2026-09-01")],
        rejected=[d.Rejected(claim, "2026-08-01")],
    )
    again = d.parse_direction(d.render_direction(direction))
    assert again == direction


def test_evidence_less_scores_are_zeroed_on_write() -> None:
    ledger = f.Fitness(
        scores=[
            f.Score("2026-08-11-1015", "recall", -2, "   ", "t1"),
            f.Score("2026-08-11-1015", "card", 1, "yes, exactly that", "t1"),
        ]
    )
    data = json.loads(f.render_fitness(ledger))
    assert [(s["bucket"], s["score"], s["evidence"]) for s in data["scores"]] == [
        ("recall", 0, ""),
        ("card", 1, "yes, exactly that"),
    ]
    assert f.parse_fitness(f.render_fitness(ledger)) == f.normalize(ledger)


def test_the_ledger_is_bounded_and_keeps_one_score_per_slice_and_bucket() -> None:
    scores = [f.Score(f"2026-08-11-{i:04d}", "recall", -1, "again?", "t") for i in range(f.SCORES_MAX + 30)]
    scores.append(f.Score("2026-08-11-0000", "recall", 1, "perfect", "t2"))  # re-scored: replaces
    signals = [f.Signal("stop", f"t{i}") for i in range(f.SIGNALS_MAX + 5)]
    out = f.normalize(f.Fitness(scores=scores, signals=signals))
    assert len(out.scores) == f.SCORES_MAX and len(out.signals) == f.SIGNALS_MAX
    assert out.scores[-1] == f.Score("2026-08-11-0000", "recall", 1, "perfect", "t2")
    assert sum(1 for s in out.scores if s.slice == "2026-08-11-0000") == 1
    assert out.signals[-1].at == f"t{f.SIGNALS_MAX + 4}"


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("{", "not valid JSON"),
        ("[]", "must be an object"),
        ('{"scores": [{"bucket": "mood", "score": 0}]}', "bucket 'mood'"),
        ('{"scores": [{"bucket": "card", "score": 5}]}', "outside -2…1"),
        ('{"signals": [{"kind": "sneeze"}]}', "kind 'sneeze'"),
    ],
)
def test_a_damaged_ledger_is_named_not_guessed(text: str, words: str) -> None:
    with pytest.raises(InvalidInput, match=words):
        f.parse_fitness(text)


def test_check_validates_the_evolution_layer() -> None:
    from core.actions.check import check_memory
    from core.memory.evolution.paths import DIRECTION_MD, FITNESS_JSON, playbook_md
    from core.storage.memory import InMemoryStorage

    expired = DIRECTION.replace("expires: 2026-09-01", "expires: 2026-08-01") + "loose line\n"
    files = {
        str(DIRECTION_MD): expired,
        str(FITNESS_JSON): '{"scores": [{"bucket": "card", "score": 9}]}',
        str(playbook_md("recall")): "x" * 1300,
        "memory/agent-playbooks/mail.md": "hi",
        str(playbook_md("search")): "Prefer official sources.\n",
    }
    report = check_memory(InMemoryStorage.from_texts(files).snapshot(), parse_iso("2026-08-11T12:00:00.000Z"))
    found = {(x.path, x.severity, x.message.split(";")[0]) for x in report.findings}
    assert found == {
        (str(DIRECTION_MD), "warning", "a line in no direction section"),
        (str(DIRECTION_MD), "warning", "hypothesis h1 expired on 2026-08-01"),
        (str(FITNESS_JSON), "error", "a score of 9 is outside -2…1"),
        (str(playbook_md("recall")), "warning", "1300 characters"),
        (
            "memory/agent-playbooks/mail.md",
            "warning",
            "no sub-agent reads it (playbooks: recall, search, thinkdeep)",
        ),
    }
    line = next(x.line for x in report.findings if "no direction section" in x.message)
    assert expired.split("\n")[line - 1] == "loose line"


def test_the_format_doc_example_is_what_we_write() -> None:
    from pathlib import Path

    doc = (Path(__file__).resolve().parents[2] / "docs" / "FORMAT.md").read_text(encoding="utf-8")
    section = doc.split("\n### `memory/evolution/direction.md`\n", 1)[1]
    example = section.split("```markdown\n", 1)[1].split("\n```\n", 1)[0] + "\n"
    assert d.render_direction(d.parse_direction(example)) == example
    assert d.parse_direction(example).unsorted == []


_any_text = st.text(st.characters(blacklist_categories=("Cs",)), max_size=150)


@given(evidence=_any_text, detail=_any_text)
def test_any_evidence_survives_the_ledger_trimmed(evidence: str, detail: str) -> None:
    from core.text import js_trim

    ledger = f.Fitness(
        scores=[f.Score("2026-08-11-1015", "card", -1, evidence, "t")],
        signals=[f.Signal("stop", "t", "", detail)],
    )
    again = f.parse_fitness(f.render_fitness(ledger))
    assert again.scores[0].evidence == js_trim(evidence)
    assert again.scores[0].score == (-1 if js_trim(evidence) else 0)
    assert again.signals[0].detail == detail


@given(text=_any_text)
def test_any_playbook_text_reaches_the_prompt_as_stored(text: str) -> None:
    from core.agent.playbooks import playbook_note
    from core.memory.evolution.paths import playbook_md
    from core.memory.evolution.store import check_playbook
    from core.storage.memory import InMemoryStorage
    from core.text import js_trim

    if not js_trim(text):
        with pytest.raises(InvalidInput, match="cannot be empty"):
            check_playbook(text)
        return
    stored = check_playbook(text)
    assert stored == js_trim(text) + "\n"
    view = InMemoryStorage.from_texts({str(playbook_md("recall")): stored}).snapshot()
    assert playbook_note(view, "recall") == f"\n\n## Playbook: how to serve this user\n{js_trim(text)}"
