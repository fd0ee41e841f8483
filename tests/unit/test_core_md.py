"""core.md parse/render beyond the vectors: odd input, round trips, coercions, cheap readers."""

from __future__ import annotations

import pytest

from core.errors import InvalidInput, SliceFormatError
from core.memory import paths
from core.memory.slice.legacy import parse_legacy_slice
from core.memory.slice.model import (
    Slice,
    Turn,
    count_turns,
    parse_core_frontmatter,
    parse_core_md,
    parse_frontmatter,
    render_core_md,
)
from core.memory.slice.turns import parse_turns
from tests.conftest import load_vectors

pytestmark = pytest.mark.unit

HEAD = "---\nslice_id: 2026-08-11-1115\nstatus: active\nstart: '2026-08-11T11:15:00.000Z'\n---\n"


def _slice(**kw: object) -> Slice:
    base: dict = {"slice_id": "2026-08-11-1115", "start": "2026-08-11T11:15:00.000Z"}
    base.update(kw)
    return Slice(**base)


def test_vector_files_round_trip_byte_for_byte() -> None:
    texts = [c["serialized"] for c in load_vectors("slice_format.json")["serialize"]]
    texts.append(load_vectors("slice_create.json")["serialized"])
    for text in texts:
        again = render_core_md(parse_core_md(text))
        if "line two\n\n\n" in text:  # a turn whose content ended with "\n": the parser trims it
            text = text.replace("line two\n\n\n", "line two\n\n")
        assert again == text


def test_crlf_file_parses_and_renders_with_lf() -> None:
    text = (
        HEAD.replace("\n", "\r\n") + "## Turn a1 — 2026-08-11T11:15:00.000Z (user)\r\n\r\nhello\r\nthere\r\n"
    )
    s = parse_core_md(text)
    assert s.slice_id == "2026-08-11-1115"
    assert [(t.turn_id, t.content) for t in s.turns] == [("a1", "hello\r\nthere")]
    assert "\r" not in render_core_md(s).split("---\n")[1]


def test_empty_body_and_zero_turns() -> None:
    s = parse_core_md(HEAD)
    assert s.turns == []
    text = render_core_md(s)
    assert text.endswith("---\n\n")
    assert render_core_md(parse_core_md(text)) == text


def test_empty_and_frontmatterless_files() -> None:
    assert parse_core_md("").slice_id == ""
    s = parse_core_md("## Turn x1 — 2026-01-01T00:00:00.000Z (user)\n\nhi\n")
    assert (s.status, s.timezone, [t.content for t in s.turns]) == ("active", "UTC", ["hi"])


def test_emoji_and_cjk_round_trip() -> None:
    s = _slice(
        focus="周五的面试 🎉",
        summary="长" * 120,
        tags=["家庭", "emoji 😀", "a: b"],
        turns=[Turn("e1", "2026-08-11T11:15:00.000Z", "user", "你好 👋\n\n第二段")],
    )
    text = render_core_md(s)
    assert 'focus: "\\u5468' not in text and 'focus: "周五的面试 \\U0001F389"' in text
    back = parse_core_md(text)
    assert (back.focus, back.summary, back.tags) == (s.focus, s.summary, s.tags)
    assert back.turns == s.turns
    assert render_core_md(back) == text


def test_header_shaped_lines_inside_content() -> None:
    """A `## Turn ` written inside a message is escaped: no parser sees a second turn."""
    content = "I wrote:\n## Turn 7 — yesterday (user) extra\nand more"
    s = _slice(turns=[Turn("h1", "2026-08-11T11:15:00.000Z", "user", content)])
    text = render_core_md(s)
    assert parse_core_md(text).turns[0].content == content
    assert len(parse_turns(text)) == 1
    assert "I wrote:\n#\\# Turn 7" in text


def test_unflagged_files_are_read_as_written() -> None:
    """The original's cut still applies to a file without `turn_escape: v1` (the appendix keeps the rest)."""
    text = HEAD + "## Turn h1 — 2026-08-11T11:15:00.000Z (user)\n\n\\frac{1}{2} ## Turn x and more\\\n"
    assert parse_core_md(text).turns[0].content == "\\frac{1}{2}"


def test_backslashes_alone_do_not_flag_a_file() -> None:
    """Text the original reads back as written is written as the original writes it."""
    body = "## Turn h1 — 2026-08-11T11:15:00.000Z (user)\n\n\\frac{1}{2} #\\# Turn \\\n"
    written = render_core_md(parse_core_md(HEAD + body))
    assert written.endswith("---\n" + body) and "turn_escape" not in written


def test_em_dash_is_required_in_headers() -> None:
    text = HEAD + "## Turn a1 - 2026-08-11T11:15:00.000Z (user)\n\nhyphen\n"
    assert parse_core_md(text).turns == []
    assert count_turns(text) == 0


def test_legacy_numbered_headers_keep_their_number() -> None:
    text = HEAD + "## Turn 1 — 2024-01-01T00:00:00.000Z (user)\n\nold\n"
    s = parse_core_md(text)
    assert s.turns[0].turn_id is None and s.turns[0].legacy_label == "1"
    assert render_core_md(s).endswith("---\n## Turn 1 — 2024-01-01T00:00:00.000Z (user)\n\nold\n")
    s.turns[0].legacy_label = ""
    assert "## Turn ? —" in render_core_md(s)


