"""Render the sample memory through the product's own format code, then write it or check it is current.

The builder owns only the story (the source, timestamps, ids); every file's bytes come from
`core`: slices from `render_core_md`, cognition logs from `agent_md`, cards from a `CardSession`
replay, config from `patch_config`, and the indexes from `rebuild_indexes` over an in-memory
storage. The result must pass `check_memory` with no finding, or nothing is written.
"""

from __future__ import annotations

import argparse
import random
import sys
from datetime import timedelta
from pathlib import Path

from core.actions.check import check_memory
from core.clock import iso, parse_iso
from core.errors import PreviouslyError
from core.memory import paths
from core.memory.catalog.rebuild import rebuild_indexes
from core.memory.config import UserConfig, patch_config
from core.memory.evolution.paths import DIRECTION_MD, FITNESS_JSON, PLAYBOOK_AGENTS, playbook_md
from core.memory.paths import MemoryPath
from core.memory.slice import agent_md
from core.memory.slice.model import Slice, parse_core_md, render_core_md
from core.storage.base import WriteBatch
from core.storage.memory import InMemoryStorage

from .card_replay import replay_card
from .source import Settings, SourceError, load_source
from .timing import Timed, time_all

REPO = Path(__file__).resolve().parents[2]
SOURCE = REPO / "sample" / "source"
OUTPUT = REPO / "sample"
# More demo personas: `sample/personas/<id>/source/` renders to `sample/personas/<id>/memory/`.
PERSONAS = REPO / "sample" / "personas"


def slice_of(t: Timed, settings: Settings, evolution_summary: str) -> Slice:
    """The closed slice the source describes."""
    s = t.src
    return Slice(
        slice_id=s.slice_id,
        status="closed",
        start=iso(t.start),
        end=t.end,
        timezone=settings.timezone,
        focus=s.focus,
        summary=s.summary,
        open_loops=list(s.open_loops),
        decisions=list(s.decisions),
        tags=list(s.tags),
        emotional_tone=s.tone,
        closed_by=s.closed_by,
        evolution_summary=evolution_summary,
        turns=list(t.turns),
    )


def core_md(s: Slice) -> str:
    """`render_core_md`, refused unless the product reads the file back as the same slice."""
    text = render_core_md(s)
    if parse_core_md(text) != s:
        raise SourceError(f"{s.slice_id}: core.md would not read back as written; check its turns and fields")
    return text


def agent_log(t: Timed) -> str:
    """`timeline/agent.md`: one cognition entry per exchange, stamped just after the reply."""
    text = ""
    rng = random.Random(f"agent:{t.slice_id}")
    replies = [turn for turn in t.turns if turn.role == "agent"]
    for reply, rnd in zip(replies, t.src.cognition, strict=False):
        at = iso(parse_iso(reply.timestamp) + timedelta(milliseconds=rng.randint(40, 400)))
        step = agent_md.Step(reasoning=["\n\n".join(rnd.thinking)], tool_calls=rnd.tools)
        body = agent_md.render_cognition(agent_md.Cognition([agent_md.Invocation([step])]))
        text = agent_md.append_cognition(text, agent_md.cognition_entry(reply.turn_id or "", at, body))
    return text


def config_json(locale: str) -> str:
    """The product's default preferences with the sample's locale (validated by the product)."""
    return patch_config(UserConfig(), {"locale": locale}).to_json()


def source_files(settings: Settings, timed: list[Timed]) -> dict[MemoryPath, str]:
    """Every file the source decides: slices, cognition logs, card snapshots, the live card, config."""
    history = replay_card(timed, settings.timezone)
    files: dict[MemoryPath, str] = {}
    for t in timed:
        evolution_summary = history.summaries.get(t.slice_id, "")
        files[paths.core_md(t.slice_id)] = core_md(slice_of(t, settings, evolution_summary))
        if t.src.cognition:
            files[paths.agent_md(t.slice_id)] = agent_log(t)
        if t.src.snapshot:
            files[paths.card_snapshot(t.slice_id)] = history.snapshots[t.slice_id]
    files[paths.CARD] = history.live
    files[paths.CONFIG_JSON] = config_json(settings.locale)
    return files


def learned_files(source: Path) -> dict[MemoryPath, str]:
    """What the evolution layer has learned, copied as written (`source/learned/`: direction.md,
    fitness.json, playbook-<agent>.md); `check_memory` holds them to the format."""
    root = source / "learned"
    wanted = {"direction.md": DIRECTION_MD, "fitness.json": FITNESS_JSON}
    wanted |= {f"playbook-{agent}.md": playbook_md(agent) for agent in PLAYBOOK_AGENTS}
    found = {p.name for p in root.glob("*")} if root.is_dir() else set()
    if found - set(wanted):
        raise SourceError(f"{root}: unknown files {sorted(found - set(wanted))}; expected {sorted(wanted)}")
    return {wanted[name]: (root / name).read_text("utf-8") for name in sorted(found)}


def with_indexes(files: dict[MemoryPath, str], settings: Settings) -> dict[MemoryPath, str]:
    """`files` plus the indexes a full weave builds from them, stamped `generated_at`."""
    storage = InMemoryStorage(dict(files))
    batch = WriteBatch.open(storage)
    report = rebuild_indexes(batch, settings.woven_at, settings.locale)
    if report.unreadable:
        raise SourceError(f"the product cannot read these slices: {', '.join(report.unreadable)}")
    batch.commit("sample: weave the indexes")
    findings = check_memory(storage.snapshot(), settings.woven_at).findings
    if findings:
        raise SourceError("the rendered memory fails `previously check`:\n" + "\n".join(map(str, findings)))
    return dict(storage.files)


def build(source: Path = SOURCE) -> dict[str, str]:
    """Every generated file, keyed by its path under `sample/`."""
    settings, slices = load_source(source)
    try:
        files = with_indexes(source_files(settings, time_all(slices)) | learned_files(source), settings)
    except PreviouslyError as exc:  # the product refused a value the source gave it
        raise SourceError(str(exc)) from exc
    return {path.value: text for path, text in sorted(files.items())}


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
    for stale in differences(files, out):
        if stale.endswith(" (not generated)"):
            (out / stale.removesuffix(" (not generated)")).unlink()
    for path, text in files.items():
        target = out / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8", newline="\n")


def samples() -> list[tuple[Path, Path]]:
    """Every persona as (its source folder, the folder its memory/ is written under): the
    first persona at `sample/`, each further one under `OUTPUT/personas/<id>/`."""
    extra = sorted(p.parent for p in PERSONAS.glob("*/source") if p.is_dir())
    return [(SOURCE, OUTPUT)] + [(d / "source", OUTPUT / "personas" / d.name) for d in extra]


def main(argv: list[str] | None = None) -> int:
    """`build_sample.py [--check]`: 0 when written or current, 1 when stale, 2 on bad source."""
    parser = argparse.ArgumentParser(description="Render every persona's memory/ from its source/.")
    parser.add_argument("--check", action="store_true", help="only report files that are out of date")
    args = parser.parse_args(argv)
    try:
        built = [(build(source), out) for source, out in samples()]
    except SourceError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.check:
        stale = [f"{out / path}" for files, out in built for path in differences(files, out)]
        for path in stale:
            print(f"out of date: {path}", file=sys.stderr)
        if stale:
            print("run `python scripts/build_sample.py` to regenerate", file=sys.stderr)
        return 1 if stale else 0
    for files, out in built:
        write(files, out)
        print(f"wrote {len(files)} files under {out / 'memory'}")
    return 0
