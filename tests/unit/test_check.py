"""`check` over bad memories: every problem named with its file (and line where there is one)."""

from __future__ import annotations

import json

import pytest

from core.actions.check import check_core_md, check_memory
from core.clock import parse_iso
from core.memory import paths
from core.storage.memory import InMemoryStorage
from tests.unit.test_weave import _core

pytestmark = pytest.mark.unit

NOW = parse_iso("2026-08-11T12:00:00.000Z")
GOOD = "2026-08-01-0900"


def _check(files: dict[str, str]) -> dict:
    storage = InMemoryStorage.from_texts({str(paths.core_md(GOOD)): _core(GOOD, "fine"), **files})
    before = dict(storage.files)
    report = check_memory(storage.snapshot(), NOW)
    assert storage.files == before and storage.commits == []  # read-only
    return report.as_dict()


def _only(report: dict, kind: str) -> list[tuple[str, int | None, str]]:
    return [(f["path"], f["line"], f["message"]) for f in report[kind]]


def test_a_healthy_memory_is_ok() -> None:
    report = _check({})
    assert report["ok"] and report["errors"] == [] and report["warnings"] == []
    assert (report["files"], report["slices"]) == (1, 1)


def test_malformed_yaml_is_an_error_with_its_line() -> None:
    bad = str(paths.core_md("2026-08-02-0900"))
    report = _check({bad: "---\nslice_id: 2026-08-02-0900\nfocus: A: B\n---\n"})
    [(path, line, message)] = _only(report, "errors")
    assert (path, line) == (bad, 3) and "does not parse" in message
    assert not report["ok"]


def test_junk_lines_in_core_md_are_warned_as_appendix_material() -> None:
    text = _core(GOOD, "fine").replace("---\n## Turn", "---\nstray note before the turns\n## Turn")
    report = _check({str(paths.core_md(GOOD)): text})
    assert report["ok"]
    [(_, line, message)] = _only(report, "warnings")
    assert line == 7 and "appendix.md" in message and "before the first turn" in message


def test_badly_named_folder_and_folder_without_core_md() -> None:
    report = _check(
        {
            "memory/episodic/slices/2026/08/01/9am/timeline/core.md": _core(GOOD),
            str(paths.agent_md("2026-08-03-0900")): "cognition only",
        }
    )
    errors = _only(report, "errors")
    assert any("9am" in p and "not in a slice folder" in m for p, _, m in errors)
    assert any(p.endswith("2026/08/03/0900") and "without timeline/core.md" in m for p, _, m in errors)


def test_oversized_file_is_an_error() -> None:
    big = str(paths.agent_md(GOOD))
    report = _check({big: "x" * 2_000_000})
    [(path, _, message)] = _only(report, "errors")
    assert path == big and "too large" in message and "1000000" in message


def test_broken_json_files_and_out_of_range_config() -> None:
    report = _check(
        {
            str(paths.STRANDS_JSON): '{\n  "a": [\n}',
            str(paths.CATALOG_JSON): "[]",
            str(paths.CONFIG_JSON): json.dumps({"slicing": {"maxSliceMinutes": 500}}, indent=2),
            "memory/episodic/slices/2026/08/_index.json": "{oops",
        }
    )
    errors = {p: (line, m) for p, line, m in _only(report, "errors")}
    assert errors[str(paths.STRANDS_JSON)][0] == 3
    assert "slicing.maxSliceMinutes: must be from 5 to 120 (got 500)" in errors[str(paths.CONFIG_JSON)][1]
    assert "weave" in errors[str(paths.CATALOG_JSON)][1]
    assert "memory/episodic/slices/2026/08/_index.json" in errors


def test_phantoms_in_catalog_and_strands_are_warnings() -> None:
    index = {
        "_schema": 1,
        "updated_at": "x",
        "slice_count": 1,
        "needs_marking": 0,
        "slices": [{"id": "2026-07-01-0000"}],
    }
    report = _check(
        {
            str(paths.CATALOG_JSON): json.dumps(index),
            str(paths.STRANDS_JSON): json.dumps({"a": ["2026/08/01/0900", "2020/01/01/0000"]}),
        }
    )
    assert report["ok"]
    messages = [m for _, _, m in _only(report, "warnings")]
    assert any("1 entries have no slice (first: 2026-07-01-0000)" in m for m in messages)
    assert any("1 slices are not catalogued (first: 2026-08-01-0900)" in m for m in messages)
    assert any("1 slice paths point at no slice folder (first: 2020/01/01/0000)" in m for m in messages)


