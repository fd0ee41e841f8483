"""The pure parts of forgetting and editing: card refs, agent.md entries, strands, marks."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.actions.edit import SliceChanges, apply_changes
from core.clock import FixedClock
from core.errors import InvalidInput
from core.memory.card.forget import ref_matcher, scrub_card_text
from core.memory.catalog.monthly import remove_monthly, render_monthly
from core.memory.catalog.strands import drop_slice
from core.memory.slice.agent_md import append_cognition, cognition_entry, cognition_for, remove_cognition
from core.memory.slice.model import Slice, Turn
from core.memory.slice.slicer import USER_MARK, apply_close_marking, apply_fallback_mark

pytestmark = pytest.mark.unit
NOW = FixedClock.at("2026-08-12T10:00:00.000Z").now()

CARD = """# Previously On

_Active slice: 2026-08-10-0900 | Format: user card v2 | Updated: 2026-08-10T09:10:00.000Z_

## Identity

- Name: Alex

## Past

Alex is an engineer.

- Changed jobs in May 2024 — refs: [2026/07/26/1539]

- Ran a half marathon — refs: [2026/07/26/1539], [2026/08/01/1000]

## Now

- Training for a 5K — refs: [2026/07/26/1539-abc123] | since: 2026-08-09

## Horizon

