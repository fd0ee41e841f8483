"""Identifiers checked by a pattern refuse a trailing newline (`$` would accept "abc\\n")."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from core.errors import InvalidInput
from core.ids import DayKey, PictureName, RepoName, RunId, RunKey, RunName, TextId, TurnId
from core.memory import paths
from core.memory.slice import agent_parts, pictures
from core.storage import demo
from core.turn import runstore_fs
from functions.aws import runstore

PATTERNS: dict[str, tuple[re.Pattern[str], str]] = {
    "persona id": (demo.PERSONA_ID_RE, "jia"),
    "agent part path": (paths._AGENT_PART_RE, "timeline/agent-2.md"),
    "agent part name": (agent_parts._PART_RE, "agent-2.md"),
}


@pytest.mark.parametrize("what", sorted(PATTERNS))
def test_a_trailing_newline_is_not_part_of_an_identifier(what: str) -> None:
    pattern, good = PATTERNS[what]
    assert pattern.match(good)
    assert not pattern.match(good + "\n")


@pytest.mark.parametrize(
    ("kind", "good"),
    [
        (TurnId, "turn-1"),
        (RunId, "run1"),
        (RunName, "evolve-x"),
        (RunKey, "deadline"),
        (DayKey, "2026-01-02"),
        (RepoName, "me/memory"),
        (PictureName, "abc-1.png"),
    ],
)
def test_a_trailing_newline_is_not_part_of_a_typed_identifier(kind: type[TextId], good: str) -> None:
    assert kind.matches(good) and not kind.matches(good + "\n")
    assert PictureName.from_file("abc-1.png.b64\n") is None


def test_a_picture_path_with_a_trailing_newline_is_not_a_picture() -> None:
    assert pictures.is_picture("images/abc-1.png.b64")
    assert not pictures.is_picture("images/abc-1.png.b64\n")
    assert not pictures.is_picture("images/sub/abc-1.png.b64")


def test_the_run_stores_refuse_a_turn_id_with_a_newline(tmp_path) -> None:
    store = runstore_fs.FolderRunStore(tmp_path)
    with pytest.raises(InvalidInput):
        store.put("turn-1\n", "deadline", "x")
    with pytest.raises(InvalidInput):
        runstore.S3RunStore(None, "bucket").put("turn-1\n", "deadline", "x")
    assert list(tmp_path.iterdir()) == []


# --- No module outside core/ids.py and core/memory/paths.py spells an identifier's rule again.

ROOT = Path(__file__).resolve().parents[2]
OWNERS = {"core/ids.py", "core/memory/paths.py"}
EXAMPLES = ("kQ3x_A", "turn-1", "evolve-current", "2026-01-02", "me/memory", "abc-1.png")
EXAMPLES += ("abc-1.png.b64", "2026-01-02-0304", "2026/01/02/0304")
# Whole-string patterns that accept one of the examples but are not one of those identifiers.
NOT_IDS = {
    ("core/storage/demo.py", r"^[a-z][a-z0-9-]{0,31}\Z"): "a demo persona's id (the demo's own)",
    ("core/memory/formats/yaml_types.py", r"[0-9]{4}-[0-9]{2}-[0-9]{2}\Z"): "YAML 1.1's date resolver",
    ("functions/settings.py", r"^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(:\d{1,5})?$"): "a host name",
    ("infra/config.py", r"^[a-z][a-z0-9-]{0,20}$"): "a deployment's name",
}
_RE_CALLS = {"compile", "fullmatch", "match", "search"}


def _patterns(tree: ast.AST) -> list[str]:
    """Constant patterns given to `re.compile/fullmatch/match/search` or as a `pattern=` argument."""
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        on_re = isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "re"
        if on_re and node.args and isinstance(func, ast.Attribute) and func.attr in _RE_CALLS:
            found.append(node.args[0])
        found.extend(k.value for k in node.keywords if k.arg == "pattern")
    return [n.value for n in found if isinstance(n, ast.Constant) and isinstance(n.value, str)]


def _is_id_rule(pattern: str) -> bool:
    if not pattern.endswith(("$", r"\Z")):
        return False  # not a whole-string check
    try:
        compiled = re.compile(pattern)
    except re.error:
        return False
    return any(compiled.fullmatch(example) for example in EXAMPLES)


def test_no_module_outside_the_id_types_compiles_an_id_pattern() -> None:
    folders = ("core", "functions", "infra")
    sources = [ROOT / "app.py", *(p for d in folders for p in (ROOT / d).rglob("*.py"))]
    offenders, allowed = [], set()
    for path in sources:
        rel = path.relative_to(ROOT).as_posix()
        if rel in OWNERS:
            continue
        for pattern in _patterns(ast.parse(path.read_text(encoding="utf-8"))):
            if not _is_id_rule(pattern):
                continue
            if (rel, pattern) in NOT_IDS:
                allowed.add((rel, pattern))
            else:
                offenders.append(f"{rel}: {pattern}")
    assert offenders == [], "use the types of core/ids.py (or SliceId) instead of a pattern"
    assert allowed == set(NOT_IDS), "an allowed pattern is gone: drop it from NOT_IDS"


def test_the_tree_check_would_catch_a_second_turn_id_rule() -> None:
    turn, day = r"^[A-Za-z0-9_-]{1,64}\Z", r"^\d{4}-\d{2}-\d{2}$"
    tree = ast.parse(f"import re\nX = re.compile({turn!r})\nf(pattern={day!r})")
    assert [p for p in _patterns(tree) if _is_id_rule(p)] == [turn, day]
