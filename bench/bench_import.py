"""A 2,000-conversation, ~200 MB ChatGPT export: preview then import into a local memory folder.

Figures: time of the preview (one streaming read) and of the import (a second read plus the
writes), the Python heap's peak during the preview (tracemalloc: what the reader holds, against
the file's size), the process's peak RSS, slices written and commits made (bounded by the
chunking, not one per slice). `BENCH_IMPORT_MB` scales the export down for a quick run.
"""

from __future__ import annotations

import os
import resource
import tempfile
import time
import tracemalloc
from pathlib import Path

from core.clock import SystemClock
from core.imports.run import apply_plan, preview
from core.imports.source import ExportFile
from core.storage.local import LocalStorage
from tests.fakes.exports import write_big_chatgpt

CONVERSATIONS = 2000
MESSAGES = 6


def main() -> None:
    target_mb = float(os.environ.get("BENCH_IMPORT_MB", "200"))
    # ~1.27 bytes of JSON per message character (ASCII filler, some CJK and emoji)
    chars = int(target_mb * 1_000_000 / (CONVERSATIONS * MESSAGES * 1.27))
    with tempfile.TemporaryDirectory() as tmp:
        export = write_big_chatgpt(Path(tmp) / "conversations.json", CONVERSATIONS, chars, MESSAGES)
        size = export.stat().st_size
        storage = LocalStorage(Path(tmp) / "memory-root")
        tracemalloc.start()
        start = time.perf_counter()
        plan = preview(ExportFile(export, "chatgpt"), storage)
        planned = time.perf_counter() - start
        heap_peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        start = time.perf_counter()
        report = apply_plan(ExportFile(export, "chatgpt"), plan, storage, SystemClock())
        applied = time.perf_counter() - start
    rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"export: {size / 1e6:.0f} MB, {plan.conversations} conversations, {plan.messages} messages")
    share = heap_peak / size
    print(f"preview: {planned:.1f} s (traced), heap peak {heap_peak / 1e6:.1f} MB ({share:.1%} of the file)")
    print(f"import: {applied:.1f} s, {len(report.imported)} slices, {report.commits} commits")
    print(f"peak RSS of the whole run: {rss_mb:.0f} MB")
