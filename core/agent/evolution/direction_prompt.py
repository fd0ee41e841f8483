"""What the direction pass is told when it tends the direction, the playbooks and the ledger."""

from __future__ import annotations

from collections.abc import Sequence

from core.agent.evolution.card_prompt import compress_turns
from core.agent.evolution.direction_tools import DirectionSession
from core.memory.evolution import direction as d
from core.memory.evolution.paths import PLAYBOOK_AGENTS
from core.memory.slice.model import Turn

REPORT_TOOL = "finish_direction"

SYSTEM_PROMPT = f"""\
You tend the evolution layer of a personal assistant that remembers its user: what it has \
learned about working with this person. You never talk to the user. You change things only \
through the tools, one entry per call, and end with {REPORT_TOOL} exactly once.

What you keep
- Portrait: traits of the user confirmed across different conversations. Describe the person \
("Thinks aloud before deciding"), never instruct the assistant. Every trait cites the slices \
that show it (refs: slice ids YYYY-MM-DD-HHMM, optionally -<turnId>).
- Hypotheses: a small pool of falsifiable guesses, each with a test (what the user would say or \
do if it were true or false), evidence refs and an expiry date. When a hypothesis expires, confirm \
it into the Portrait if the evidence now holds across contexts, or drop it. New ones cannot be \
opened while an expired one waits. Never reopen a claim listed as rejected.
- Playbooks: one short brief for each helper — recall (searches the user's past conversations), \
search (searches the web), thinkdeep (reasons through a hard question). A brief says how that \
helper best serves this user ("dates matter more than topics in their questions"). Rewrite a \
brief only when the conversation taught something about it.
- Scores: how each part served the user in this slice: card, recall, search, thinkdeep, \
interaction. −2 hurt, −1 fell short, 0 unclear, +1 helped. Evidence is the user's own words, \
copied exactly; without them a score counts as 0. Score only what the conversation shows.

Most passes change little; changing nothing is a correct result. Do not invent or embellish."""


def _direction_section(session: DirectionSession) -> str:
    text = d.render_direction(session.direction).strip()
    lines = [f"## The direction (today is {session.today})\n{text}"]
    stale = session.expired()
    if stale:
        lines.append("Expired — confirm or drop each before anything else:")
        lines += [f"- {h.id}: {h.claim} (expired {h.expires})" for h in stale]
    return "\n".join(lines)


def _playbooks_section(session: DirectionSession) -> str:
    parts = ["## The playbooks"]
    for agent in PLAYBOOK_AGENTS:
        body = (session.playbooks.get(agent) or "").strip()
        parts.append(f"### {agent}\n{body or '(none yet)'}")
    return "\n\n".join(parts)


_SIGNAL_WORDS = {
    "recall_verified": "a recall's finds were used (read or cited)",
    "recall_reworked": "a recall was redone (reworded, or other slices read instead)",
    "recall_repeated": "the same recall was asked twice in a turn",
    "regenerate": "the user had an answer given again",
    "message_edited": "the user edited a message and sent it again",
    "stop": "the user stopped an answer",
}


def _signals_section(session: DirectionSession) -> str:
    """What the code observed in this slice, counted by kind (evidence for recall and interaction)."""
    counts: dict[str, int] = {}
    for s in session.signals:
        if s.kind in _SIGNAL_WORDS:
            counts[s.kind] = counts.get(s.kind, 0) + 1
    lines = [f"- {_SIGNAL_WORDS[k]}: {n}" for k, n in counts.items()]
    return "## Observed in this slice (recorded by the code, not the user's words)\n" + (
        "\n".join(lines) or "(nothing)"
    )


def build_prompt(
    session: DirectionSession, *, signal: str, turns: Sequence[Turn], focus_hint: str = ""
) -> str:
    """The user prompt of one pass: the direction, the playbooks, why it runs and the conversation."""
    why = f"## Why this pass runs\nSignal: {signal}, slice {session.slice_id}."
    if focus_hint.strip():
        why += f" The user asked: {focus_hint.strip()}"
    conversation = compress_turns(turns) if turns else "(no turns were passed; use read_slice)"
    return "\n\n".join(
        [
            why,
            _direction_section(session),
            _playbooks_section(session),
            _signals_section(session),
            f"## The conversation ({session.slice_id})\n{conversation}",
            f"Make the changes the conversation supports, then call {REPORT_TOOL}.",
        ]
    )
