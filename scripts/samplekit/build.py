"""Render the sample memory from its source, then write it or check that the committed copy is current."""

from __future__ import annotations

import argparse
import base64
import copy
import hashlib
import itertools
import random
import re
import sys
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from core.clock import iso

from .card import Card, CardError, apply_op, render_card, substance
from .catalog import LABELS, build_index, catalog_entry, monthly_indexes, render_timeline_md, weave_strands
from .formats import TurnOut, append_cognition, cognition_body, js_json, render_core
from .source import Settings, SliceSource, SourceError, load_source

REPO = Path(__file__).resolve().parents[2]
SOURCE = REPO / "sample" / "source"
OUTPUT = REPO / "sample"
EPISODIC = "memory/episodic"
MAX_SLICE_SPAN = timedelta(minutes=28)
# REFERENCE §19 defaults, plus our `locale` (API.md §2).
CONFIG = {
    "slicing": {"maxSliceMinutes": 30, "maxTurnsPerSlice": 50},
    "model": {"provider": "deepseek-v4-pro", "thinking": True, "reasoningEffort": "medium"},
    "worker": {"mode": "auto", "provider": ""},
    "onboarded": False,
    "datasource": "demo",
}


@dataclass
class Timed:
    """A slice with its derived turn ids and timestamps."""

    src: SliceSource
    turns: list[TurnOut]
    start: datetime
    end: str

    @property
    def rel(self) -> str:
        return "/".join(self.src.slice_id.split("-"))


def turn_id(slice_id: str, exchange: int) -> str:
    """A stable 6-char base64url id (4 bytes, like the original's random ids) for one exchange."""
    digest = hashlib.sha256(f"{slice_id}#{exchange}".encode()).digest()
    return base64.urlsafe_b64encode(digest[:4]).decode().rstrip("=")


