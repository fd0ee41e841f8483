"""`previously import`: bring conversations from another tool in as slices (a preview first)."""

from __future__ import annotations

from collections.abc import Callable
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import typer

from core.clock import SystemClock
from core.imports.locomo_import import import_locomo
from core.imports.plan import ImportPlan, Progress
from core.imports.run import apply_plan, preview
from core.imports.source import ExportFile
from core.imports.writer import ImportReport
from core.storage.base import Storage
from functions.cli.app import JsonOpt, MemoryOpt, app, emit_json, fail
from functions.cli.memory import echo_list, open_memory, progress_bar, run_or_fail


class ImportFormat(StrEnum):
    """Formats `import` understands."""

    chatgpt = "chatgpt"
    claude = "claude"
    markdown = "markdown"
    jsonl = "jsonl"
    locomo = "locomo"


FormatOpt = Annotated[ImportFormat, typer.Option("--format", help="Input format.", case_sensitive=False)]
FileArg = Annotated[
    Path,
    typer.Argument(help="The export: the .zip as downloaded, or its conversations.json.", show_default=False),
]
ConversationOpt = Annotated[
    str | None,
    typer.Option(
        "--conversation", help="LoCoMo only: which conversation (sample_id), when the file has several."
    ),
]
DryRunOpt = Annotated[bool, typer.Option("--dry-run", help="Show what would be imported; write nothing.")]


@app.command(name="import")
def import_(
    file: FileArg,
    format: FormatOpt,
    conversation: ConversationOpt = None,
    memory: MemoryOpt = None,
    dry_run: DryRunOpt = False,
    json_out: JsonOpt = False,
) -> None:
    """Import conversations from ChatGPT, Claude, Markdown, JSON Lines or LoCoMo; never overwrites a slice."""
    if format is ImportFormat.locomo:
        _import_locomo(file, conversation, memory, json_out)
        return
    if conversation is not None:
        raise fail("--conversation is for LoCoMo files; other formats import every conversation.")
    storage, label = open_memory(memory, must_exist=False)
    export = run_or_fail(lambda: ExportFile(file, format.value))
    with progress_bar("Reading the export", enabled=not json_out) as bar:
        plan = run_or_fail(lambda: preview(export, storage, _ticker(*bar)))
    if dry_run or plan.writes == 0:
        _show_plan(plan, label, json_out, dry_run)
        return
    with progress_bar("Writing slices", enabled=not json_out) as bar:
        report = run_or_fail(lambda: apply_plan(export, plan, storage, SystemClock(), _ticker(*bar)))
    if json_out:
        emit_json({"memory": label, "plan": plan.as_dict(limit=0), **report.as_dict()})
        return
    typer.echo(
        f"{export.name} → {label}: {len(report.imported)} slices imported, {len(report.extended)} extended "
        f"({plan.conversations} conversations, {report.commits} commits)"
    )
    if plan.projects:
        documents = sum(p.documents for p in plan.projects)
        typer.echo(f"  projects: {len(plan.projects)}, {documents} documents kept beside their slices")
    if report.card_lines:
        typer.echo(f"  card: {report.card_lines} lines added to its Unsorted section")
    echo_list("Already imported (unchanged)", report.unchanged)
    echo_list("Kept as they are (they differ from the export)", report.kept_existing)
    echo_list("Skipped", [str(s) for s in plan.skipped])


def _ticker(set_total: Callable[[int], None], tick: Callable[[], None]) -> Progress:
    """A plan/apply progress callback driving one bar."""
    state = {"done": 0}

    def progress(phase: str, done: int, total: int | None) -> None:
        if total is not None and state["done"] == 0:
            set_total(total)
        for _ in range(done - state["done"]):
            tick()
        state["done"] = done

    return progress


def _show_plan(plan: ImportPlan, label: str, json_out: bool, dry_run: bool) -> None:
    data: dict[str, Any] = plan.as_dict()
    if json_out:
        emit_json({"memory": label, "dry_run": dry_run, **data})
        return
    counts = plan.counts
    verb = "would import" if dry_run else "nothing new to import"
    typer.echo(f"{plan.file_name} → {label}: {verb}")
    typer.echo(f"  conversations: {plan.conversations}, messages: {plan.messages}")
    typer.echo(
        f"  slices: {counts['new']} new, {counts['extend']} extended, {counts['unchanged']} unchanged, "
        f"{counts['kept']} kept as they are"
    )
    if plan.first:
        typer.echo(f"  from {plan.first} to {plan.last}")
    typer.echo(f"  kept aside in appendices: {plan.asides} rows; attachments kept: {plan.attachments}")
    typer.echo(f"  images stored: {plan.images}")
    for project in plan.projects:  # a Claude export's projects: one slice each, documents attached
        where = f"slice {project.slice_id} ({project.action})" if project.slice_id else "no slice"
        typer.echo(f"  project {project.project}: {project.documents} documents → {where}")
    if plan.memory_lines:
        typer.echo(f"  memories: {plan.memory_lines} lines (those not on the card yet are listed below)")
    if plan.card_lines:  # the export's instructions / profile text / memories, offered to the card
        typer.echo(f"  card: {len(plan.card_lines)} lines for its Unsorted section (sort or remove them)")
        for line in plan.card_lines:
            typer.echo(f"    {line[:200]}")
    for why, n in data["skipped_reasons"].items():
        typer.echo(f"  skipped {n}× — {why}")
    echo_list("Skipped", [str(s) for s in plan.skipped])
    if dry_run:
        typer.echo("Nothing was written. Run again without --dry-run to import.")


def _import_locomo(file: Path, conversation: str | None, memory: Path | None, json_out: bool) -> None:
    try:
        text = file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise fail(f"Cannot read {file}: {exc}") from exc
    storage, label = open_memory(memory, must_exist=False)
    sample_id, report = run_or_fail(lambda: _locomo(storage, text, file.name, conversation, json_out))
    if json_out:
        emit_json({"memory": label, "conversation": sample_id, **report.as_dict()})
        return
    typer.echo(f"{sample_id} → {label}: {len(report.imported)} slices imported")
    echo_list("Already imported (unchanged)", report.unchanged)
    echo_list("Kept: another slice already holds that minute", report.kept_existing)


def _locomo(
    storage: Storage, text: str, name: str, conversation: str | None, json_out: bool
) -> tuple[str, ImportReport]:
    with progress_bar("Importing sessions", enabled=not json_out) as (set_total, tick):
        return import_locomo(storage, text, name, conversation, SystemClock(), tick, set_total)
