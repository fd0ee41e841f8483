""" "Everything about X" in one answer: recall's best slices, their summaries and the turns that match.

Another agent asking about a topic would otherwise call recall, then a summary per hit, then a
read per slice. `gather` does it in one pass and stays inside a budget of tokens (counted as
characters / 4, the usual rough rule): slices in recall's order, each with its summary lines and
up to `TURNS_PER_SLICE` turns that share the most search terms with the question (the search
index's tokenizer: stems, no stopwords, CJK pairs), shown in the order they were said. A turn too
long for what is left of the budget is cut, and the answer says how to read it whole; slices that
did not fit are named, so nothing is silently left out.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from core.errors import InvalidInput, SliceFormatError
from core.memory.slice.model import Turn, parse_core_md, render_turn, salvage_turns
from core.search.tokenize import query_terms, tokenize

CHARS_PER_TOKEN = 4
DEFAULT_BUDGET = 4000
MIN_BUDGET = 200
MAX_BUDGET = 32000
TURNS_PER_SLICE = 3


class Pointer(Protocol):
    """A recall hit: which slice, how relevant (0–1), why."""

    @property
    def slice_id(self) -> str: ...
    @property
    def relevance(self) -> float: ...
    @property
    def reason(self) -> str: ...


@dataclass(frozen=True)
class SliceMaterial:
    """What one hit contributes: its summary lines and its words."""

    hit: Pointer
    summary: str
    text: str


def check_budget(budget: int) -> int:
    """A token budget in range; InvalidInput with the range otherwise."""
    if isinstance(budget, bool) or not isinstance(budget, int) or not MIN_BUDGET <= budget <= MAX_BUDGET:
        raise InvalidInput(
            f"budget_tokens must be a whole number from {MIN_BUDGET} to {MAX_BUDGET} (got {budget!r})."
        )
    return budget


def turns_of(text: str) -> list[Turn]:
    """A slice's turns, unescaped (what a damaged file still shows when it cannot be parsed whole)."""
    try:
        return parse_core_md(text).turns
    except SliceFormatError:
        return salvage_turns(text)


def matching_turns(turns: list[Turn], question: str, most: int = TURNS_PER_SLICE) -> list[Turn]:
    """Up to `most` turns sharing the most terms with `question`, in the order they were said."""
    wanted = set(query_terms(question))
    if not wanted:
        return []
    scored = [(len(wanted.intersection(tokenize(t.content))), i) for i, t in enumerate(turns)]
    best = sorted((s for s in scored if s[0] > 0), key=lambda s: (-s[0], s[1]))[:most]
    return [turns[i] for _, i in sorted(best, key=lambda s: s[1])]


def gather(
    question: str,
    head: str,
    hits: Sequence[Pointer],
    material: Callable[[Pointer], SliceMaterial | None],
    budget_tokens: int = DEFAULT_BUDGET,
) -> str:
    """The answer: `head`, then per hit its summary and matching turns, within the budget.

    `material` reads a hit's summary and text (None: the slice cannot be read now; it is named).
    """
    room = check_budget(budget_tokens) * CHARS_PER_TOKEN
    blocks = [head]
    room -= len(head)
    left_out: list[str] = []
    unreadable: list[str] = []
    for n, hit in enumerate(hits):
        if room <= 0:
            left_out += [h.slice_id for h in hits[n:]]
            break
        got = material(hit)
        if got is None:
            unreadable.append(hit.slice_id)
            continue
        block, room = _slice_block(question, got, room)
        blocks.append(block)
    if unreadable:
        blocks.append(f"Could not read now: {', '.join(unreadable)}.")
    if left_out:
        names = ", ".join(left_out)
        blocks.append(f"Over the budget, left out (read_slice_summary or read_slice reads them): {names}.")
    return "\n\n".join(blocks)


def _slice_block(question: str, got: SliceMaterial, room: int) -> tuple[str, int]:
    hit = got.hit
    sid = hit.slice_id
    lines = [f"## {sid} (relevance {hit.relevance:.2f}) — {hit.reason}".rstrip(" —"), got.summary]
    text = "\n".join(lines)
    room -= len(text)
    turns = matching_turns(turns_of(got.text), question)
    parts = [text]
    if turns and room > 0:
        parts.append("Matching turns:")
    for turn in turns:
        if room <= 0:
            parts.append(f"(more matching turns: read_slice {sid} with a search range)")
            break
        rendered = render_turn(turn)
        if len(rendered) > room:
            cut = max(0, room)
            how = f"read_slice {sid} with range chars to read it whole"
            rendered = rendered[:cut] + f"\n… (cut at the budget: {how})"
        parts.append(rendered)
        room -= len(rendered)
    return "\n\n".join(parts), room
