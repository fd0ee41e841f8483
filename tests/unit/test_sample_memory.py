"""The bundled sample memory is well-formed, self-consistent and holds the fixtures the UI tests need.

These checks read the committed files directly (not through the builder), so they hold for any
way the sample is produced.
"""

from __future__ import annotations

import itertools
import json
import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from functools import cache
from pathlib import Path
from typing import Any

import pytest
import yaml

from core.memory.card.identity import parse_identity
from core.memory.card.model import overdue_horizon, parse_card, render_card
from core.memory.catalog.strand_shards import read_all_strands
from core.storage.local import LocalStorage
from tests.conftest import SAMPLE_ROOT

pytestmark = pytest.mark.unit

MEMORY = SAMPLE_ROOT / "memory"
EPISODIC = MEMORY / "episodic"
SLICES = EPISODIC / "slices"
KEY_ORDER = [
    "slice_id",
    "focus",
    "status",
    "start",
    "end",
    "timezone",
    "summary",
    "open_loops",
    "decisions",
    "tags",
    "related_slices",
    "loops",
    "emotional_tone",
    "closed_by",
    "evolution_summary",
]
REQUIRED = set(KEY_ORDER) - {"focus", "end", "summary", "emotional_tone", "closed_by", "evolution_summary"}
MONTHLY_KEYS = ["id", "focus", "summary", "tags", "status", "start", "open_loops", "decisions"]
HEADER_RE = re.compile(r"^## Turn (\S+) — (\S+) \((\w+)\)$")
TURN_ID_RE = re.compile(r"^[A-Za-z0-9_-]{6}$")
ISO_RE = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$")
REF_RE = re.compile(r"\[(\d{4}/\d{2}/\d{2}/\d{4})(?:-[A-Za-z0-9]+)?\]")
DEMO_TODAY = "2026-11-30"


@dataclass
class Turn:
    turn_id: str
    timestamp: datetime
    role: str


@dataclass
class SampleSlice:
    rel: str
    text: str
    keys: list[str]
    fm: dict[str, Any]
    turns: list[Turn]

    @property
    def slice_id(self) -> str:
        return self.rel.replace("/", "-")


def _instant(text: str) -> datetime:
    assert ISO_RE.match(text), f"not a UTC ISO instant with milliseconds: {text!r}"
    return datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=UTC)


def _parse(rel: str, text: str) -> SampleSlice:
    assert text.startswith("---\n"), f"{rel}: core.md must open with ---"
    end = text.index("\n---\n", 3)
    raw = yaml.safe_load(text[4:end])
    assert isinstance(raw, dict), f"{rel}: frontmatter is not a mapping"
    body = text[end + 5 :]
    turns = []
    for line in body.splitlines():
        if line.startswith("## Turn "):
            m = HEADER_RE.match(line)
            assert m, f"{rel}: malformed turn header {line!r}"
            turns.append(Turn(m.group(1), _instant(m.group(2)), m.group(3)))
    return SampleSlice(rel, text, list(raw), raw, turns)


@cache
def sample_slices() -> tuple[SampleSlice, ...]:
    out = []
    for core in sorted(SLICES.glob("*/*/*/*/timeline/core.md")):
        rel = str(core.parent.parent.relative_to(SLICES))
        out.append(_parse(rel, core.read_text(encoding="utf-8")))
    return tuple(out)


def _json(path: Path) -> Any:
    text = path.read_text(encoding="utf-8")
    assert not text.endswith("\n"), f"{path}: JSON files are written without a trailing newline"
    return json.loads(text)


def _card_refs(text: str) -> list[str]:
    return REF_RE.findall(text)


# ---------------------------------------------------------------- slices


def test_every_slice_directory_is_well_formed() -> None:
    dirs = sorted(p for p in SLICES.glob("*/*/*/*") if p.is_dir())
    assert dirs, "the sample holds no slices"
    for d in dirs:
        rel = str(d.relative_to(SLICES))
        assert re.fullmatch(r"\d{4}/\d{2}/\d{2}/\d{4}", rel), f"bad slice directory name {rel}"
        assert (d / "timeline" / "core.md").is_file(), f"{rel}: timeline/core.md missing"
        extra = {p.name for p in d.rglob("*") if p.is_file()} - {"core.md", "agent.md", "previously.md"}
        assert not extra, f"{rel}: unexpected files {extra}"
    assert len(dirs) == len(sample_slices())