def time_slice(src: SliceSource) -> Timed:
    """Give every turn a plausible timestamp: replies in seconds, the user reading and typing in minutes."""
    rng = random.Random(src.slice_id)
    minute = datetime.strptime(src.slice_id, "%Y-%m-%d-%H%M").replace(tzinfo=UTC)
    start = minute + timedelta(seconds=rng.randint(1, 50), milliseconds=rng.randint(0, 999))
    gaps = []
    for i, (role, text) in enumerate(src.turns[1:], start=1):
        if role == "agent":  # thinking, then streaming the reply
            gaps.append(4 + len(text) / 40 + rng.uniform(2, 12))
        else:  # reading the reply, then typing on a phone
            gaps.append(len(src.turns[i - 1][1]) / 10 + len(text) / 2 + rng.uniform(20, 150))
    scale = min(1.0, MAX_SLICE_SPAN.total_seconds() / sum(gaps)) if gaps else 1.0
    stamps, t = [start], start
    for gap in gaps:
        t = t + timedelta(milliseconds=round(gap * scale * 1000))
        stamps.append(t)
    turns = [
        TurnOut(turn_id(src.slice_id, i // 2), iso(ts), role, text)
        for i, ((role, text), ts) in enumerate(zip(src.turns, stamps[: len(src.turns)], strict=True))
    ]
    return Timed(src, turns, start, src.end or (turns[-1].timestamp if turns else ""))


def _check_order(timed: list[Timed]) -> None:
    ids = [t.src.slice_id for t in timed]
    if len(set(ids)) != len(ids):
        raise SourceError("two slice files share an id")
    for prev, nxt in itertools.pairwise(timed):
        if prev.end >= iso(nxt.start):
            raise SourceError(f"{prev.src.slice_id} ends at {prev.end}, after {nxt.src.slice_id} starts")
    seen: set[str] = set()
    for t in timed:
        tids = {turn.turn_id for turn in t.turns}
        if tids & seen:
            raise SourceError(f"{t.src.slice_id}: a generated turn id collides with another slice's")
        seen |= tids


def evolve_cards(timed: list[Timed], settings: Settings) -> tuple[dict[str, str], dict[str, str], str]:
    """Replay the card's evolution: per-slice snapshots, the `evolution_summary` each caused, the live card.

    A close-time evolution runs when the next slice opens (REFERENCE §6.6): it is stamped with the
    closed slice's id and the next slice's time, and written to both slices' snapshots.
    """
    tz = ZoneInfo(settings.timezone)
    known = {t.rel for t in timed}
    card = Card(slice_id=timed[0].src.slice_id, updated=iso(timed[0].start + timedelta(milliseconds=1200)))
    snapshots: dict[str, str] = {}
    summaries: dict[str, str] = {}
    for i, t in enumerate(timed):
        evo = t.src.evolution
        if evo:
            if i + 1 == len(timed):
                raise SourceError(f"{t.src.slice_id}: the newest slice cannot evolve the card yet")
            nxt = timed[i + 1]
            new = copy.deepcopy(card)
            # New Now items are dated by the conversation they came from.
            today = t.start.astimezone(tz).date().isoformat()
            for op in evo.get("ops") or []:
                try:
                    apply_op(new, op, [t.rel], today)
                except (CardError, KeyError, TypeError) as exc:
                    raise SourceError(f"{t.src.slice_id}: card operation {op!r} failed: {exc}") from exc
            _check_refs(new, known, t.rel)
            if substance(new) == substance(card):
                raise SourceError(f"{t.src.slice_id}: the evolution changes nothing on the card")
            rng = random.Random(f"card:{t.src.slice_id}")
            new.slice_id = t.src.slice_id
            new.updated = iso(nxt.start + timedelta(seconds=rng.uniform(3, 12)))
            card = new
            summaries[nxt.src.slice_id] = " ".join(str(evo["summary"]).split())
        snapshots[t.src.slice_id] = render_card(card)
    return snapshots, summaries, render_card(card)


def _check_refs(card: Card, known: set[str], closed_rel: str) -> None:
    refs = [r for a in card.anchors for r in a.refs] + [r for n in card.now for r in n.refs]
    refs += [r for h in card.horizon for r in h.refs]
    refs += [r for line in card.self_model for r in re.findall(r"\[(\d{4}/\d{2}/\d{2}/\d{4}[^\]]*)\]", line)]
    for ref in refs:
        slice_rel = ref.split("-")[0]
        if slice_rel not in known or slice_rel > closed_rel:
            raise SourceError(f"card ref [{ref}] does not point at a slice that exists by {closed_rel}")


def frontmatter(t: Timed, settings: Settings, evolution_summary: str) -> dict[str, Any]:
    """The slice's frontmatter values (empty strings are dropped by the renderer)."""
    s = t.src
    return {
        "slice_id": s.slice_id,
        "focus": s.focus,
        "status": "closed",
        "start": iso(t.start),
        "end": t.end,
        "timezone": settings.timezone,
        "summary": s.summary,
        "open_loops": s.open_loops,
        "decisions": s.decisions,
        "tags": s.tags,
        "related_slices": [],
        "loops": [],
        "emotional_tone": s.tone,
        "closed_by": s.closed_by,
        "evolution_summary": evolution_summary,
    }


def agent_log(t: Timed) -> str:
    """`timeline/agent.md`: one cognition entry per exchange, stamped just after the reply."""
    text = ""
    rng = random.Random(f"agent:{t.src.slice_id}")
    replies = [turn for turn in t.turns if turn.role == "agent"]
    for reply, rnd in zip(replies, t.src.cognition, strict=False):
        at = iso(datetime.fromisoformat(reply.timestamp) + timedelta(milliseconds=rng.randint(40, 400)))
        text = append_cognition(text, reply.turn_id, at, cognition_body(rnd.thinking, rnd.tools))
    return text


def build(source: Path = SOURCE) -> dict[str, str]:
    """Every generated file, keyed by its path under `sample/`."""
    settings, slices = load_source(source)
    timed = [time_slice(s) for s in slices]
    _check_order(timed)
    snapshots, summaries, live = evolve_cards(timed, settings)
    files: dict[str, str] = {}
    fms = []
    for t in timed:
        fm = frontmatter(t, settings, summaries.get(t.src.slice_id, ""))
        fms.append((fm, len(t.turns)))
        base = f"{EPISODIC}/slices/{t.rel}"
        files[f"{base}/timeline/core.md"] = render_core(fm, t.turns)
        if t.src.cognition:
            files[f"{base}/timeline/agent.md"] = agent_log(t)
        if t.src.snapshot:
            files[f"{base}/previously.md"] = snapshots[t.src.slice_id]
    strands = weave_strands((fm["slice_id"], fm["tags"]) for fm, _ in fms)
    entries = [catalog_entry(fm, n, strands) for fm, n in fms]
    index = build_index(entries, settings.generated_at)
    files[f"{EPISODIC}/strands.json"] = js_json(strands)
    files[f"{EPISODIC}/timeline/index.json"] = js_json(index)
    files[f"{EPISODIC}/timeline.md"] = render_timeline_md(index, LABELS[settings.locale])
    for month, text in monthly_indexes(fm for fm, _ in fms).items():
        files[f"{EPISODIC}/slices/{month}/_index.json"] = text
    files[f"{EPISODIC}/current-previously.md"] = live
    files["memory/user/config.json"] = js_json(CONFIG | {"locale": settings.locale})
    return files


def differences(files: dict[str, str], out: Path = OUTPUT) -> list[str]:
    """Generated files that are missing, stale or unexpected under `out/memory`."""
    problems = [
        p for p, text in files.items() if not (out / p).is_file() or (out / p).read_text("utf-8") != text
    ]
    on_disk = {str(p.relative_to(out)) for p in (out / "memory").rglob("*") if p.is_file()}
    problems += sorted(f"{p} (not generated)" for p in on_disk - set(files))
    return sorted(problems)


def write(files: dict[str, str], out: Path = OUTPUT) -> None:
    """Replace `out/memory` with the generated files (it holds nothing else)."""
    for stale in sorted(set(differences(files, out))):
        if stale.endswith(" (not generated)"):
            (out / stale.removesuffix(" (not generated)")).unlink()
    for path, text in files.items():
        target = out / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8", newline="\n")


def main(argv: list[str] | None = None) -> int:
    """`build_sample.py [--check]`."""
    parser = argparse.ArgumentParser(description="Render sample/memory/ from sample/source/.")
    parser.add_argument("--check", action="store_true", help="only report files that are out of date")
    args = parser.parse_args(argv)
    try:
        files = build()
    except SourceError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.check:
        stale = differences(files)
        for path in stale:
            print(f"out of date: {path}", file=sys.stderr)
        if stale:
            print("run `python scripts/build_sample.py` to regenerate", file=sys.stderr)
        return 1 if stale else 0
    write(files)
    print(f"wrote {len(files)} files under {OUTPUT / 'memory'}")
    return 0
