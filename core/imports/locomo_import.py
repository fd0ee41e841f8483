"""Importing one LoCoMo conversation (`previously import --format locomo`) in one commit.

Its sessions become slices (`core.imports.locomo`, `core.imports.writer`); when any is new, the
search index is refreshed in the same commit (imported sessions are usually dated in the past, so
they are indexed now rather than at the next maintain). Nothing new: nothing is committed.
"""

from __future__ import annotations

from collections.abc import Callable

from core.clock import Clock
from core.errors import InvalidInput
from core.imports.locomo import conversation_slices, load_conversations, pick_conversation
from core.imports.writer import ImportReport, import_slices
from core.memory.config import load_config
from core.memory.paths import CONFIG_JSON
from core.search import refresh_index
from core.storage.base import Storage, WriteBatch


def import_locomo(
    storage: Storage,
    text: str,
    name: str,
    conversation: str | None,
    clock: Clock,
    progress: Callable[[], None] | None = None,
    on_total: Callable[[int], None] | None = None,
) -> tuple[str, ImportReport]:
    """Import the chosen conversation of a LoCoMo file: its sample id and what was imported."""
    chosen = pick_conversation(load_conversations(text, name), conversation)
    slices = conversation_slices(chosen)
    if not slices:
        raise InvalidInput(f"Conversation {chosen.sample_id} has no sessions with turns.")
    batch = WriteBatch.open(storage)
    if on_total is not None:
        on_total(len(slices))
    locale = load_config(batch.read(CONFIG_JSON)).locale
    report = import_slices(batch, slices, clock.now(), locale, progress)
    if report.imported:
        refresh_index(batch, clock)
        batch.commit(f"import: LoCoMo {chosen.sample_id} ({len(report.imported)} slices)")
    return chosen.sample_id, report
