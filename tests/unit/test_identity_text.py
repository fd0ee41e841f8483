"""The identity files are compiled into core/agent/identity_text.py, and the module is current."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from core.agent import identity_text
from scripts import build_identity
from tests.conftest import REPO_ROOT

pytestmark = pytest.mark.unit


def test_generated_module_is_current() -> None:
    current = (REPO_ROOT / build_identity.TARGET).read_text(encoding="utf-8")
    assert current == build_identity.render(), "run `python scripts/build_identity.py`"
    assert build_identity.main(["--check"]) == 0


def test_constants_are_the_trimmed_bodies() -> None:
    for key, rel in build_identity.SOURCES.items():
        parsed = build_identity.parse((REPO_ROOT / rel).read_text(encoding="utf-8"), rel)
        value = getattr(identity_text, key)
        assert value == parsed.body and value == value.strip()
        assert not value.startswith("---") and "name:" not in value.split("\n", 1)[0]
    assert identity_text.AGENT_NAME == "Previously"


def test_directives_cover_the_standing_rules() -> None:
    text = identity_text.DIRECTIVES.lower()
    for idea in ("utc", "local", "pointer", "readslice", "recall", "invent", "hypothes", "brief"):
        assert idea in text, idea


def _tree(tmp: Path, soul: str, directives: str = "---\nname: X\n---\nRules.") -> Path:
    (tmp / "identity").mkdir()
    (tmp / "identity/SOUL.md").write_text(soul, encoding="utf-8")
    (tmp / "identity/DIRECTIVES.md").write_text(directives, encoding="utf-8")
    return tmp


def test_empty_soul_falls_back_to_a_sentence_with_the_name(tmp_path: Path) -> None:
    text = build_identity.render(_tree(tmp_path, "---\nname: Echo\n---\n\n  \n"))
    namespace: dict[str, object] = {}
    exec(compile(text, "identity_text.py", "exec"), namespace)
    assert namespace["AGENT_NAME"] == "Echo"
    assert str(namespace["SOUL"]).startswith("You are Echo,")
    assert namespace["DIRECTIVES"] == "Rules."


@pytest.mark.parametrize(
    ("soul", "problem"),
    [
        ("No frontmatter here.", "must start with"),
        ("---\nname: X\nBody without a closing fence", "not closed"),
        ("---\nkind: soul\n---\nBody", "needs a `name`"),
    ],
)
def test_bad_identity_files_are_refused(tmp_path: Path, soul: str, problem: str) -> None:
    with pytest.raises(ValueError, match=problem):
        build_identity.render(_tree(tmp_path, soul))


def test_quotes_and_backslashes_survive_the_literal() -> None:
    for text in ['ends with "', 'has """ inside', "a \\ backslash", 'two ""']:
        value = ast.literal_eval(build_identity._literal(text))
        assert value == text


def test_nothing_in_core_reads_the_identity_folder() -> None:
    for path in (REPO_ROOT / "core").rglob("*.py"):
        if path.name == "identity_text.py":
            continue
        source = path.read_text(encoding="utf-8")
        assert "SOUL.md" not in source and "DIRECTIVES.md" not in source, path