@pytest.mark.parametrize("s", sample_slices(), ids=lambda s: s.slice_id)
def test_slice_frontmatter(s: SampleSlice) -> None:
    assert s.fm["slice_id"] == s.slice_id
    assert set(s.keys) >= REQUIRED, f"missing keys {REQUIRED - set(s.keys)}"
    assert s.keys == [k for k in KEY_ORDER if k in s.keys], f"keys out of order: {s.keys}"
    for key, value in s.fm.items():
        as_list = isinstance(value, list) and all(isinstance(v, str) for v in value)
        assert (isinstance(value, str) and value != "") or as_list, f"{key}: {value!r}"
    assert s.fm["status"] == "closed"
    assert s.fm["closed_by"] in ("time_cap", "capacity", "context_lost")
    assert s.fm["related_slices"] == [] and s.fm["loops"] == []
    assert s.fm.get("emotional_tone", "neutral") in ("positive", "neutral", "negative", "mixed")
    assert len(s.fm.get("summary", "").encode("utf-16-le")) // 2 <= 100
    start, end = _instant(s.fm["start"]), _instant(s.fm["end"])
    assert start.strftime("%Y/%m/%d/%H%M") == s.rel, "start must fall in the folder's UTC minute"
    assert start <= end <= start + timedelta(minutes=30)