def test_unknown_keys_and_marked_by_order() -> None:
    text = HEAD.replace("---\n", "---\nmood: calm\nextra_list:\n  - 1\n", 1).replace(
        "\n---\n", "\nnote: ''\n---\n"
    )
    s = parse_core_md(text)
    assert s.extra == {"mood": "calm", "extra_list": [1], "note": ""}
    s.evolution_summary, s.marked_by = "noted", "fallback"
    out = render_core_md(s)
    tail = out.split("\nloops: []\n", 1)[1]
    assert tail.startswith(
        "evolution_summary: noted\nmarked_by: fallback\nmood: calm\nextra_list:\n  - 1\nnote: ''\n"
    )
    assert parse_core_md(out).extra == s.extra


def test_unquoted_dates_round_trip_unquoted() -> None:
    text = (
        "---\nslice_id: 2026-08-16-1000\nstatus: active\nstart: 2026-08-16T10:00:00.000Z\ntimezone: UTC\n"
        + ("open_loops: []\ndecisions: []\ntags: []\nrelated_slices: []\nloops: []\n---\n\n")
    )
    assert render_core_md(parse_core_md(text)) == text


def test_field_coercions() -> None:
    text = (
        "---\nslice_id: 2026-08-11-1115\nstatus: active\nfocus: 42\nsummary: true\nclosed_by: time_cap\n"
        "tags:\n  - a: b\n  - 7\n  -\ndecisions: just one\n---\n"
    )
    s = parse_core_md(text)
    assert (s.focus, s.summary, s.closed_by) == ("42", "true", "")
    assert s.tags == ["a", "7", ""] and s.decisions == []
    closed = parse_core_md(text.replace("status: active", "status: closed").replace("time_cap", "bogus"))
    assert closed.closed_by == "user_explicit"
    assert parse_core_md(text.replace("status: active", "status: closed")).closed_by == "time_cap"


def test_broken_yaml_raises_a_clear_error() -> None:
    with pytest.raises(SliceFormatError, match="line 3"):
        parse_core_md("---\nslice_id: x\nfocus: A: B\n---\n")


def test_very_long_content_parses_in_linear_time() -> None:
    """Megabytes of text, many `## Turn`-like fragments: finishes well inside the timeout."""
    big = ("word ## Turn not-a-header " * 20 + "\n") * 4000
    turns = [Turn(f"L{i}", "2026-08-11T11:15:00.000Z", "user", big if i == 0 else "x") for i in range(200)]
    text = render_core_md(_slice(turns=turns))
    assert len(text) > 2_000_000
    s = parse_core_md(text)
    assert len(s.turns) == 200 and s.turns[0].content == big
    assert count_turns(text) == 200
    assert len(parse_turns(text)) == 200


def test_cheap_readers() -> None:
    text = render_core_md(
        _slice(tags=["x"], turns=[Turn("a", "t", "user", "1"), Turn("a", "t", "agent", "2")])
    )
    assert parse_frontmatter(text)["tags"] == ["x"]
    assert parse_core_frontmatter(text).tags == ["x"]
    assert parse_core_frontmatter(text).turns == []
    assert count_turns(text) == 2
    assert count_turns("") == 0


def test_legacy_flat_files_parse_read_only() -> None:
    path = paths.legacy_flat_md("2025-03-02-0910")
    assert str(path) == "memory/episodic/slices/2025/03/02/0910.md"
    s = parse_legacy_slice(
        path, "---\nstatus: active\n---\n## Turn 1 — 2025-03-02T09:10:00.000Z (user)\n\nhi\n"
    )
    assert s.slice_id == "2025-03-02-0910" and s.turns[0].content == "hi"
    with pytest.raises(InvalidInput):
        parse_legacy_slice(paths.core_md("2025-03-02-0910"), "")


@pytest.mark.parametrize(
    "turn",
    [
        Turn("a b", "t", "user", "x"),
        Turn("a", "", "user", "x"),
        Turn("a", "t", "the agent", "x"),
        Turn("", "t", "user", ""),
    ],
)
def test_turns_that_would_not_read_back_are_refused(turn: Turn) -> None:
    with pytest.raises(InvalidInput, match="Cannot write turn header"):
        render_core_md(_slice(turns=[turn]))


def test_backfill_keeps_order_and_rescues_comments() -> None:
    from core.memory.slice.core_edits import backfill_rewrite

    text = "---\nslice_id: 2026-08-11-1115 # id\nstatus: closed\nfocus: ''\n---\n## Turn a — t (user)\n\nhi\n"
    out, moved = backfill_rewrite(text, "A focus", "  ", "2026-08-12T00:00:00.000Z")
    assert (
        out
        == "---\nslice_id: 2026-08-11-1115\nstatus: closed\nfocus: A focus\n---\n## Turn a — t (user)\n\nhi\n"
    )
    assert moved is not None and "# id" in moved
    assert backfill_rewrite(out, "", "", "now") == (out, None)
