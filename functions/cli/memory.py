"""What the memory commands share: opening the memory, a progress bar, error translation."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TypeVar

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from core.errors import PreviouslyError
from core.storage.base import Storage
from functions.cli.app import fail
from functions.cli.errors import exit_code
from functions.cli.memory_root import open_storage

T = TypeVar("T")

# Bars only for runs long enough to watch; short runs stay quiet.
PROGRESS_MIN_ITEMS = 200


def open_memory(memory: Path | None, *, must_exist: bool, every_slice: bool = False) -> tuple[Storage, str]:
    """The memory a command works on (see `memory_root.open_storage`) and a label naming it."""
    storage = open_storage(memory, must_exist=must_exist, every_slice=every_slice)
    root = getattr(storage, "root", None)
    return storage, str(root) if root is not None else storage.name


@contextmanager
def progress_bar(
    label: str, enabled: bool = True
) -> Iterator[tuple[Callable[[int], None], Callable[[], None]]]:
    """A bar on stderr: yields `(set_total, tick)`. It shows only on a terminal and for long runs."""
    console = Console(stderr=True)
    bar = Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console,
        transient=True,
        disable=not (enabled and console.is_terminal),
    )
    task = bar.add_task(label, total=None)

    def set_total(total: int) -> None:
        bar.update(task, total=total, visible=total >= PROGRESS_MIN_ITEMS)

    def tick() -> None:
        bar.advance(task)

    with bar:
        yield set_total, tick


def run_or_fail(fn: Callable[[], T]) -> T:
    """Run `fn`, turning a domain error into a clean CLI failure (message on stderr, exit 1, or 75
    when a later run can get past it: functions/cli/errors.py)."""
    try:
        return fn()
    except PreviouslyError as exc:
        raise fail(str(exc), exit_code(exc)) from exc


def echo_list(title: str, items: list[str], limit: int = 10) -> None:
    """Print a titled list, cut after `limit` items."""
    if not items:
        return
    typer.echo(f"{title} ({len(items)}):")
    for item in items[:limit]:
        typer.echo(f"  {item}")
    if len(items) > limit:
        typer.echo(f"  … and {len(items) - limit} more")
