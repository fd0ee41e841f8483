"""Importing an export through the page: upload and preview, then upload again and accept.

Nothing is kept between the two calls: the preview answers with a `digest` naming the file and
every planned slice, and the accept plans again and writes only when the digest still matches
(docs/API.md, "Import"). The accept answers with NDJSON lines — progress, then the result — so
the page can show how far a large import has come.
"""

from __future__ import annotations

import json
import logging
import os
import queue
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import StreamingResponse
from pydantic import BaseModel

from core.errors import InvalidInput, PreviouslyError
from core.imports.bounds import Deadline
from core.imports.run import accept, preview
from core.imports.source import ExportFile
from functions.api.common import MUTATION, DepsDep
from functions.api.errors import INTERNAL_MESSAGE
from functions.api.schemas import ErrorBody
from functions.compose.deps import Deps

log = logging.getLogger("previously.api")
router = APIRouter(tags=["import"], dependencies=MUTATION, responses={401: {"model": ErrorBody}})
MAX_UPLOAD_BYTES = 256 * 1024 * 1024
PROGRESS_EVERY_S = 0.25
Format = Annotated[
    Literal["chatgpt", "claude", "markdown", "jsonl"], Query(description="The export's format")
]
FileName = Annotated[
    str, Query(max_length=255, description="The file's own name (names a Markdown file's conversation)")
]
Digest = Annotated[str, Query(min_length=8, max_length=64, description="The preview's `digest`")]


class ImportPreview(BaseModel):
    """What importing the uploaded file would do; nothing has been written."""

    format: str
    file: str
    digest: str
    conversations: int
    messages: int
    attachments: int
    images: int
    kept_aside: int
    slices: dict[str, int]
    first: str
    last: str
    writes: int
    planned: list[dict[str, Any]]
    planned_total: int
    card_lines: list[str]
    projects: list[dict[str, Any]]
    documents: int
    memory_lines: int
    skipped: list[str]
    skipped_total: int
    skipped_reasons: dict[str, int]


async def _spool(request: Request, fmt: str, name: str) -> ExportFile:
    """The request body written to a temporary file (uploads can be far larger than memory)."""
    fd, spooled = tempfile.mkstemp(prefix="previously-import-", suffix=".upload")
    path = Path(spooled)
    try:
        with os.fdopen(fd, "wb") as out:
            async for chunk in request.stream():
                out.write(chunk)
        if path.stat().st_size == 0:
            raise InvalidInput("The upload is empty; send the export file as the request body.")
        return ExportFile(path, fmt, name.rsplit("/", 1)[-1])
    except BaseException:
        path.unlink(missing_ok=True)
        raise


@router.post("/api/import/preview", response_model=ImportPreview, responses={400: {"model": ErrorBody}})
async def preview_import(
    request: Request, format: Format, deps: DepsDep, name: FileName = ""
) -> ImportPreview:
    """Read the uploaded export (the body: a .zip or its conversations.json) and plan; writes nothing."""
    export = await _spool(request, format, name)
    try:
        plan = await run_in_threadpool(preview, export, deps.storage, None, Deadline())
    finally:
        export.path.unlink(missing_ok=True)
    return ImportPreview.model_validate(plan.as_dict())


@router.post("/api/import/accept", response_class=StreamingResponse)
async def accept_import(
    request: Request, format: Format, digest: Digest, deps: DepsDep, name: FileName = ""
) -> StreamingResponse:
    """Import the uploaded export as previewed. NDJSON: `progress` lines, then `done` or `error`."""
    export = await _spool(request, format, name)
    events: queue.Queue[dict[str, Any] | None] = queue.Queue()
    threading.Thread(target=_run, args=(export, digest, deps, events), daemon=True).start()
    return StreamingResponse(_lines(events), media_type="application/x-ndjson")


def _run(export: ExportFile, digest: str, deps: Deps, events: queue.Queue[dict[str, Any] | None]) -> None:
    last = 0.0

    def progress(phase: str, done: int, total: int | None) -> None:
        nonlocal last
        now = time.monotonic()
        if now - last >= PROGRESS_EVERY_S or done == total:
            last = now
            events.put({"type": "progress", "phase": phase, "done": done, "total": total})

    try:
        report = accept(export, deps.storage, digest, deps.clock, progress)
        events.put({"type": "done", **report.as_dict()})
    except PreviouslyError as exc:
        events.put({"type": "error", "error": exc.code, "message": str(exc)})
    except Exception:  # the adapter boundary of a worker thread: log it, tell the page, end the stream
        log.exception("import failed")
        events.put({"type": "error", "error": "internal", "message": INTERNAL_MESSAGE})
    finally:
        export.path.unlink(missing_ok=True)
        events.put(None)


def _lines(events: queue.Queue[dict[str, Any] | None]) -> Iterator[str]:
    while (item := events.get()) is not None:
        yield json.dumps(item, ensure_ascii=False) + "\n"
