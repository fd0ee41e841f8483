"""`SliceId` (one parse of a slice id, both spellings) and `classify` (what a memory path is)."""

from __future__ import annotations

import re
from datetime import UTC, datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st

from core.errors import InvalidInput
from core.memory import paths
from core.memory.paths import PathKind, SliceId, classify

pytestmark = pytest.mark.unit

_DASH = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}-[0-9]{4}")
_ids = st.from_regex(_DASH, fullmatch=True)
# Near misses: digits of other scripts, separators, newlines, wrong widths.
_odd = st.text(alphabet="0123456789-/\n ２٣x", max_size=20)


@given(st.one_of(_ids, _odd, st.text(max_size=24)))
def test_any_text_parses_to_an_id_whose_forms_round_trip_or_is_refused_clearly(text: str) -> None:
    try:
        sid = SliceId.parse(text)
    except InvalidInput as exc:
        assert "Expected YYYY-MM-DD-HHMM" in str(exc)
        assert not _DASH.fullmatch(text) and SliceId.try_parse(text) is None
        return
    assert _DASH.fullmatch(text), "only four ASCII digit groups are an id"
    assert sid.dash == str(sid) == text
    assert SliceId.from_slash(sid.slash) == sid == SliceId.from_either(sid.slash)
    assert sid.slash == text.replace("-", "/")
    assert sid.dir.value == f"memory/episodic/slices/{sid.slash}"
    assert sid.core_md == sid.dir / "timeline/core.md" == paths.core_md(text)


@given(_ids, _ids)
def test_ordering_is_the_dash_strings_ordering(a: str, b: str) -> None:
    assert (SliceId.parse(a) < SliceId.parse(b)) == (a < b)


@given(st.text(max_size=24))
def test_the_api_pattern_and_the_value_agree(text: str) -> None:
    assert bool(re.fullmatch(paths.SLICE_ID_PATTERN, text)) == paths.is_slice_id(text)


@pytest.mark.parametrize(
    "text",
    [
        "2026-08-16",
        "2026-08-16-",
        "2026-08-16-1000\n",
        "２０２６-08-16-1000",
        "2026/08/16/1000",
        "2026-8-16-1000",
        "",
    ],
)
def test_refused_forms(text: str) -> None:
    with pytest.raises(InvalidInput, match="Expected YYYY-MM-DD-HHMM"):
        SliceId.parse(text)
    with pytest.raises(InvalidInput):
        SliceId("2026", "08", "16", "10000")
    with pytest.raises(InvalidInput):
        SliceId(2026, "08", "16", "1000")  # type: ignore[arg-type]


def test_slash_and_either_forms_do_not_mix() -> None:
    assert SliceId.from_slash("2026-08-16-1000") is None
    assert SliceId.from_either("2026-08/16/1000") is None
    assert SliceId.from_either("2026/08/16/1000") == SliceId("2026", "08", "16", "1000")
    assert SliceId.from_either(None) is None and SliceId.try_parse(20260816) is None


def test_started_and_paths() -> None:
    sid = SliceId.parse("2026-08-11-1115")
    assert sid.started == datetime(2026, 8, 11, 11, 15, tzinfo=UTC)
    assert sid.start_iso == "2026-08-11T11:15:00.000Z" and sid.date == "2026-08-11"
    assert sid.card_snapshot.value == _F + "previously.md"
    assert sid.legacy_flat_md.value == "memory/episodic/slices/2026/08/11/1115.md"
    assert sid.monthly_index.value == "memory/episodic/slices/2026/08/_index.json"
    # The digits are not checked against the calendar (the original accepted such ids).
    odd = SliceId.parse("2026-13-40-9999")
    assert odd.started is None and odd.start_iso == "2026-13-40T99:99:00.000Z"


_SID = SliceId.parse("2026-08-11-1115")
_F = "memory/episodic/slices/2026/08/11/1115/"


@pytest.mark.parametrize(
    ("path", "kind", "sid", "inner"),
    [
        (
            _F + "timeline/core.md",
            PathKind.CORE_MD,
            _SID,
            "timeline/core.md",
        ),
        (
            _F + "timeline/agent.md",
            PathKind.AGENT_MD,
            _SID,
            "timeline/agent.md",
        ),
        (_F + "timeline/appendix.md", PathKind.APPENDIX_MD, _SID, None),
        (
            _F + "previously.md",
            PathKind.CARD_SNAPSHOT,
            _SID,
            "previously.md",
        ),
        (_F + "images/t1-0.png.b64", PathKind.SLICE_FILE, _SID, None),
        ("memory/episodic/slices/2026/08/11/1115.md", PathKind.LEGACY_FLAT, _SID, ""),
        ("memory/episodic/slices/2026/08/_index.json", PathKind.MONTHLY_INDEX, None, ""),
        ("memory/episodic/slices/2026/08/11/notes.md", PathKind.SLICES_STRAY, None, ""),
        ("memory/episodic/slices/2026/08/11/11150/timeline/core.md", PathKind.SLICES_STRAY, None, ""),
        ("memory/episodic/slices/２０２６/08/11/1115/timeline/core.md", PathKind.SLICES_STRAY, None, ""),
        ("memory/episodic/slices/2026/08/11/1115", PathKind.SLICES_STRAY, None, ""),
        ("memory/episodic/current-previously.md", PathKind.CARD, None, ""),
        ("memory/episodic/strands.json", PathKind.STRANDS, None, ""),
        ("memory/episodic/timeline/index.json", PathKind.CATALOG, None, ""),
        ("memory/episodic/timeline/pending.json", PathKind.PENDING, None, ""),
        ("memory/episodic/timeline/shas.json", PathKind.CATALOG_SHAS, None, ""),
        ("memory/episodic/timeline.md", PathKind.TIMELINE_MD, None, ""),
        ("memory/user/config.json", PathKind.CONFIG, None, ""),
        ("memory/episodic/search/index.json", PathKind.SEARCH, None, ""),
        ("memory/evolution/direction.md", PathKind.EVOLUTION, None, ""),
        ("memory/agent-playbooks/recall.md", PathKind.EVOLUTION, None, ""),
        ("memory/user/profile.md", PathKind.OTHER, None, ""),
        ("tasks/x.md", PathKind.OTHER, None, ""),
    ],
)
def test_classify(path: str, kind: PathKind, sid: SliceId | None, inner: str | None) -> None:
    got = classify(paths.MemoryPath(path))
    assert got == classify(path)
    assert (got.kind, got.slice_id) == (kind, sid)
    if inner is not None:
        assert got.inner == inner
    assert (got.folder_id is not None) == (sid is not None and kind is not PathKind.LEGACY_FLAT)


def test_classify_names_the_month_of_a_monthly_index() -> None:
    assert classify("memory/episodic/slices/2026/08/_index.json").month == ("2026", "08")
    assert classify("memory/episodic/slices/2026/8/_index.json").kind is PathKind.SLICES_STRAY


@given(_ids)
def test_every_helper_path_classifies_back_to_its_id(text: str) -> None:
    sid = SliceId.parse(text)
    for path, kind in (
        (sid.core_md, PathKind.CORE_MD),
        (sid.agent_md, PathKind.AGENT_MD),
        (sid.appendix_md, PathKind.APPENDIX_MD),
        (sid.card_snapshot, PathKind.CARD_SNAPSHOT),
        (sid.legacy_flat_md, PathKind.LEGACY_FLAT),
    ):
        assert (classify(path).kind, classify(path).slice_id) == (kind, sid)
    assert classify(sid.monthly_index).month == (sid.year, sid.month)
