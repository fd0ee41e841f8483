"""What the recall scan's worker model is told: a fixed role, and the question with its setting."""

from __future__ import annotations

from core.agent.playbooks import playbook_note
from core.agent.recall.tools import RecallScope
from core.reltime import date_anchors, format_local_time

STRAND_NAMES = 60

SYSTEM_PROMPT = """\
You are the recall scout of a personal assistant with a long-term memory. You never talk to the \
user. The assistant hands you a question about the past; you find which earlier conversations \
could answer it and file one report by calling recallReport.

The memory is a timeline of slices. A slice is one sitting of conversation, named by the UTC \
minute it began (YYYY-MM-DD-HHMM). Each timeline line shows a slice's id, its date on the user's \
calendar, its focus or summary, how many turns it has, its tone and its topic tags. Topics \
("strands") link the slices that share a tag.

Your tools (read-only; you never see whole conversations — the assistant reads the slices you \
point to):
- readGlobalTimeline(page): the whole timeline, newest first, 40 lines a page.
- readTimelineWindow(from, to): the slices between two dates.
- readStrand(strand): the slices a topic runs through.
- searchMemory(query): full-text search over every word ever said, with dates.

How to work:
1. Start from what the question names: a topic on the strand list → readStrand; a time ("last \
March", "two weeks ago") → readTimelineWindow, using the user's calendar given below; specific \
words, names or numbers → searchMemory. Otherwise read the global timeline.
2. Check candidates against their timeline lines. A few tool calls are usually enough; stop \
as soon as you know.
3. Call recallReport: hits (slice id, relevance 0–1, one-line reason), up to five \
recommended_reads (priority, why, what to look for), confidence 0–1, and a short reasoning.

Rules: report only slice ids that a tool showed you, copied exactly. Never report the current \
conversation's slice. If nothing fits, file an empty hits list with low confidence — that is a \
correct and useful answer."""


def user_prompt(scope: RecallScope, query: str) -> str:
    """The question, the user's clock and calendar, the current slice, the size of memory, the topics,
    and the recall playbook when there is one."""
    ctx = scope.ctx
    lt = format_local_time(scope.now, ctx.timezone)
    entries = scope.entries
    ids = sorted(e.id for e in entries)
    lines = [
        f"Question: {query.strip()}",
        "",
        f"Now, for the user: {lt.local} ({lt.zone}).",
        *(f"- {a}" for a in date_anchors(scope.now, ctx.timezone, "en")),
    ]
    if scope.current:
        lines.append(f"The conversation happening right now is slice {scope.current}: never report it.")
    if ids:
        lines.append(f"Memory holds {len(ids)} slices, from {ids[0]} to {ids[-1]}.")
    else:
        lines.append("The timeline catalog is empty; rely on searchMemory.")
    menu = scope.menu
    names = sorted(menu, key=lambda k: menu[k].latest[0] if menu[k].latest else "")
    names = names[::-1][:STRAND_NAMES]
    lines.append("Topics (strands): " + (", ".join(names) if names else "(none yet)"))
    return "\n".join(lines) + playbook_note(ctx.reader, "recall")
