"""`previously maintain`: the scheduled pass over a memory (today: the search index)."""

from __future__ import annotations

import time
from typing import Annotated

import typer

from core.clock import SystemClock
from core.search.recall import refresh_index
from core.storage.base import WriteBatch
from functions.cli.app import JsonOpt, MemoryOpt, app, emit_json
from functions.cli.memory_root import open_storage


@app.command()
def maintain(
    memory: MemoryOpt = None,
    no_model: Annotated[bool, typer.Option("--no-model", help="Deterministic steps only.")] = False,
    full: Annotated[bool, typer.Option("--full", help="Rebuild the search index from scratch.")] = False,
    json_out: JsonOpt = False,
) -> None:
    """Bring derived files up to date: today the full-text search index (memory/episodic/search/).

    Re-indexes new and changed slices and drops deleted ones. Closing expired slices, marking
    dry ones, strand consolidation and card checks join this pass as they are built.
    """
    storage = open_storage(memory)
    started = time.perf_counter()
    batch = WriteBatch.open(storage)
    report = refresh_index(batch, SystemClock(), full=full)
    result = batch.commit("maintain: refresh the search index")
    data = {
        "search_index": {
            "rebuilt": report.rebuilt,
            "reasons": report.reasons,
            "added": report.added,
            "updated": report.updated,
            "removed": report.removed,
            "slices": report.slices,
            "segments": report.segments,
            "bytes": report.bytes,
            "files_written": len(result.written),
            "seconds": round(time.perf_counter() - started, 3),
        }
    }
    if json_out:
        emit_json(data)
        return
    s = data["search_index"]
    how = "rebuilt" if report.rebuilt else "updated"
    typer.echo(
        f"search index {how}: {s['slices']} slices in {s['segments']} segments, {s['bytes']:,} bytes "
        f"(+{s['added']} new, {s['updated']} changed, -{s['removed']} removed; "
        f"{s['files_written']} files written, {s['seconds']} s)"
    )
