"""`previously recall`: ask the memory a question (one, or a batch of JSON lines on stdin).

With a model configured (and without --no-model) the worker model scans the timeline and the
strands (the recall tool of the agent); otherwise, or when the scan fails, the deterministic
full-text floor answers. Either way the output is `{"hits": [{"slice_id","relevance","reason"}]}`.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Annotated, Any

import typer

from core.clock import FixedClock, SystemClock, parse_iso
from core.errors import InvalidInput, NoModelConfigured
from core.memory import paths
from core.memory.config import load_config
from core.search.recall import OpenIndex, open_index
from core.storage.base import Snapshot
from functions.cli.app import MemoryOpt, app, emit_json, fail
from functions.cli.memory_root import open_storage
from functions.settings import load_settings

if TYPE_CHECKING:  # the model stack loads only when a model answers (not with --no-model)
    from core.llm.registry import Resolution


@dataclass
class Asker:
    """Answers questions against one snapshot: by the worker scan when there is a model, else the floor."""

    snapshot: Snapshot
    index: OpenIndex
    models: Resolution | None
    locale: str

    def ask(self, question: str, k: int, now: datetime, tz: str | None) -> dict[str, Any]:
        if self.models is None:
            return self.index.search(question, k, now, tz).to_dict()
        from core.agent.recall.scan import EMPTY_NOTE, run_recall
        from core.agent.tool_context import ToolContext

        ctx = ToolContext(
            view=self.snapshot,
            clock=FixedClock(now),
            models=self.models,
            timezone=tz or self.index.default_tz.key,
            locale=self.locale,
            search_index=self.index,
        )
        report = run_recall(ctx, question)
        # EMPTY_NOTE is worded for the main model; a person gets what it means and where else to look.
        note = report.note.replace(EMPTY_NOTE, "").strip()
        if not report.hits:
            note = f"{note} nothing in memory matches (the {report.source}'s answer; --no-model: full text)"
        if note.strip():
            typer.echo(f"note: {note.strip()}", err=True)
        return {"hits": report.hit_dicts()[:k]}


def _models(snapshot: Snapshot, no_model: bool) -> Resolution | None:
    """The configured models (None with --no-model, or when no provider is configured)."""
    if no_model:
        return None
    from core.llm.registry import ModelPrefs
    from functions.llm import build_registry

    try:
        registry = build_registry(load_settings())
        if not registry.configured:
            return None
        resolution = registry.resolve(None, ModelPrefs.from_config(_config_json(snapshot)))
    except (InvalidInput, NoModelConfigured) as exc:
        typer.echo(f"note: {exc} — answering from the full-text index", err=True)
        return None
    for note in resolution.notes:
        typer.echo(f"note: {note}", err=True)
    return resolution


def _config_json(snapshot: Snapshot) -> dict[str, Any]:
    try:
        data = json.loads(snapshot.read(paths.CONFIG_JSON) or "{}")
    except (ValueError, InvalidInput):
        return {}
    return data if isinstance(data, dict) else {}


def _locale(snapshot: Snapshot) -> str:
    try:
        return load_config(snapshot.read(paths.CONFIG_JSON)).locale
    except InvalidInput:
        return "en"


def _instant(text: str | None, what: str) -> datetime:
    if not text:
        return SystemClock().now()
    try:
        return parse_iso(text)
    except ValueError as exc:
        raise ValueError(
            f"{what} must be an ISO-8601 instant such as 2026-08-11T11:15:00Z, not {text!r}"
        ) from exc


def _note(index: OpenIndex) -> None:
    for note in index.notes:
        typer.echo(f"note: {note}", err=True)


def _answer(asker: Asker, req: Any, k: int, tz: str | None) -> dict[str, Any]:
    if not isinstance(req, dict):
        raise ValueError("each line must be a JSON object with a question")
    question = req.get("question")
    if not isinstance(question, str):
        raise ValueError('"question" must be a string')
    kk = req.get("k", k)
    if not isinstance(kk, int) or isinstance(kk, bool) or kk < 0:
        raise ValueError('"k" must be a non-negative integer')
    now = _instant(req.get("now"), '"now"')
    return asker.ask(question, kk, now, tz)


def _batch(asker: Asker, k: int, tz: str | None) -> int:
    failures = 0
    for number, line in enumerate(sys.stdin, start=1):
        if not line.strip():
            continue
        qid: Any = None
        try:
            req = json.loads(line)
            qid = req.get("qid") if isinstance(req, dict) else None
            out = {"qid": qid, **_answer(asker, req, k, tz)}
        except ValueError as exc:
            failures += 1
            typer.echo(f"line {number}: {exc}", err=True)
            out = {"qid": qid, "hits": [], "error": str(exc)}
        sys.stdout.write(json.dumps(out, ensure_ascii=False) + "\n")
        sys.stdout.flush()
    return failures


@app.command()
def recall(
    question: Annotated[str | None, typer.Argument(help="What to recall (omit with --batch).")] = None,
    memory: MemoryOpt = None,
    k: Annotated[int, typer.Option("--k", min=0, help="How many hits.")] = 10,
    no_model: Annotated[bool, typer.Option("--no-model", help="Use only the full-text floor.")] = False,
    now: Annotated[
        str | None, typer.Option("--now", help="Read relative dates against this ISO instant.")
    ] = None,
    tz: Annotated[
        str | None, typer.Option("--tz", help="IANA timezone for dates (default: the newest slice's).")
    ] = None,
    batch: Annotated[
        bool, typer.Option("--batch", help='JSON lines on stdin: {"qid","question","k"?,"now"?}.')
    ] = False,
) -> None:
    """Find the slices that answer a question: prints {"hits":[{"slice_id","relevance","reason"}]}.

    With a model configured, the worker model scans the timeline and strands (falling back to
    the full-text floor if it fails). Without one, or with --no-model, the floor answers alone:
    BM25 over slices and their passages, plus the dates the question names.
    """
    if batch == (question is not None):
        raise fail("give a question, or --batch with questions on stdin (not both)")
    if question is not None and not question.strip():
        raise fail("the question is empty")
    snapshot = open_storage(memory).snapshot()
    index = open_index(snapshot)
    _note(index)
    asker = Asker(snapshot, index, _models(snapshot, no_model), _locale(snapshot))
    if batch:
        if _batch(asker, k, tz):
            raise typer.Exit(1)
        return
    try:
        result = asker.ask(question or "", k, _instant(now, "--now"), tz)
    except ValueError as exc:
        raise fail(str(exc)) from exc
    emit_json(result)
