"""`previously recall`: ask the memory a question (one, or a batch of JSON lines on stdin)."""

from __future__ import annotations

import json
import sys
from datetime import datetime
from typing import Annotated, Any

import typer

from core.clock import SystemClock, parse_iso
from core.search.recall import OpenIndex, open_index
from functions.cli.app import MemoryOpt, app, emit_json, fail
from functions.cli.memory_root import open_storage


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


def _answer(index: OpenIndex, req: Any, k: int, tz: str | None) -> dict[str, Any]:
    if not isinstance(req, dict):
        raise ValueError("each line must be a JSON object with a question")
    question = req.get("question")
    if not isinstance(question, str):
        raise ValueError('"question" must be a string')
    kk = req.get("k", k)
    if not isinstance(kk, int) or isinstance(kk, bool) or kk < 0:
        raise ValueError('"k" must be a non-negative integer')
    now = _instant(req.get("now"), '"now"')
    return index.search(question, kk, now, tz).to_dict()


def _batch(index: OpenIndex, k: int, tz: str | None) -> int:
    failures = 0
    for number, line in enumerate(sys.stdin, start=1):
        if not line.strip():
            continue
        qid: Any = None
        try:
            req = json.loads(line)
            qid = req.get("qid") if isinstance(req, dict) else None
            out = {"qid": qid, **_answer(index, req, k, tz)}
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

    Without a configured model (or with --no-model) this is the deterministic full-text floor:
    BM25 over slices and their passages, plus the dates the question names.
    """
    if batch == (question is not None):
        raise fail("give a question, or --batch with questions on stdin (not both)")
    index = open_index(open_storage(memory).snapshot())
    _note(index)
    if batch:
        if _batch(index, k, tz):
            raise typer.Exit(1)
        return
    try:
        result = index.search(question or "", k, _instant(now, "--now"), tz)
    except ValueError as exc:
        raise fail(str(exc)) from exc
    emit_json(result.to_dict())