@pytest.mark.parametrize("s", sample_slices(), ids=lambda s: s.slice_id)
def test_slice_turns(s: SampleSlice) -> None:
    if not s.turns:
        assert s.text.endswith("\n---\n\n"), "a slice without turns is frontmatter plus one blank line"
        return
    assert 2 <= len(s.turns) <= 12
    assert [t.role for t in s.turns] == ["user", "agent"] * (len(s.turns) // 2)
    for user, agent in zip(s.turns[::2], s.turns[1::2], strict=True):
        assert TURN_ID_RE.match(user.turn_id) and user.turn_id == agent.turn_id
    assert s.turns[0].timestamp == _instant(s.fm["start"])
    assert s.turns[-1].timestamp == _instant(s.fm["end"])
    stamps = [t.timestamp for t in s.turns]
    assert stamps == sorted(stamps) and len(set(stamps)) == len(stamps)
    assert stamps[-1] - stamps[0] < timedelta(minutes=30)
    assert s.text.endswith("\n") and not s.text.endswith("\n\n")


def test_turn_ids_are_unique_across_the_sample() -> None:
    ids = [t.turn_id for s in sample_slices() for t in s.turns if t.role == "user"]
    assert len(ids) == len(set(ids))


def test_slices_do_not_overlap_and_context_lost_is_followed_quickly() -> None:
    slices = sample_slices()
    for prev, nxt in itertools.pairwise(slices):
        assert _instant(prev.fm["end"]) < _instant(nxt.fm["start"])
        if prev.fm["closed_by"] == "context_lost":
            assert _instant(nxt.fm["start"]) - _instant(prev.fm["start"]) < timedelta(minutes=30)


def test_agent_logs_match_their_slices() -> None:
    logs = 0
    for s in sample_slices():
        path = SLICES / s.rel / "timeline" / "agent.md"
        if not path.exists():
            continue
        logs += 1
        text = path.read_text(encoding="utf-8")
        heads = re.findall(r"^## Cognition (\S+) — (\S+)$", text, re.MULTILINE)
        replies = [t for t in s.turns if t.role == "agent"]
        assert [h[0] for h in heads] == [t.turn_id for t in replies], s.rel
        for (_, at), reply in zip(heads, replies, strict=True):
            assert timedelta(0) <= _instant(at) - reply.timestamp < timedelta(seconds=5)
    assert logs >= 8


# ---------------------------------------------------------------- shape of the story


def test_enough_slices_over_more_than_two_years() -> None:
    slices = sample_slices()
    assert len(slices) >= 40
    first, last = _instant(slices[0].fm["start"]), _instant(slices[-1].fm["start"])
    assert last - first > timedelta(days=730)
    recent = [s for s in slices if s.slice_id >= "2026-08"]
    assert len(recent) >= len(slices) // 4, "recent months should be denser"


def test_newest_slice_is_closed_a_few_days_before_the_demo_today() -> None:
    newest = sample_slices()[-1]
    assert newest.fm["status"] == "closed"
    assert "2026-11-20" <= newest.slice_id[:10] < DEMO_TODAY
    assert newest.fm.get("focus") and newest.fm["open_loops"] and newest.fm["decisions"]


def test_recent_slices_carry_open_loops_and_decisions() -> None:
    recent = sample_slices()[-10:]
    assert sum(1 for s in recent if s.fm["open_loops"]) >= 6
    assert sum(1 for s in recent if s.fm["decisions"]) >= 6


def test_closing_signals_are_mixed() -> None:
    signals = [s.fm["closed_by"] for s in sample_slices()]
    assert signals.count("time_cap") > len(signals) // 2
    assert "capacity" in signals and "context_lost" in signals


def test_some_slices_are_partly_in_chinese() -> None:
    cjk = [s for s in sample_slices() if re.search(r"[\u4e00-\u9fff]{6,}", s.text)]
    assert len(cjk) >= 3


# ---------------------------------------------------------------- UI fixture quirks


def test_one_dry_slice_needs_marking() -> None:
    dry = [s for s in sample_slices() if not s.fm.get("focus") and not s.fm.get("summary")]
    assert len(dry) == 1 and dry[0].fm["status"] == "closed" and dry[0].turns


def test_one_slice_has_no_card_snapshot() -> None:
    missing = [s for s in sample_slices() if not (SLICES / s.rel / "previously.md").exists()]
    assert len(missing) == 1 and missing[0].turns


def test_one_slice_has_zero_turns() -> None:
    empty = [s for s in sample_slices() if not s.turns]
    assert len(empty) == 1
    assert "## Turn" not in empty[0].text


# ---------------------------------------------------------------- the card


def test_live_card_has_the_five_sections_and_a_name() -> None:
    card = (EPISODIC / "current-previously.md").read_text(encoding="utf-8")
    assert card.startswith("# Previously On\n\n_Active slice: ")
    assert "| Format: user card v2 | Updated: " in card
    assert re.search(r"^- Name: \S", card, re.MULTILINE)
    for section in ("## Identity", "## Past", "## Now", "## Horizon", "## Self-model"):
        assert f"\n{section}\n" in card
    assert re.findall(r"^- .* \| since: \d{4}-\d{2}-\d{2}$", card, re.MULTILINE)


def test_exactly_one_horizon_item_is_overdue_on_the_demo_today() -> None:
    card = (EPISODIC / "current-previously.md").read_text(encoding="utf-8")
    horizon = card.split("## Horizon\n", 1)[1].split("\n## ", 1)[0]
    dates = re.findall(r" — by: (\d{4}-\d{2}-\d{2})", horizon)
    assert dates and sum(1 for d in dates if d < DEMO_TODAY) == 1


def test_every_card_ref_points_at_an_existing_slice() -> None:
    existing = {s.rel for s in sample_slices()}
    cards = [EPISODIC / "current-previously.md", *sorted(SLICES.glob("*/*/*/*/previously.md"))]
    assert len(cards) > 40
    for path in cards:
        text = path.read_text(encoding="utf-8")
        assert text.startswith("# Previously On\n") and "Format: user card v2" in text
        refs = _card_refs(text)
        assert refs or "## Past" not in text, f"{path}: a card with Past entries but no refs"
        assert set(refs) <= existing, f"{path}: refs to missing slices {set(refs) - existing}"


def test_every_card_round_trips_through_the_card_module() -> None:
    now = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)
    for path in [EPISODIC / "current-previously.md", *sorted(SLICES.glob("*/*/*/*/previously.md"))]:
        text = path.read_text(encoding="utf-8")
        assert render_card(parse_card(text, now)) == text, path


