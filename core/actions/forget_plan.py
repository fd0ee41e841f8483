"""What a forget will take, read before anything is written: the plan `forget` carries out and
the preview a person reads before saying yes (`previously forget`, `GET …/forget-preview`).

One exchange is found wherever it still is: its turns in core.md, or — taken back by *Answer
again* or *Edit* — its words in agent.md's `(replaced)` entry; its other cognition entries; its
pictures (`core/memory/slice/pictures.py` decides which go).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from core.actions.retract import is_replaced, parse_replaced_body
from core.errors import NotFound
from core.memory import paths
from core.memory.damage import Listing
from core.memory.owners import slice_core
from core.memory.slice.agent_parts import entries_for, has_entry, read_parts
from core.memory.slice.model import Slice, Turn
from core.memory.slice.picture_links import linked_pictures
from core.memory.slice.pictures import picture_files, turn_pictures
from core.memory.slice.slicer import USER_MARK
from core.memory.slice.view import read_slice_detail
from core.storage.paths import MemoryPath

LINE_CHARS = 100


def without_turn(s: Slice, turn_id: str) -> Slice:
    """The slice without the exchange `turn_id`; marks that may quote it are cleared to be redone
    (a focus or summary the user wrote stays)."""
    out = s.copy()
    out.turns = [t for t in out.turns if t.turn_id != turn_id]
    if out.marked_by != USER_MARK:
        out.focus, out.summary, out.marked_by = "", "", ""
    return out


@dataclass(frozen=True)
class TurnPlan:
    """One exchange as it stands: its turns in core.md, its taken-back words kept in agent.md
    (role, text), whether agent.md holds any entry for it, and the pictures that go with it."""

    current: Slice
    left: Slice
    in_core: list[Turn]
    taken_back: list[tuple[str, str]]
    replaced: bool  # agent.md keeps it as taken back (its words, when they read back, in taken_back)
    noted: bool
    notes: bool  # cognition entries other than a taken-back copy
    pictures: list[MemoryPath]

    @property
    def last(self) -> bool:
        """Whether it is the slice's last exchange (forgetting it forgets the slice)."""
        return bool(self.in_core) and not self.left.turns


def plan_turn(reader: Listing, slice_id: str, turn_id: str) -> TurnPlan:
    """Where the exchange `turn_id` still is. NotFound when nowhere; InvalidInput for an old
    single-file slice or a core.md that cannot be read (a turn cannot be cut out of it)."""
    legacy = (
        f"Slice {slice_id} is an old single-file slice; forget it whole (without --turn), "
        "or let Previously rewrite it first."
    )
    current = slice_core.read_for_change(reader, slice_id, legacy)  # SliceFormatError names the line
    left = without_turn(current, turn_id)
    parts = read_parts(reader, slice_id)
    entries = entries_for(parts, turn_id)
    kept = [e for e in entries if is_replaced(e.label)]
    plan = TurnPlan(
        current=current,
        left=left,
        in_core=[t for t in current.turns if t.turn_id == turn_id],
        taken_back=[turn for e in kept for turn in parse_replaced_body(e.body)],
        replaced=bool(kept),
        noted=has_entry(parts, turn_id),
        notes=len(kept) < len(entries),
        pictures=turn_pictures(reader, slice_id, turn_id, left),
    )
    if not (plan.in_core or plan.noted or plan.pictures):
        raise NotFound(f"Slice {slice_id} has no turn {turn_id}; GET /api/slices/{slice_id} lists its turns.")
    return plan


@dataclass(frozen=True)
class ForgetPreview:
    """What forgetting a slice (`turn_id` None) or one exchange will delete, and its wording."""

    slice_id: str
    turn_id: str | None
    whole_slice: bool
    text: str
    pictures: list[str] = field(default_factory=list)
    taken_back: bool = False


def preview_forget(reader: Listing, slice_id: str, turn_id: str | None = None) -> ForgetPreview:
    """The preview of `forget(storage, slice_id, turn_id=…)`; the same NotFound / InvalidInput."""
    if turn_id is None:
        s = read_slice_detail(reader, slice_id).slice
        text = (
            f"Slice {slice_id} — {_label(s)}\n"
            f"  {len(s.turns)} turns, the agent's notes on them, the card snapshot, its timeline, "
            "strand and search entries, and card entries that cite only this slice."
        )
        pictures = [_in_slice(slice_id, p) for p in picture_files(reader, slice_id)]
        return ForgetPreview(slice_id, None, True, text, pictures)
    plan = plan_turn(reader, slice_id, turn_id)
    pictures = [_in_slice(slice_id, p) for p in plan.pictures]
    lines = [f"Turn {turn_id} of slice {slice_id} — {_label(plan.current)}", f"  {_exchange(plan, pictures)}"]
    if plan.last:
        lines.append("  It is the slice's last exchange, so the whole slice goes with it.")
    return ForgetPreview(slice_id, turn_id, plan.last, "\n".join(lines), pictures, plan.replaced)


def _label(s: Slice) -> str:
    return s.focus or s.summary or "(no focus yet)"


def _exchange(plan: TurnPlan, pictures: list[str]) -> str:
    """One sentence on the exchange: its words (where they are kept), its pictures, its notes."""
    pics = _pictures_phrase(pictures)
    notes = ", and the agent's notes on it" if plan.in_core or plan.notes else ""
    if plan.in_core:
        turns = [(t.role, t.content) for t in plan.in_core]
        count = f"{len(turns)} turn{'' if len(turns) == 1 else 's'}"
        return f"{_words(turns)} ({count}){pics}{notes}."
    kept = " (taken back by Answer again or Edit; its words are kept in agent.md)"
    if plan.taken_back:
        return f"{_words(plan.taken_back)}{kept}{pics}{notes}."
    if plan.replaced:
        return f"the exchange{kept}{pics}{notes}."
    if pictures:
        return f"{pics.removeprefix(', ')}, left behind by an earlier forget (no words of it remain){notes}."
    return "the agent's notes on it (no words of it remain)."


def _words(turns: list[tuple[str, str]]) -> str:
    first = next((text for role, text in turns if role == "user"), turns[0][1])
    line = _opening(first)
    reply = " and its reply" if any(role != "user" for role, _ in turns) else ""
    return (f'your message "{line}"' if line else "your message (pictures, no words)") + reply


def _opening(text: str) -> str:
    """The first line of a message that is not a picture link (`turn_text` puts those last)."""
    for line in text.strip().split("\n"):
        if line.strip() and not (line.startswith("![") and linked_pictures(line)):
            return line[:LINE_CHARS]
    return ""


def _pictures_phrase(pictures: list[str]) -> str:
    if not pictures:
        return ""
    if len(pictures) == 1:
        return f", its picture {pictures[0]}"
    return f", its {len(pictures)} pictures ({', '.join(pictures)})"


def _in_slice(slice_id: str, path: MemoryPath) -> str:
    return path.value.removeprefix(paths.slice_dir(slice_id).value + "/")
