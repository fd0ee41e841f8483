"""slice_format.json, slice_create.json, turn_parser.json, turn_merge.json: core.md bytes and parsers."""

from __future__ import annotations

import contextlib

import pytest

from core.errors import InvalidInput, SliceFormatError
from core.memory import paths
from core.memory.catalog.monthly import monthly_entry, upsert_monthly
from core.memory.paths import SliceId
from core.memory.slice.merge import merge_turns, turn_key
from core.memory.slice.model import KEY_ORDER, Slice, Turn, escaped, new_slice, parse_core_md, render_core_md
from core.memory.slice.turns import apply_range, parse_doc
from tests.conformance.slice_shapes import (
    SLICE,
    as_the_original_frames_it,
    assert_original_bytes,
    assert_same_slice,
    slice_from_vector,
    with_kept_ends,
    without_escapes,
)
from tests.conformance.vectors import Case, shape, vectors

FORMAT = vectors("slice_format.json")
CREATE = vectors("slice_create.json").uses("serialized")
PARSER = vectors("turn_parser.json")
MERGE = vectors("turn_merge.json")

PARSED = shape("parsed", "raw manager_parseSlice", "turn_parser_parseTurns")
# The original's slice parser threw (a YAML syntax error); `throws` holds its message or `true`.
THROWS = shape("throws", "raw throws", "turn_parser_parseTurns")
READ_ONLY = shape("read-tool only", "raw turn_parser_parseTurns")
PARSE = PARSER.cases("parse", PARSED, THROWS, READ_ONLY)

pytestmark = pytest.mark.conformance


@pytest.mark.parametrize("case", FORMAT.cases("serialize", shape("serialize", "input serialized reparsed")))
def test_serialize(case: Case) -> None:
    s = slice_from_vector(case["input"])
    text = render_core_md(s)
    if not escaped(s):
        assert_original_bytes(text, case["serialized"])
        assert_same_slice(parse_core_md(text), with_kept_ends(case["reparsed"], case["input"]))
        return
    # A deliberate difference (docs/FORMAT.md, "Escaped turn text"): blank space the original
    # trims from a message is kept behind a guard; otherwise the bytes are the original's.
    assert [t.content for t in parse_core_md(text).turns] == [t.content for t in s.turns]
    assert without_escapes(text) == case["serialized"]


@pytest.mark.parametrize("case", FORMAT.value("frontmatter_key_order"))
def test_frontmatter_key_order(case: Case) -> None:
    # `marked_by` is ours and comes last, after the original's keys.
    assert list(KEY_ORDER) == [*case.data, "marked_by"]


PATH_KEYS = "id rel timeline_dir core agent previously"


@pytest.mark.parametrize("case", FORMAT.cases("paths", shape("paths", PATH_KEYS)))
def test_paths(case: Case) -> None:
    sid = case["id"]
    if paths.is_slice_id(sid):
        assert paths.slice_rel(sid) == case["rel"]
        assert str(paths.slice_dir(sid) / "timeline") == case["timeline_dir"]
        assert str(paths.core_md(sid)) == case["core"]
        assert str(paths.agent_md(sid)) == case["agent"]
        assert str(paths.card_snapshot(sid)) == case["previously"]
        return
    # Deliberate difference (docs/FORMAT.md "Paths"): the original maps an id of fewer than four
    # parts (a date-only legacy id) into the day directory itself; we build no path from it.
    assert case["rel"] == "/".join(sid.split("-")), "the original's legacy mapping"
    for helper in (paths.slice_rel, paths.slice_dir, paths.core_md, paths.agent_md, paths.card_snapshot):
        with pytest.raises(InvalidInput, match="Expected YYYY-MM-DD-HHMM"):
            helper(sid)


@pytest.mark.parametrize("case", CREATE.cases("result", SLICE))
def test_create(case: Case) -> None:
    want = case.data
    first = want["turns"][0]
    s = new_slice(
        want["slice_id"],
        want["start"],
        want["timezone"],
        Turn(first["turnId"], first["timestamp"], first["role"], first["content"]),
    )
    assert_same_slice(s, want)
    assert_original_bytes(render_core_md(s), CREATE.section("serialized"))


@pytest.mark.parametrize("case", PARSE)
def test_slice_parser(case: Case) -> None:
    if case.kind == "throws":
        # The file is refused with a message saying how to fix it, never read as something else.
        with pytest.raises(SliceFormatError, match="Fix the YAML"):
            parse_core_md(case["raw"])
    elif case.kind == "parsed":
        assert_same_slice(parse_core_md(case["raw"]), case["manager_parseSlice"])
    else:
        # No recorded slice-parser result: it must still answer (a slice or a clear refusal).
        with contextlib.suppress(SliceFormatError):
            parse_core_md(case["raw"])


@pytest.mark.parametrize("case", PARSE)
def test_read_tool_parser(case: Case) -> None:
    if "turn_parser_parseTurns" not in case:
        # The read-tool parser scans lines and reads no YAML: it never throws.
        assert parse_doc(case["raw"]).turns is not None
        return
    want = case["turn_parser_parseTurns"]
    doc = parse_doc(case["raw"])
    assert doc.frontmatter == want["frontmatter"]
    got = [
        {
            "index": t.index,
            "turnId": t.turn_id,
            "header": t.header,
            "timestamp": t.timestamp,
            "content": t.content,
        }
        for t in doc.turns
    ]
    assert got == want["turns"]


