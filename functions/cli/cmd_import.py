"""`previously import`: bring conversations from another format in as slices."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from core.clock import SystemClock
from core.errors import InvalidInput
from core.imports.writer import ImportReport, import_slices
from core.imports.locomo import conversation_slices, load_conversations, pick_conversation
from core.search import refresh_index
from core.storage.base import WriteBatch
from functions.cli.app import JsonOpt, MemoryOpt, app, emit_json, fail
from functions.cli.memory import echo_list, open_memory, progress_bar, run_or_fail, user_config


class ImportFormat(StrEnum):
    """Formats `import` understands."""

    locomo = "locomo"


FormatOpt = Annotated[ImportFormat, typer.Option("--format", help="Input format.", case_sensitive=False)]
FileArg = Annotated[Path, typer.Argument(help="The file to import.", show_default=False)]
ConversationOpt = Annotated[
    str | None,
    typer.Option("--conversation", help="Which conversation (sample_id), when the file has several."),
]


@app.command(name="import")
def import_(
    file: FileArg,
    format: FormatOpt,
    conversation: ConversationOpt = None,
    memory: MemoryOpt = None,
    json_out: JsonOpt = False,
) -> None:
    """Import a LoCoMo conversation: one closed slice per session; existing slices are never overwritten."""
    try:
        text = file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise fail(f"Cannot read {file}: {exc}") from exc
    storage, label = open_memory(memory, must_exist=False)

    def run() -> tuple[str, ImportReport]:
        chosen = pick_conversation(load_conversations(text, file.name), conversation)
        slices = conversation_slices(chosen)
        if not slices:
            raise InvalidInput(f"Conversation {chosen.sample_id} has no sessions with turns.")
        batch = WriteBatch.open(storage)
        with progress_bar("Importing sessions", enabled=not json_out) as (set_total, tick):
            set_total(len(slices))
            report = import_slices(batch, slices, SystemClock().now(), user_config(batch).locale, tick)
        if report.imported:
            # Imported sessions are usually dated in the past: index them now, not at the next maintain.
            refresh_index(batch, SystemClock())
            batch.commit(f"import: LoCoMo {chosen.sample_id} ({len(report.imported)} slices)")
        return chosen.sample_id, report

    sample_id, report = run_or_fail(run)
    if json_out:
        emit_json({"memory": label, "conversation": sample_id, **report.as_dict()})
        return
    typer.echo(f"{sample_id} → {label}: {len(report.imported)} slices imported")
    echo_list("Already imported (unchanged)", report.unchanged)
    echo_list("Kept: another slice already holds that minute", report.kept_existing)
