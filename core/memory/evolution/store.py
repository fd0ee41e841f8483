"""The evolution files on storage: read them, write them with a one-level undo, undo, record signals.

Like the card (card_store.py), each write of the direction or a playbook first copies the text
it replaces to `memory/evolution/undo/`, so the last change — the agent's or the user's — can
be undone; undo swaps the two. Writes are optimistic: a file that changed since it was read
fails the commit with ConflictError rather than overwriting what the writer never saw.
Signals go to the ledger with `update`, so two writers merge instead of clobbering; a ledger
that does not parse is left untouched (a signal is cheap, a file is not).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import datetime

from core.clock import iso
from core.errors import DamagedFile, InvalidInput, NotFound
from core.memory.card.store import expect_text
from core.memory.evolution import direction as d
from core.memory.evolution import fitness as f
from core.memory.evolution.paths import DIRECTION_MD, FITNESS_JSON, playbook_md, undo_copy
from core.memory.owners.registry import by_name
from core.memory.paths import MemoryPath
from core.storage.base import Reader, WriteBatch
from core.text import js_trim, utf16_len

EVOLUTION = by_name("evolution files")

PLAYBOOK_MAX_CHARS = 1200


@dataclass(frozen=True)
class EvolutionWrite:
    """Whether a queued write changes anything, and the commit message to use."""

    changed: bool
    message: str


def write_with_undo(batch: WriteBatch, path: MemoryPath, new_text: str | None, reason: str) -> EvolutionWrite:
    """Queue `new_text` at `path` (None removes it), keeping the replaced text as the undo copy."""
    current = batch.read(path)
    message = f"Evolution: {reason}"
    if new_text == current:
        return EvolutionWrite(False, message)
    undo = undo_copy(path)
    if current is not None:
        batch.update(undo, expect_text(undo, batch.read(undo), current))
    if new_text is None:
        batch.delete(path)
    else:
        batch.update(path, expect_text(path, current, new_text))
    return EvolutionWrite(True, message)


def undo_file(batch: WriteBatch, path: MemoryPath) -> EvolutionWrite:
    """Queue the swap of `path` and its undo copy; NotFound when there is nothing to undo."""
    undo = undo_copy(path)
    current, previous = batch.read(path), batch.read(undo)
    if previous is None:
        raise NotFound(f"There is no earlier version of {path} to go back to.")
    batch.update(path, expect_text(path, current, previous))
    if current is not None:
        batch.update(undo, expect_text(undo, previous, current))
    return EvolutionWrite(current != previous, f"Evolution: undo the last change to {path.name}")


def can_undo(view: Reader, path: MemoryPath) -> bool:
    """Whether `path` has an undo copy."""
    return view.read(undo_copy(path)) is not None


def read_direction(view: Reader) -> d.Direction:
    """The stored direction (empty when absent)."""
    return d.parse_direction(view.read(DIRECTION_MD))


def check_playbook(text: str) -> str:
    """A playbook's stored text (trimmed, newline-terminated); InvalidInput when blank or too long."""
    body = js_trim(text or "")
    if not body:
        raise InvalidInput("A playbook cannot be empty; to remove it, delete it instead.")
    n = utf16_len(body)
    if n > PLAYBOOK_MAX_CHARS:
        raise InvalidInput(f"The playbook is {n} characters; the limit is {PLAYBOOK_MAX_CHARS}. Shorten it.")
    return body + "\n"


def set_playbook(batch: WriteBatch, agent: str, text: str | None, reason: str) -> EvolutionWrite:
    """Queue a playbook's new text (validated), or its removal when `text` is None."""
    body = None if text is None else check_playbook(text)
    return write_with_undo(batch, playbook_md(agent), body, reason)


def reject_hypothesis(batch: WriteBatch, hypothesis_id: str, now: datetime) -> EvolutionWrite:
    """The user rules a hypothesis out: it leaves the pool and is remembered as rejected."""
    current = read_direction(batch)
    gone = next((h for h in current.hypotheses if h.id == hypothesis_id), None)
    if gone is None:
        raise NotFound(
            f"There is no hypothesis {hypothesis_id!r} in the direction (it may be resolved already)."
        )
    edited = current.copy()
    edited.hypotheses = [h for h in edited.hypotheses if h.id != hypothesis_id]
    edited.rejected = [*edited.rejected, d.Rejected(gone.claim, now.date().isoformat())][-d.REJECTED_MAX :]
    edited.updated = iso(now)
    return write_with_undo(
        batch, DIRECTION_MD, d.render_direction(edited), f"the user rejected {hypothesis_id}"
    )


def record_signal(batch: WriteBatch, signal: f.Signal) -> None:
    """Queue one mechanical signal on the ledger (merged on a conflict; a corrupt ledger is kept as is)."""

    def apply(text: str | None) -> str | None:
        try:
            ledger = f.parse_fitness(text)
        except InvalidInput:
            return text
        if signal.detail and any((s.kind, s.detail) == (signal.kind, signal.detail) for s in ledger.signals):
            return None  # a re-run of the step that recorded it (keyed by detail, e.g. the turn id)
        ledger.signals.append(signal)
        ledger.updated = signal.at
        return f.render_fitness(ledger)

    batch.update(FITNESS_JSON, apply)


def forget_in_ledger(batch: WriteBatch, slice_id: str, at: str, detail: str) -> None:
    """Queue a forgotten slice's removal from the ledger (its scores quote its words) and the signal.

    The signal says only that something was forgotten (`detail`: slice or turn), not which slice.
    """

    def apply(text: str | None) -> str | None:
        try:
            ledger = f.parse_fitness(text)
        except InvalidInput:
            return text
        ledger.scores = [s for s in ledger.scores if s.slice != slice_id]
        ledger.signals = [s for s in ledger.signals if s.slice != slice_id]
        ledger.signals.append(f.Signal("forgotten", at, "", detail))
        ledger.updated = at
        return f.render_fitness(ledger)

    if _readable(batch, FITNESS_JSON):
        batch.update(FITNESS_JSON, apply)


def _readable(batch: WriteBatch, path: MemoryPath) -> bool:
    """Whether the evolution file reads through its owner (absent counts); a damaged one (not
    UTF-8, over its cap) is left byte for byte and nothing else waits for it."""
    try:
        EVOLUTION.read(batch, path)
    except DamagedFile:
        return False
    return True


def scrub_direction(text: str | None, names: Callable[[str], bool]) -> str | None:
    """The direction without refs to forgotten slices; a trait or hypothesis left with none goes.

    None when nothing cites them. Unsorted lines and the stamp are kept as they are.
    """
    if text is None:
        return None
    parsed = d.parse_direction(text)
    kept_traits = [d.Trait(t.text, [r for r in t.refs if not names(r)]) for t in parsed.portrait]
    kept_hyps = [replace(h, refs=[r for r in h.refs if not names(r)]) for h in parsed.hypotheses]
    out = parsed.copy()
    out.portrait = [t for t in kept_traits if t.refs]
    out.hypotheses = [h for h in kept_hyps if h.refs]
    if out.portrait == parsed.portrait and out.hypotheses == parsed.hypotheses:
        return None
    return d.render_direction(out)


def forget_in_direction(batch: WriteBatch, names: Callable[[str], bool]) -> None:
    """Queue the scrub of the direction and its undo copy (merged on a conflict)."""
    for path in (DIRECTION_MD, undo_copy(DIRECTION_MD)):
        if _readable(batch, path) and scrub_direction(batch.read(path), names) is not None:
            batch.update(path, lambda text: scrub_direction(text, names))
