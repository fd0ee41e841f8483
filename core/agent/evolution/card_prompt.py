"""The card pass's prompts: a static system prompt and a user prompt with everything dynamic.

The user prompt carries the time context (the user's today, Now items 7+ days old, overdue
Horizon items), why the pass runs, the card as it stands (a legacy card shown raw next to its
automatic conversion), and the conversation, shortened.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from core.memory.card.timing import CardTimeFlags, aged_line, overdue_line
from core.memory.slice.model import Turn
from core.text import utf16_len, utf16_slice

Signal = Literal["slice_closed", "new_observation", "self_reflection", "on_request"]
TURN_CAP = 600
CONVERSATION_CAP = 12_000
HEAD_TURNS, TAIL_TURNS = 1, 16

SYSTEM_PROMPT = """\
You keep the user card of a personal assistant that remembers its user from one conversation \
to the next. The card is a short page saying who the user is; the assistant reads it at the \
start of every conversation. You never talk to the user. You change the card only through the \
editing tools, one entry per call, and you end every pass by calling finish exactly once.

The assistant's memory is a timeline of slices: one sitting of conversation each, named by its \
UTC start minute (YYYY-MM-DD-HHMM). The slices are the full record; the card is a compact \
account of the person, pointing back into them.

Sections
- Identity: how to refer to the user (name, how they want to be addressed, pronouns, aliases). \
Set a field only when the user states it plainly ("call me Sam"), never from a guess, from a \
name someone else used or from one ambiguous mention. Leave existing Identity lines alone unless \
the user corrects them.
- Past: a profile paragraph in the third person, rewritten in place (keep what is still true, \
fold in what is new, a single line), plus anchor facts that will very likely still be true in \
three years: dates, decisions, principles, red lines.
- Now: what is going on in the user's life at the moment, as short hooks rather than stories. \
Items that have sat there for 7 days or more are listed to you: move lasting substance to Past \
(promote_now_to_past) or remove the item; keep it only if the conversation shows it is still \
current.
- Horizon: what lies ahead with a date (commitments, deadlines, replies being awaited). Resolve \
an item, with a note on the outcome, only when the conversation tells you how it went. An \
overdue item with no news stays, so the assistant can ask about it.
- Self-model: lessons about working with this particular user, stated as differences from the \
assistant's standing rules ("wants the short answer first"). Do not restate general good \
conduct. No lesson may stop the assistant from searching or reading its memory unless the user \
asked for exactly that; then write it with "overrides: <what the user said>".

Rules
- Evidence: every Past anchor, Now item and Horizon item needs refs: the ids of the slices that \
show it (YYYY-MM-DD-HHMM, optionally -<turnId>). No evidence, no entry.
- Write the entries in English whatever language the conversation used; keep names and quoted \
words as the user wrote them.
- Sections have size limits. When a tool says a section is full, remove, promote or resolve \
something first; when it says a text is too long, shorten it yourself. Never resend a refused \
call unchanged.
- Record only what the conversation supports. Most passes change little, and changing nothing \
is the right result when nothing lasting was learned. Do not invent, embellish or guess at \
sensitive details.
- If the card was converted from an older format, compare the converted entries with the raw \
text you are shown, move misplaced items to the right section and add refs where you can.
- read_slice, read_previously and read_agent_timeline show you the record when the excerpt \
below is not enough.
- Finish with finish(reasoning, summary): summary is one sentence, in the user's language, \
telling the user what changed on the card, or empty when nothing changed."""

_SIGNAL_NOTES: dict[str, str] = {
    "slice_closed": (
        "The slice {slice_id} has just closed. Review it as a whole: new facts about the user, "
        "changes to what is current, new commitments, outcomes of Horizon items, lessons about "
        "working with them."
    ),
    "new_observation": (
        "During the slice {slice_id} the user asked for something to be remembered, or corrected "
        "how the assistant behaves. Record that now; leave the rest of the card alone unless it "
        "is plainly contradicted."
    ),
    "self_reflection": (
        "A periodic review (current slice {slice_id}): tidy the card — aged Now items, overdue "
        "Horizon items, duplicates, entries that contradict each other — without inventing anything."
    ),
    "on_request": (
        "The user asked for a review now. Learn from their most recent conversation (slice "
        "{slice_id}) what it shows that lasts, and tidy what has aged — without inventing anything. "
        "If the card already says it, change nothing."
    ),
}


@dataclass(frozen=True)
class CardView:
    """The card as the prompt shows it: the text the session starts from, and any raw legacy text."""

    text: str
    legacy_raw: str | None = None


def compress_turns(turns: Sequence[Turn]) -> str:
    """`**role** (turn id): content` blocks; first turn + last 16 when longer, each and all capped."""
    chosen: list[Turn | None] = list(turns)
    if len(turns) > HEAD_TURNS + TAIL_TURNS:
        chosen = [*turns[:HEAD_TURNS], None, *turns[-TAIL_TURNS:]]
    blocks = []
    for t in chosen:
        if t is None:
            left_out = len(turns) - HEAD_TURNS - TAIL_TURNS
            blocks.append(f"… ({left_out} turns left out; read_slice shows them) …")
            continue
        content = (
            t.content if utf16_len(t.content) <= TURN_CAP else utf16_slice(t.content, 0, TURN_CAP) + " …"
        )
        label = f" (turn {t.turn_id})" if t.turn_id else ""
        blocks.append(f"**{t.role}**{label}: {content}")
    text = "\n\n".join(blocks)
    return utf16_slice(text, -CONVERSATION_CAP) if utf16_len(text) > CONVERSATION_CAP else text


def _time_section(flags: CardTimeFlags, timezone: str) -> str:
    lines = [f"## Time\nThe user's today: {flags.today} ({timezone})."]
    if flags.aged_now:
        lines.append(
            "Now items 7 or more days old — promote each to Past, remove it, or keep it if still current:"
        )
        lines += [aged_line(n, flags.today) for n in flags.aged_now]
    if flags.overdue:
        lines.append("Overdue Horizon items — resolve only those whose outcome you know; keep the rest:")
        lines += [overdue_line(h, flags.today) for h in flags.overdue]
    return "\n".join(lines)


def _card_section(card: CardView) -> str:
    if card.legacy_raw is not None:
        return (
            "## The card\nThe stored card is in an older format. Its raw text:\n\n"
            f"{card.legacy_raw.strip()}\n\n"
            f"Your session starts from its automatic conversion:\n\n{card.text.strip()}"
        )
    return f"## The card\n{card.text.strip()}"


def build_prompt(
    *,
    signal: Signal,
    slice_id: str,
    turns: Sequence[Turn],
    tags: Sequence[str],
    focus_hint: str,
    card: CardView,
    flags: CardTimeFlags,
    timezone: str,
) -> str:
    """The user prompt of one evolution pass."""
    why = [f"## Why this pass runs\nSignal: {signal}. " + _SIGNAL_NOTES[signal].format(slice_id=slice_id)]
    if focus_hint.strip():
        why.append(f"What to record: {focus_hint.strip()}")
    if tags:
        why.append(f"Topics of the slice: {', '.join(tags)}")
    why.append(f"Cite refs from {slice_id} (add -<turnId> for one turn) or from slices you have read.")
    conversation = (
        compress_turns(turns) if turns else "(no turns were passed; use read_slice if you need them)"
    )
    return "\n\n".join(
        [
            _time_section(flags, timezone),
            "\n".join(why),
            _card_section(card),
            f"## The conversation ({slice_id})\n{conversation}",
            "Make the changes the conversation supports, then call finish.",
        ]
    )