def test_live_card_as_the_product_reads_it() -> None:
    text = (EPISODIC / "current-previously.md").read_text(encoding="utf-8")
    profile = parse_identity(text)
    assert profile and profile.name == "Nell Marchetti"
    card = parse_card(text, datetime(2026, 11, 30, 9, 0, tzinfo=UTC))
    assert [h.text for h in overdue_horizon(card.horizon, DEMO_TODAY)] == ["Book the flights to Chengdu"]


def test_snapshots_never_cite_the_future() -> None:
    for path in sorted(SLICES.glob("*/*/*/*/previously.md")):
        rel = str(path.parent.relative_to(SLICES))
        assert all(ref <= rel for ref in _card_refs(path.read_text(encoding="utf-8"))), rel


# ---------------------------------------------------------------- derived indexes


def _stored_catalog() -> dict[str, Any]:
    """The catalog document the sample's month files hold together."""
    top = _json(EPISODIC / "timeline" / "catalog.json")
    months = [_json(EPISODIC / "timeline" / "index" / f"{m['month']}.json") for m in top["months"]]
    return {
        **{k: v for k, v in top.items() if k != "months"},
        "slices": [e for m in months for e in m["slices"]],
    }


def test_catalog_matches_the_slices() -> None:
    index = _stored_catalog()
    slices = sample_slices()
    assert index["_schema"] == 1 and index["slice_count"] == len(slices)
    assert [e["id"] for e in index["slices"]] == [s.slice_id for s in slices]
    assert index["needs_marking"] == sum(1 for e in index["slices"] if e["needs_marking"]) == 1
    for entry, s in zip(index["slices"], slices, strict=True):
        assert entry["turn_count"] == len(s.turns)
        for key in ("start", "end", "status", "tags", "open_loops", "decisions"):
            assert entry[key] == s.fm[key], (s.slice_id, key)
        assert (entry["focus"], entry["summary"]) == (s.fm.get("focus", ""), s.fm.get("summary", ""))
        assert entry.get("tone") == s.fm.get("emotional_tone")


def test_timeline_md_lists_every_slice_newest_first() -> None:
    text = (EPISODIC / "timeline.md").read_text(encoding="utf-8")
    ids = re.findall(r"^- \*\*(\d{4}-\d{2}-\d{2}-\d{4})\*\* ", text, re.MULTILINE)
    assert ids == [s.slice_id for s in reversed(sample_slices())]
    assert f"_Slices: {len(ids)}_" in text and "_Needs marking: 1_" in text


def test_monthly_indexes_match_the_slices() -> None:
    by_month: dict[str, list[SampleSlice]] = {}
    for s in sample_slices():
        by_month.setdefault(s.rel[:7], []).append(s)
    files = sorted(SLICES.glob("*/*/_index.json"))
    assert [str(p.parent.relative_to(SLICES)) for p in files] == sorted(by_month)
    for path in files:
        data = _json(path)
        month = str(path.parent.relative_to(SLICES))
        assert data["month"] == month.replace("/", "-")
        assert [e["id"] for e in data["slices"]] == [s.slice_id for s in by_month[month]]
        for entry in data["slices"]:
            assert list(entry) == MONTHLY_KEYS


def test_strands_weave_every_tag_and_form_a_dozen_threads() -> None:
    strands = read_all_strands(LocalStorage(MEMORY.parent).snapshot())
    woven = {(tag, s.rel) for s in sample_slices() for tag in s.fm["tags"]}
    assert {(tag, rel) for tag, paths in strands.items() for rel in paths} == woven
    assert 10 <= len(strands) <= 15
    assert all(len(paths) >= 2 for paths in strands.values()), "a single-use strand would be pruned"
    assert all(paths == sorted(paths) for paths in strands.values())


def test_config_is_the_defaults_plus_locale() -> None:
    config = _json(MEMORY / "user" / "config.json")
    assert list(config) == ["slicing", "model", "worker", "onboarded", "datasource", "locale"]
    assert config["slicing"] == {"maxSliceMinutes": 30, "maxTurnsPerSlice": 50}
    assert config["locale"] == "en"
