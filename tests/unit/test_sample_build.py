"""The sample builder: the committed files are what the source renders to, and bad source is refused."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from core.memory import paths
from core.memory.catalog.strand_shards import shard_of
from core.memory.slice.model import parse_core_md, render_core_md
from scripts.samplekit import build as sample_build
from scripts.samplekit.card_replay import replay_card
from scripts.samplekit.source import SourceError, load_slice
from scripts.samplekit.timing import time_all, turn_id
from tests.conftest import SAMPLE_ROOT

pytestmark = pytest.mark.unit

SETTINGS = "timezone: Europe/London\ngenerated_at: '2026-01-03T03:00:00.000Z'\nlocale: en\n"
FIRST = """\
id: 2026-01-01-1000
focus: Planning a garden.
summary: Nell wants a vegetable bed.
tags: [garden]
turns:
  - user: I want to grow tomatoes.
  - agent: Then start with a sunny bed.
"""
SECOND = """\
id: 2026-01-02-1000
focus: Seeds.
tags: [garden]
turns:
  - user: Which seeds?
  - agent: Cherry tomatoes are forgiving.
"""


def _source(tmp_path: Path, *, settings: str = SETTINGS, evolution: str = "") -> Path:
    """A two-slice source; `evolution` (YAML, indented under the first slice) changes the card."""
    root = tmp_path / "source"
    (root / "slices").mkdir(parents=True)
    (root / "sample.yaml").write_text(settings, encoding="utf-8")
    first = FIRST + (f"evolution:\n{textwrap.indent(textwrap.dedent(evolution), '  ')}" if evolution else "")
    (root / "slices" / "2026-01-01-1000.yaml").write_text(first, encoding="utf-8")
    (root / "slices" / "2026-01-02-1000.yaml").write_text(SECOND, encoding="utf-8")
    return root


def _replay(tmp_path: Path, evolution: str) -> str:
    root = _source(tmp_path, evolution=evolution)
    slices = [load_slice(p) for p in sorted((root / "slices").glob("*.yaml"))]
    return replay_card(time_all(slices), "Europe/London").live


# ---------------------------------------------------------------- the committed sample


@pytest.mark.parametrize(("source", "out"), sample_build.samples(), ids=lambda p: p.parent.name)
def test_committed_sample_matches_its_source(source: Path, out: Path) -> None:
    files = sample_build.build(source)
    assert sample_build.differences(files, out) == [], "run `python scripts/build_sample.py`"


def test_every_persona_is_built() -> None:
    outs = [out for _, out in sample_build.samples()]
    assert outs == [SAMPLE_ROOT, SAMPLE_ROOT / "personas" / "jia", SAMPLE_ROOT / "personas" / "xiaowen"]


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


def test_check_command_exits_1_when_stale_and_0_when_current(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sample_build, "OUTPUT", tmp_path)
    assert sample_build.main([]) == 0
    assert sample_build.main(["--check"]) == 0
    (tmp_path / "memory/episodic/timeline.md").write_text("stale\n", encoding="utf-8")
    assert sample_build.main(["--check"]) == 1
    assert sample_build.main([]) == 0 and sample_build.main(["--check"]) == 0
    (tmp_path / "personas/jia/memory/episodic/timeline.md").write_text("stale\n", encoding="utf-8")
    assert sample_build.main(["--check"]) == 1  # a further persona is checked too


def test_every_core_md_round_trips_through_the_product() -> None:
    cores = sorted((SAMPLE_ROOT / "memory/episodic/slices").glob("*/*/*/*/timeline/core.md"))
    assert len(cores) >= 40
    for path in cores:
        text = path.read_text(encoding="utf-8")
        assert render_core_md(parse_core_md(text)) == text, path


def test_turn_ids_are_six_base64url_chars() -> None:
    assert len(turn_id("2026-11-26-2010", 0)) == 6
    assert turn_id("2026-11-26-2010", 0) != turn_id("2026-11-26-2010", 1)


# ---------------------------------------------------------------- a small source, end to end


STRAND_FILES = [paths.strand_shard(shard_of("garden")).value, paths.STRANDS_MENU.value]  # its one tag


def test_a_small_source_builds_every_file(tmp_path: Path) -> None:
    files = sample_build.build(
        _source(tmp_path, evolution="summary: Met Nell.\nops:\n  - add_now: Growing tomatoes\n")
    )
    assert sorted(files) == [
        "memory/episodic/current-previously.md",
        "memory/episodic/slices/2026/01/01/1000/previously.md",
        "memory/episodic/slices/2026/01/01/1000/timeline/core.md",
        "memory/episodic/slices/2026/01/02/1000/previously.md",
        "memory/episodic/slices/2026/01/02/1000/timeline/core.md",
        "memory/episodic/slices/2026/01/_index.json",
        *STRAND_FILES,
        "memory/episodic/timeline.md",
        "memory/episodic/timeline/catalog.json",
        "memory/episodic/timeline/index/2026-01.json",
        "memory/episodic/timeline/pending.json",
        "memory/user/config.json",
    ]
    second = parse_core_md(files["memory/episodic/slices/2026/01/02/1000/timeline/core.md"])
    assert second.evolution_summary == "Met Nell." and second.status == "closed"
    assert (
        "- Growing tomatoes — refs: [2026/01/01/1000] | since: 2026-01-01"
        in files["memory/episodic/current-previously.md"]
    )
    assert "_Generated: 2026-01-03T03:00:00.000Z_" in files["memory/episodic/timeline.md"]


def test_an_unknown_locale_is_refused(tmp_path: Path) -> None:
    with pytest.raises(SourceError, match="locale must be one of en, zh"):
        sample_build.build(_source(tmp_path, settings=SETTINGS.replace("locale: en", "locale: fr")))


def test_an_unquoted_generated_at_is_refused(tmp_path: Path) -> None:
    settings = SETTINGS.replace("'2026-01-03T03:00:00.000Z'", "2026-01-03T03:00:00Z")
    with pytest.raises(SourceError, match="generated_at"):
        sample_build.build(_source(tmp_path, settings=settings))


# ---------------------------------------------------------------- source validation


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


def test_a_tool_call_with_a_bad_status_is_refused(tmp_path: Path) -> None:
    body = FIRST + "cognition:\n  - tools:\n      - recall: {query: x, status: maybe}\n"
    with pytest.raises(SourceError, match="status must be ok, error or"):
        load_slice(_write(tmp_path, "2026-01-01-1000", body))


# ---------------------------------------------------------------- the card replay (CardSession rules)


def test_the_card_tools_cap_now_at_five(tmp_path: Path) -> None:
    ops = "".join(f"  - add_now: item {i}\n" for i in range(6))
    with pytest.raises(SourceError, match="Now already holds 5"):
        _replay(tmp_path, f"summary: Too much.\nops:\n{ops}")


def test_new_now_items_go_first(tmp_path: Path) -> None:
    card = _replay(tmp_path, "summary: Two.\nops:\n  - add_now: older\n  - add_now: newer\n")
    assert card.index("- newer") < card.index("- older")


def test_a_card_cannot_cite_a_later_slice(tmp_path: Path) -> None:
    evolution = "summary: Early.\nops:\n  - add_anchor: {text: Seeds, refs: ['2026-01-02-1000']}\n"
    with pytest.raises(SourceError, match="cite only slices up to"):
        _replay(tmp_path, evolution)


def test_an_inline_ref_to_a_later_slice_is_refused(tmp_path: Path) -> None:
    evolution = "summary: Early.\nops:\n  - add_self_model: 'Ask about seeds — refs: [2026/01/02/1000]'\n"
    with pytest.raises(SourceError, match="not a slice that exists by then"):
        _replay(tmp_path, evolution)


def test_an_evolution_that_changes_nothing_is_refused(tmp_path: Path) -> None:
    evolution = "summary: Nothing.\nops:\n  - add_now: a\n  - remove_now: a\n"
    with pytest.raises(SourceError, match="changes nothing"):
        _replay(tmp_path, evolution)


def test_an_unknown_card_operation_is_refused(tmp_path: Path) -> None:
    with pytest.raises(SourceError, match="unknown card operation 'add_later'"):
        _replay(tmp_path, "summary: x\nops:\n  - add_later: soon\n")


def test_the_newest_slice_cannot_evolve_the_card(tmp_path: Path) -> None:
    root = _source(tmp_path)
    newest = root / "slices" / "2026-01-02-1000.yaml"
    newest.write_text(SECOND + "evolution:\n  summary: x\n  ops:\n    - add_now: y\n", encoding="utf-8")
    with pytest.raises(SourceError, match="newest slice cannot evolve"):
        sample_build.build(root)