@pytest.mark.parametrize(
    "case", PARSER.cases("apply_range", shape("range", "range selected_indices reassembled"))
)
def test_apply_range(case: Case) -> None:
    raw = case.shared("raw")
    if "frontmatter_text" in case.group:
        assert parse_doc(raw).frontmatter == case.shared("frontmatter_text")
    result = apply_range(raw, case["range"])
    assert result.selected == case["selected_indices"]
    assert result.text == case["reassembled"]


@pytest.mark.parametrize("case", PARSER.cases("parse_slice_id", shape("id", "id parsed")))
def test_parse_slice_id(case: Case) -> None:
    parsed = SliceId.try_parse(case["id"])
    got = {"y": parsed.year, "m": parsed.month, "d": parsed.day, "hm": parsed.hhmm} if parsed else None
    assert got == case["parsed"]


def _same_turn(t: Turn) -> tuple[str | None, str, str, str]:
    """A turn as the original's merge identifies it, with no id spelled one way: a legacy numeric
    label (`## Turn 3`, which we keep as written) and `## Turn ?` (the original's spelling of no
    id) both mean "no id"."""
    real = t.turn_id if t.turn_id and t.turn_id != "?" else None
    return real, t.timestamp, t.role, t.content


@pytest.mark.parametrize("case", MERGE.cases("cases", shape("merge", "remote_raw local merged")))
def test_turn_merge(case: Case) -> None:
    """The original's merge, except deliberate differences (core/memory/slice/merge.py `turn_key`):
    a local turn whose id the remote holds only in the *other* role (the reply of a round whose
    user turn is already there) is kept, where the original dropped it; a turn with no id (the old
    layout: a numeric header, or `?`) is told apart by its time, role and opening text — the
    original keyed `?` turns by the `?` alone and dropped all but the first — and a numeric
    header keeps its number."""
    local = slice_from_vector(case["local"])
    ours = merge_turns(case["remote_raw"], local)
    if as_the_original_frames_it(ours) == case["merged"]:
        return
    got, want = parse_core_md(ours), parse_core_md(case["merged"])
    remote = parse_core_md(case["remote_raw"])
    same_turns = Slice(**{**vars(got), "turns": want.turns})
    assert render_core_md(same_turns) == case["merged"], "frontmatter differs"
    got_turns, want_turns = [_same_turn(t) for t in got.turns], [_same_turn(t) for t in want.turns]
    assert [t for t in got_turns if t in want_turns] == want_turns, "a turn the original kept is missing"
    remote_roles = {(t.turn_id, t.role) for t in remote.turns}
    remote_keys = {turn_key(t) for t in remote.turns}
    for t, same in zip(got.turns, got_turns, strict=True):
        if same in want_turns:
            continue
        if same[0] is None:  # no id: the original collapsed it into another `?` turn
            assert turn_key(t) not in remote_keys, f"unexplained extra turn {t}"
            assert any(_same_turn(x) == same for x in local.turns), f"unexplained extra turn {t}"
            continue
        assert (t.turn_id, t.role) not in remote_roles, f"unexplained extra turn {t}"
        assert any(r.turn_id == t.turn_id for r in remote.turns), f"unexplained extra turn {t}"


@pytest.mark.parametrize(
    "case", FORMAT.cases("monthly_index", shape("monthly", "entry serialized", "path_*"))
)
def test_monthly_index(case: Case) -> None:
    """The monthly `_index.json` entry of a slice, the file's bytes, and its path."""
    entry = case["entry"]
    keys = ("focus", "summary", "tags", "status", "start", "open_loops", "decisions")
    s = Slice(slice_id=entry["id"], **{k: entry[k] for k in keys if k in entry})
    assert monthly_entry(s) == entry
    assert upsert_monthly(None, monthly_entry(s)) == case["serialized"]
    for key in (k for k in case if k.startswith("path_")):
        _, year, month = key.split("_")  # path_<year>_<month>, the month as a number
        assert str(paths.monthly_index(year, month)) == case[key], key


@pytest.mark.parametrize(
    "sid", ["2026-08-16", "2026-08", "2026", "2026-08-16-", "2026-08-16-1000\n", "２０２６-08-16-1000"]
)
def test_path_helpers_build_nothing_from_a_date_only_or_odd_id(sid: str) -> None:
    """REFERENCE §1 maps a date-only id to `YYYY/MM/DD` (the day folder that holds the slices);
    we refuse it, and every other id that is not four ASCII digit groups, with the form to use."""
    helpers = (paths.slice_rel, paths.slice_dir, paths.core_md, paths.agent_md, paths.appendix_md)
    for helper in (*helpers, paths.card_snapshot, paths.legacy_flat_md, paths.parse_slice_id):
        with pytest.raises(InvalidInput, match="Expected YYYY-MM-DD-HHMM"):
            helper(sid)
    assert not paths.is_slice_id(sid) and SliceId.try_parse(sid) is None


def test_a_date_only_id_through_the_api_is_refused() -> None:
    from tests.functional.api_env import make_env

    env = make_env(key=None)
    for route in ("/api/slices/2026-08-16", "/api/slices/2026-08-16-1000%0A"):
        r = env.client.get(route)
        assert r.status_code in (400, 404, 422) and r.json()["error"], route
    assert env.files() == {}
