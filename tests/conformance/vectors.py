"""Vector cases with a checked shape, so every case of every section runs and a strange one fails by name.

A test declares, per section, the case shapes it knows (`Shape`: required and optional keys).
`VectorFile.cases(section, *shapes)` turns every case the file holds into one pytest parameter:
a list of cases, a single case object, or a group (`{<shared fields>, "cases": [...]}`). A case
that fits no shape, a missing section or a missing file becomes a parameter that fails with the
file, section and case named (tests/conformance/conftest.py) — collection of the file never
breaks and nothing is skipped. `test_vector_coverage.py` fails for any section no test reads.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import vectors_dir

# Vector files the measured set has but the vendored copy (tests/data/vectors) does not: their
# tests run in full against `$PREVIOUSLY_VECTORS_DIR` holding the whole set. Without the file a
# test of one is an expected failure that names the file (strict: it must fail), never a skip
# and never a pass; any other missing file fails outright.
HELD_BACK = frozenset({"card_session.json", "system_prompt.json", "tool_outputs.json"})

# Keys that only describe a case; any shape accepts them.
DESCRIPTIVE = frozenset({"name", "description", "note", "notes", "comment"})


@dataclass(frozen=True)
class Shape:
    """One kind of case: the keys it must have and the keys it may have (`path_*`: any such key)."""

    kind: str
    required: frozenset[str]
    optional: frozenset[str] = frozenset()

    def fits(self, data: Any) -> bool:
        if not isinstance(data, Mapping):
            return self.kind == TEXT.kind
        keys = set(data)
        allowed = self.required | self.optional | DESCRIPTIVE
        prefixes = tuple(k[:-1] for k in self.optional if k.endswith("*"))
        return self.required <= keys and all(
            k in allowed or (prefixes and k.startswith(prefixes)) for k in keys
        )

    def describe(self) -> str:
        if self is TEXT or self.kind == TEXT.kind:
            return f"{self.kind}: a plain value"
        opt = f" (optional: {', '.join(sorted(self.optional))})" if self.optional else ""
        return f"{self.kind}: {{{', '.join(sorted(self.required))}}}{opt}"


def shape(kind: str, required: str, optional: str = "") -> Shape:
    """A Shape from space-separated key lists."""
    return Shape(kind, frozenset(required.split()), frozenset(optional.split()))


# A section whose value is itself the case (a string, a number, a list of values).
TEXT = Shape("value", frozenset())


class Case(Mapping[str, Any]):
    """One vector case; reading a key it lacks fails the test naming the file, section and case."""

    def __init__(
        self, where: str, data: Any, kind: str | None = None, group: Mapping[str, Any] | None = None
    ):
        self.where = where
        self.data = data
        self.kind = kind
        self.group: Mapping[str, Any] = group or {}
        self.problem: str | None = None

    def __getitem__(self, key: str) -> Any:
        if not isinstance(self.data, Mapping) or key not in self.data:
            have = sorted(self.data) if isinstance(self.data, Mapping) else type(self.data).__name__
            pytest.fail(f"{self.where}: the case has no {key!r} (it has {have})", pytrace=False)
        return self.data[key]

    def __contains__(self, key: object) -> bool:
        return isinstance(self.data, Mapping) and key in self.data

    def get(self, key: str, default: Any = None) -> Any:
        return self.data.get(key, default) if isinstance(self.data, Mapping) else default

    def __iter__(self) -> Iterator[str]:
        return iter(self.data) if isinstance(self.data, Mapping) else iter(())

    def __len__(self) -> int:
        return len(self.data) if isinstance(self.data, Mapping) else 0

    def shared(self, key: str) -> Any:
        """A field of the enclosing group (e.g. the `raw` every apply_range case selects from)."""
        if key not in self.group:
            pytest.fail(
                f"{self.where}: the group holds no {key!r} (it has {sorted(self.group)})", pytrace=False
            )
        return self.group[key]

    def __repr__(self) -> str:
        return f"Case({self.where})"


def failing(where: str, problem: str) -> Case:
    case = Case(where, None)
    case.problem = f"{where}: {problem}"
    return case


class VectorFile:
    """One vector file, loaded once per run (`vectors(name)`); remembers which sections tests read."""

    def __init__(self, name: str, root: Path | None = None):
        self.name = name
        self.read: set[str] = {"description"}
        self.data, self.problem = _load(root or vectors_dir(), name)

    def uses(self, *sections: str) -> VectorFile:
        """Declare, at import, sections a test reads only inside its body (for the coverage test)."""
        self.read.update(s.split(".")[0] for s in sections)
        return self

    def section(self, path: str) -> Any:
        """The value at a dotted section path, for use inside a test (fails by name when absent)."""
        self.read.add(path.split(".")[0])
        value, problem = self._resolve(path)
        if problem:
            pytest.fail(problem, pytrace=False)
        return value

    def _missing(self, where: str, problem: str, id: str) -> Any:
        """The parameter standing for a section that is not there (see HELD_BACK)."""
        marks = ()
        if self.name in HELD_BACK and self.problem and self.problem.startswith("vector file missing"):
            marks = (pytest.mark.xfail(strict=True, reason=f"{self.name} is not vendored: {problem}"),)
        return pytest.param(failing(where, problem), id=id, marks=marks)

    def cases(self, path: str, *shapes: Shape, group: str = "cases") -> list[Any]:
        """Every case under a dotted section path, one pytest parameter each."""
        self.read.add(path.split(".")[0])
        value, problem = self._resolve(path)
        if problem:
            return [self._missing(f"{self.name} → {path}", problem, "missing")]
        items = self._items(path, value, group)
        return [
            pytest.param(self._case(where, data, grp, shapes), id=_id(i, data))
            for i, (where, data, grp) in enumerate(items)
        ]

    def value(self, path: str) -> list[Any]:
        """A section that is one value as a whole (a string, a key list), as one pytest parameter."""
        self.read.add(path.split(".")[0])
        value, problem = self._resolve(path)
        where = f"{self.name} → {path}"
        if problem:
            return [self._missing(where, problem, path)]
        return [pytest.param(Case(where, value, TEXT.kind), id=path)]

    def _resolve(self, path: str) -> tuple[Any, str | None]:
        if self.problem:
            return None, self.problem
        value: Any = self.data
        for part in path.split("."):
            if not isinstance(value, Mapping) or part not in value:
                return None, f"{self.name}: no section {path!r}"
            value = value[part]
        return value, None

    def _items(self, path: str, value: Any, group: str) -> list[tuple[str, Any, Mapping[str, Any]]]:
        if isinstance(value, Mapping) and isinstance(value.get(group), list):
            shared = {k: v for k, v in value.items() if k != group}
            return [(f"{self.name} → {path}.{group}[{i}]", c, shared) for i, c in enumerate(value[group])]
        if (
            isinstance(value, list)
            and value
            and all(isinstance(v, Mapping) and isinstance(v.get(group), list) for v in value)
        ):
            return [
                (f"{self.name} → {path}[{g}].{group}[{i}]", c, {k: v for k, v in grp.items() if k != group})
                for g, grp in enumerate(value)
                for i, c in enumerate(grp[group])
            ]
        if isinstance(value, list):
            return [(f"{self.name} → {path}[{i}]", c, {}) for i, c in enumerate(value)]
        return [(f"{self.name} → {path}", value, {})]

    @staticmethod
    def _case(where: str, data: Any, grp: Mapping[str, Any], shapes: tuple[Shape, ...]) -> Case:
        if isinstance(data, Mapping) and isinstance(data.get("name"), str):
            where = f"{where} ({data['name']!r})"
        for s in shapes:
            if s.fits(data):
                return Case(where, data, s.kind, grp)
        keys = sorted(data) if isinstance(data, Mapping) else type(data).__name__
        known = "; ".join(s.describe() for s in shapes)
        return failing(where, f"a case shape this test does not know: {keys}. Known shapes: {known}")


_OPEN: dict[str, VectorFile] = {}


def vectors(name: str) -> VectorFile:
    """The one VectorFile for a file name, shared by every test module that reads it."""
    if name not in _OPEN:
        _OPEN[name] = VectorFile(name)
    return _OPEN[name]


def opened() -> dict[str, VectorFile]:
    """The vector files the collected tests have opened."""
    return dict(_OPEN)


def _load(root: Path, name: str) -> tuple[dict[str, Any], str | None]:
    path = root / name
    if not path.is_file():
        return {}, f"vector file missing: {path} (set PREVIOUSLY_VECTORS_DIR)"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        return {}, f"{name} is not JSON: {exc}"
    if not isinstance(data, dict):
        return {}, f"{name} holds a {type(data).__name__}, expected an object of sections"
    return data, None


def _id(index: int, data: Any) -> str:
    name = data.get("name") if isinstance(data, Mapping) else None
    label = f"{index}-{name}" if isinstance(name, str) and name else str(index)
    return label[:60]