def test_odd_frontmatter_values_and_legacy_files_are_warnings() -> None:
    odd = "---\nslice_id: 2026-08-02-0800\nstatus: paused\nstart: soon\n---\n"
    report = _check(
        {
            str(paths.core_md("2026-08-02-0900")): odd,
            "memory/episodic/slices/2026/08/02/0700.md": _core("2026-08-02-0700"),
            str(paths.CARD): "just some notes\n",
        }
    )
    assert report["ok"]
    messages = " | ".join(m for _, _, m in _only(report, "warnings"))
    for needle in (
        "differs from its folder",
        "neither active nor closed",
        "not an ISO time",
        "legacy flat",
        "user card",
    ):
        assert needle in messages


def test_check_flags_header_shaped_lines_an_unescaped_file_cannot_tell_apart() -> None:
    head = "---\nslice_id: 2026-08-11-1115\nstatus: active\nstart: '2026-08-11T11:15:00.000Z'\n---\n"
    text = head + (
        "## Turn a1 — 2026-08-11T11:15:00.000Z (user)\n\nLook:\n\n"
        "## Turn zz — 2026-01-01T00:00:00.000Z (agent)\n\nnot a turn\n\n"
        "## Turn a1 — 2026-08-11T11:15:09.000Z (agent)\n\nreply\n\n"
        "## Turn a1 — 2026-08-11T11:15:10.000Z (agent)\n\nsecond reply ## Turn cut here\n"
    )
    found = check_core_md("core.md", text, "2026-08-11-1115")
    messages = [(f.line, f.message.split(":")[0]) for f in found]
    assert (10, "turn zz is older than the turn before it") in messages
    assert (18, "a second agent turn a1") in messages
    assert any("inside a turn" in f.message and f.line == 20 for f in found)


ODD_MINUTES = [("2026-02-30-0900", False), ("2026-13-01-0900", False), ("2026-08-01-2460", False)]


@pytest.mark.parametrize(("sid", "real"), [*ODD_MINUTES, ("2028-02-29-2359", True)])
def test_a_folder_that_names_no_real_minute_is_a_warning(sid: str, real: bool) -> None:
    report = _check({str(paths.core_md(sid)): _core(sid, "odd")})
    warned = [m for p, _, m in _only(report, "warnings") if p == paths.slice_dir(sid).value]
    assert warned == ([] if real else ["the folder name is not a real UTC date and time"])


def _turns(*turns: tuple[str, str, str]) -> str:
    head = "---\nslice_id: 2026-08-11-1115\nstatus: active\nstart: '2026-08-11T09:00:00.000Z'\n---\n"
    return head + "".join(
        f"## Turn {tid} — {when} ({role})\n\ntext of {tid} {role}\n\n" for tid, when, role in turns
    )


def test_check_does_not_call_interleaved_writers_or_imported_times_damage() -> None:
    interleaved = _turns(
        ("a1", "2026-08-11T11:15:00.000Z", "user"),
        ("b2", "2026-08-11T11:15:05.000Z", "user"),
        ("a1", "2026-08-11T11:15:03.000Z", "agent"),
        ("b2", "2026-08-11T11:15:09.000Z", "agent"),
    )
    imported = _turns(
        ("c3", "2026-08-11T10:00:00.000Z", "user"),
        ("c3", "2026-08-11T10:01:00.000Z", "agent"),
        ("d4", "2026-08-11T09:00:00.000Z", "user"),
        ("d4", "2026-08-11T09:01:00.000Z", "agent"),
    )
    for text in (interleaved, imported):
        assert check_core_md("core.md", text, "2026-08-11-1115") == []


def test_check_never_advises_a_hand_edit() -> None:
    text = _turns(
        ("a1", "2026-08-11T11:15:00.000Z", "user"),
        ("zz", "2026-01-01T00:00:00.000Z", "agent"),
        ("a1", "2026-08-11T11:15:09.000Z", "agent"),
    )
    found = check_core_md("core.md", text, "2026-08-11-1115")
    assert found and all("by hand" not in f.message and "nothing is lost" in f.message for f in found)
