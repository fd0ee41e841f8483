"""The sample builder: the committed files are what the source renders to, and bad source is refused."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from scripts.samplekit import build as sample_build
from scripts.samplekit.card import Card, CardError, apply_op
from scripts.samplekit.formats import TurnOut, render_core
from scripts.samplekit.source import SourceError, load_slice
from tests.conftest import SAMPLE_ROOT

pytestmark = pytest.mark.unit


def test_committed_sample_matches_its_source() -> None:
    files = sample_build.build()
    assert sample_build.differences(files) == [], "run `python scripts/build_sample.py`"


def test_check_mode_reports_a_stale_file(tmp_path: Path) -> None:
    files = sample_build.build()
    sample_build.write(files, tmp_path)
    assert sample_build.differences(files, tmp_path) == []
    card = tmp_path / "memory/episodic/current-previously.md"
    card.write_text(card.read_text(encoding="utf-8") + "edited\n", encoding="utf-8")
    (tmp_path / "memory/episodic/stray.md").write_text("x", encoding="utf-8")
    assert sample_build.differences(files, tmp_path) == [
        "memory/episodic/current-previously.md",
        "memory/episodic/stray.md (not generated)",
    ]


def test_turn_ids_are_six_base64url_chars() -> None:
    assert len(sample_build.turn_id("2026-11-26-2010", 0)) == 6
    assert sample_build.turn_id("2026-11-26-2010", 0) != sample_build.turn_id("2026-11-26-2010", 1)


def _write(tmp_path: Path, name: str, body: str) -> Path:
    path = tmp_path / f"{name}.yaml"
    path.write_text(body, encoding="utf-8")
    return path


def test_turns_must_alternate(tmp_path: Path) -> None:
    path = _write(tmp_path, "2026-01-01-1000", "id: 2026-01-01-1000\nturns:\n  - agent: hi\n")
    with pytest.raises(SourceError, match="should be `user:`"):
        load_slice(path)


def test_summary_over_100_chars_is_refused(tmp_path: Path) -> None:
    body = "id: 2026-01-01-1000\nsummary: " + "x" * 101 + "\nturns:\n  - user: hi\n  - agent: hello\n"
    with pytest.raises(SourceError, match="summary is 101 chars"):
        load_slice(_write(tmp_path, "2026-01-01-1000", body))


def test_turn_content_cannot_fake_a_header(tmp_path: Path) -> None:
    body = "id: 2026-01-01-1000\nturns:\n  - user: 'see ## Turn abc'\n  - agent: ok\n"
    with pytest.raises(SourceError, match="header-shaped"):
        load_slice(_write(tmp_path, "2026-01-01-1000", body))


def test_card_caps_are_enforced() -> None:
    card = Card()
    for i in range(5):
        apply_op(card, {"add_now": f"item {i}"}, ["2026/01/01/1000"], "2026-01-01")
    assert card.now[0].text == "item 4", "new Now items go first"
    with pytest.raises(CardError, match="now already holds 5"):
        apply_op(card, {"add_now": "one more"}, ["2026/01/01/1000"], "2026-01-01")
    with pytest.raises(CardError, match="refs are required"):
        apply_op(card, {"add_anchor": "no evidence"}, [], "2026-01-01")


def _reparse(text: str) -> tuple[dict[str, Any], list[TurnOut]]:
    """Parse core.md the way the original does: YAML frontmatter, then the slice turn parser (§2.5)."""
    end = text.index("\n---\n", 3)
    fm = yaml.safe_load(text[4:end])
    body = text[end + 5 :].strip()
    heads = list(re.finditer(r"^## Turn (\S+) — (\S+) \((\w+)\)$", body, re.MULTILINE))
    turns = []
    for head in heads:
        rest = body[head.end() :]
        cut = rest.find("## Turn ")
        content = (rest if cut < 0 else rest[:cut]).strip()
        turns.append(TurnOut(head.group(1), head.group(2), head.group(3), content))
    return fm, turns


def test_every_core_md_round_trips_through_parse_and_render() -> None:
    cores = sorted((SAMPLE_ROOT / "memory/episodic/slices").glob("*/*/*/*/timeline/core.md"))
    assert len(cores) >= 40
    for path in cores:
        text = path.read_text(encoding="utf-8")
        fm, turns = _reparse(text)
        assert render_core(fm, turns) == text, path