- Renew the passport — by: 2026-08-01
"""


def test_ref_matcher_forms() -> None:
    whole = ref_matcher("2026-07-26-1539")
    assert whole("2026/07/26/1539") and whole("2026/07/26/1539-abc123") and whole("2026-07-26-1539")
    assert not whole("2026/07/26/15390") and not whole("2026/07/26/1540")
    turn = ref_matcher("2026-07-26-1539", "abc123")
    assert turn("2026/07/26/1539-abc123") and not turn("2026/07/26/1539") and not turn("2026/07/26/1539-x")


def test_scrub_removes_sole_evidence_and_drops_shared_refs() -> None:
    new, counts = scrub_card_text(CARD, "2026-07-26-1539", ref_matcher("2026-07-26-1539"), NOW, restamp=False)
    assert new is not None
    assert counts.removed == 2 and counts.refs_dropped == 1
    assert "Changed jobs" not in new and "Training for a 5K" not in new
    assert "- Ran a half marathon — refs: [2026/08/01/1000]" in new
    assert "Renew the passport" in new and "Alex is an engineer." in new
    assert "Updated: 2026-08-10T09:10:00.000Z" in new


def test_scrub_of_a_turn_touches_only_refs_naming_it() -> None:
    names = ref_matcher("2026-07-26-1539", "abc123")
    new, counts = scrub_card_text(CARD, "2026-07-26-1539", names, NOW, restamp=True)
    assert new is not None and counts.removed == 1 and counts.refs_dropped == 0
    assert "Changed jobs in May 2024" in new and "Training for a 5K" not in new
    assert "Updated: 2026-08-12T10:00:00.000Z" in new


def test_scrub_leaves_cards_that_cite_nothing_forgotten() -> None:
    assert scrub_card_text(CARD, "2025-01-01-0000", ref_matcher("2025-01-01-0000"), NOW, True)[0] is None
    assert scrub_card_text(None, "2025-01-01-0000", ref_matcher("2025-01-01-0000"), NOW, True)[0] is None
    legacy = "# Memory\n\nsomething about 2026/07/26/1539\n"
    assert scrub_card_text(legacy, "2026-07-26-1539", ref_matcher("2026-07-26-1539"), NOW, True)[0] is None


_bodies = st.text(st.characters(codec="utf-8", blacklist_characters="\r"), max_size=80).map(
    lambda s: s.replace("## Cognition ", "") + "\n"
)


@given(st.lists(_bodies, min_size=1, max_size=5), st.data())
def test_remove_cognition_keeps_every_other_entry_exactly(bodies: list[str], data: st.DataObject) -> None:
    ids = [f"t{i}" for i in range(len(bodies))]
    text: str | None = None
    for tid, body in zip(ids, bodies, strict=True):
        text = append_cognition(text, cognition_entry(tid, "2026-08-10T09:00:00.000Z", body))
    assert text is not None
    gone = data.draw(st.sampled_from(ids))
    left = remove_cognition(text, gone)
    assert cognition_for(left, gone) is None
    for tid in ids:
        if tid != gone:
            assert cognition_for(left, tid) == cognition_for(text, tid)
    if len(ids) == 1:
        assert left == ""
    else:
        rebuilt: str | None = None
        for tid, body in zip(ids, bodies, strict=True):
            if tid != gone:
                rebuilt = append_cognition(rebuilt, cognition_entry(tid, "2026-08-10T09:00:00.000Z", body))
        assert rebuilt is not None
        assert left.rstrip() == rebuilt.rstrip()


def test_remove_cognition_without_the_entry_is_unchanged() -> None:
    text = "notes above\n\n## Cognition a1 — 2026-08-10T09:00:00.000Z\n\n### Thinking\nhm\n"
    assert remove_cognition(text, "zz") == text
    assert remove_cognition(text, "a1") == "notes above\n"


def test_drop_slice_from_strands_and_months() -> None:
    strands, gone = drop_slice(
        {"2024": ["2024/01/01/0000"], "a": ["x", "2024/01/01/0000"], "b": []}, "2024/01/01/0000"
    )
    assert strands == {"a": ["x"], "b": []} and gone == ["2024"]
    month = render_monthly("2024-01", [{"id": "2024-01-01-0000"}, {"id": "2024-01-02-0000"}])
    assert remove_monthly(month, "2024-01-03-0000") is None
    assert "2024-01-01-0000" not in (remove_monthly(month, "2024-01-01-0000") or "")


def _slice(**kw: object) -> Slice:
    base = Slice(slice_id="2026-08-10-0900", status="closed", focus="F", summary="S", open_loops=["call mum"])
    base.turns = [Turn("a1", "2026-08-10T09:00:00.000Z", "user", "hello")]
    for k, v in kw.items():
        setattr(base, k, v)
    return base


def test_apply_changes_marks_as_user_and_keeps_done_loops() -> None:
    out = apply_changes(_slice(), SliceChanges(focus="  New focus ", done_loops=["call mum"]))
    # stored as typed, blank ends too (the text policy: an edit never trims the user's words)
    assert out.focus == "  New focus " and out.summary == "S" and out.marked_by == USER_MARK
    assert out.open_loops == [] and out.extra["done_loops"] == ["call mum"]
    assert out.turns == _slice().turns


@pytest.mark.parametrize(
    "changes, needle",
    [
        (SliceChanges(focus="a\nb"), "one line"),
        (SliceChanges(done_loops=["nope"]), "not an open loop"),
        (SliceChanges(focus="", summary=" "), "keeps a focus or a summary"),
        (SliceChanges(tags=["ok", "  "]), "empty item"),
        (SliceChanges(summary="x" * 5000), "keep it under"),
    ],
)
def test_apply_changes_refuses_bad_input(changes: SliceChanges, needle: str) -> None:
    with pytest.raises(InvalidInput, match=needle):
        apply_changes(_slice(), changes)


def test_later_marking_passes_leave_a_user_mark_alone() -> None:
    mine = _slice(marked_by=USER_MARK, focus="Mine", summary="", tags=["mine"])
    closed = apply_close_marking(mine, "Model focus", "Model summary", ["t"], "positive")
    assert (closed.focus, closed.summary, closed.tags) == ("Mine", "Model summary", ["mine"])
    assert closed.marked_by == USER_MARK and closed.emotional_tone == "positive"
    filled = apply_fallback_mark(mine)
    assert filled.focus == "Mine" and filled.summary and filled.marked_by == USER_MARK
    theirs = _slice(focus="", summary="")
    assert apply_fallback_mark(theirs).marked_by == "fallback"


_any_text = st.text(st.characters(codec="utf-8"), max_size=300)


@settings(max_examples=40, deadline=None)
@given(st.dictionaries(st.sampled_from(["a.md", "b/c.json", "d/e/f.txt"]), _any_text, min_size=1))
def test_export_round_trips_any_text_byte_for_byte(files: dict[str, str]) -> None:
    import io
    import zipfile

    from core.memory.export import export_zip
    from core.storage.memory import InMemoryStorage

    storage = InMemoryStorage.from_texts({f"memory/{k}": v for k, v in files.items()})
    buf = io.BytesIO()
    report = export_zip(storage.snapshot(), buf)
    with zipfile.ZipFile(buf) as zf:
        got = {n.removeprefix("memory/"): zf.read(n) for n in zf.namelist() if n.startswith("memory/")}
    assert got == {k: v.encode("utf-8") for k, v in files.items()}
    assert report.files == len(files) and not report.skipped


_line = st.text(
    st.characters(codec="utf-8", blacklist_characters="\r\n\x85\u2028\u2029"), min_size=1, max_size=120
)


@settings(max_examples=80, deadline=None)
@given(
    _line,
    st.text(st.characters(codec="utf-8", blacklist_characters="\r"), min_size=1, max_size=300),
    st.lists(_line, max_size=4),
)
def test_a_hand_edit_reads_back_exactly_as_written(focus: str, summary: str, loops: list[str]) -> None:
    from core.memory.slice.model import parse_core_md, render_core_md
    from core.text import js_trim

    focus, summary = js_trim(focus) or "f", js_trim(summary) or "s"
    loops = list(dict.fromkeys(js_trim(x) for x in loops if js_trim(x)))
    edited = apply_changes(_slice(), SliceChanges(focus=focus, summary=summary, open_loops=loops))
    back = parse_core_md(render_core_md(edited))
    assert (back.focus, back.summary, back.open_loops, back.marked_by) == (focus, summary, loops, USER_MARK)
