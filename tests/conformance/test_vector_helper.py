"""The vector-case helper itself: every case runs, and a strange one fails naming where it is."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from _pytest.outcomes import Failed

from tests.conformance.vectors import TEXT, Case, VectorFile, shape

pytestmark = pytest.mark.unit
IO = shape("io", "input output", "opts")


def _file(tmp_path: Path, data: Any, name: str = "x.json") -> VectorFile:
    (tmp_path / name).write_text(json.dumps(data), encoding="utf-8")
    return VectorFile(name, root=tmp_path)


def _cases(vf: VectorFile, section: str, *shapes: Any) -> list[Case]:
    return [p.values[0] for p in vf.cases(section, *shapes)]


def test_every_case_of_a_list_and_its_kind(tmp_path: Path) -> None:
    vf = _file(
        tmp_path, {"s": [{"input": 1, "output": 2}, {"input": 3, "output": 4, "opts": {}, "name": "n"}]}
    )
    cases = _cases(vf, "s", IO)
    assert [c["input"] for c in cases] == [1, 3] and {c.kind for c in cases} == {"io"}
    assert [c.problem for c in cases] == [None, None]
    assert [p.id for p in vf.cases("s", IO)] == ["0", "1-n"]


def test_an_unknown_shape_fails_that_case_only_naming_file_section_and_case(tmp_path: Path) -> None:
    vf = _file(
        tmp_path, {"s": [{"input": 1, "output": 2}, {"input": 1, "throws": "boom", "name": "bad one"}]}
    )
    good, bad = _cases(vf, "s", IO)
    assert good.problem is None
    assert bad.problem is not None
    assert "x.json → s[1] ('bad one')" in bad.problem and "['input', 'name', 'throws']" in bad.problem
    assert "io: {input, output} (optional: opts)" in bad.problem


def test_a_missing_key_fails_by_name_and_get_does_not(tmp_path: Path) -> None:
    case = _cases(_file(tmp_path, {"s": [{"input": 1, "output": 2}]}), "s", IO)[0]
    with pytest.raises(Failed, match=r"x.json → s\[0\]: the case has no 'error'"):
        case["error"]
    assert case.get("error", "default") == "default" and "error" not in case and "input" in case


def test_one_object_and_groups_are_cases_too(tmp_path: Path) -> None:
    vf = _file(
        tmp_path,
        {
            "one": {"input": 1, "output": 2},
            "group": {"raw": "R", "cases": [{"input": 1, "output": 2}, {"input": 3, "output": 4}]},
            "groups": [
                {"raw": "A", "cases": [{"input": 1, "output": 2}]},
                {"raw": "B", "cases": [{"input": 5, "output": 6}]},
            ],
        },
    )
    assert [c["input"] for c in _cases(vf, "one", IO)] == [1]
    assert [(c.shared("raw"), c["input"]) for c in _cases(vf, "group", IO)] == [("R", 1), ("R", 3)]
    assert [(c.shared("raw"), c.where) for c in _cases(vf, "groups", IO)] == [
        ("A", "x.json → groups[0].cases[0]"),
        ("B", "x.json → groups[1].cases[0]"),
    ]


def test_missing_sections_and_files_fail_instead_of_breaking_collection(tmp_path: Path) -> None:
    vf = _file(tmp_path, {"s": []})
    (missing,) = _cases(vf, "nope", IO)
    assert missing.problem == "x.json → nope: x.json: no section 'nope'"
    (gone,) = _cases(VectorFile("absent.json", root=tmp_path), "s", IO)
    assert gone.problem is not None and "vector file missing" in gone.problem
    (tmp_path / "broken.json").write_text("{oops", encoding="utf-8")
    (broken,) = _cases(VectorFile("broken.json", root=tmp_path), "s", IO)
    assert broken.problem is not None and "broken.json is not JSON" in broken.problem


def test_whole_values_and_wildcard_keys(tmp_path: Path) -> None:
    vf = _file(tmp_path, {"order": ["a", "b"], "m": {"entry": 1, "path_2026_8": "p", "path_2027_1": "q"}})
    (order,) = [p.values[0] for p in vf.value("order")]
    assert order.data == ["a", "b"] and order.kind == TEXT.kind
    (m,) = _cases(vf, "m", shape("m", "entry", "path_*"))
    assert m.problem is None
    (strict,) = _cases(vf, "m", shape("m", "entry", "path_2026_8"))
    assert strict.problem is not None and "path_2027_1" in strict.problem
    assert vf.read == {"description", "order", "m"}


def test_the_original_framing_differs_only_by_the_kept_blank_end() -> None:
    from core.memory.slice.model import Slice, render_core_md
    from tests.conformance.slice_shapes import as_the_original_frames_it

    s = Slice(slice_id="2026-01-01-0000", start="2026-01-01T00:00:00.000Z", timezone="UTC")
    s.status, s.end, s.closed_by, s.evolution_summary = (
        "closed",
        "2026-01-01T00:30:00.000Z",
        "time_cap",
        "x\n\n",
    )
    ours = render_core_md(s)
    assert ours.endswith("evolution_summary: |+\n  x\n\n---\n\n")
    assert as_the_original_frames_it(ours).endswith("evolution_summary: |+\n  x\n---\n\n")
    s.evolution_summary = "x"
    assert as_the_original_frames_it(render_core_md(s)) == render_core_md(s)
