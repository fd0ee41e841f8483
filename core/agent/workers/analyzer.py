"""The turn analyzer (docs/ARCHITECTURE.md, step "analyze"): one worker-model call per turn, never failing
the turn.

It tags the user's message (merge-first against the existing strands), gates trivial turns out
of memory, spots explicit "remember this" requests and behavioural corrections, reads intent
and emotional weight, and — when a slice closes this turn — marks it and judges whether the
user card should evolve. Any failure, or no model at all, gives the fallback analysis.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

from core.agent.runner import ReportSpec, run_subagent
from core.agent.workers import analysis
from core.agent.workers.analysis import AnalyzerReport
from core.llm.registry import BoundModel
from core.memory.slice.model import Turn
from core.text import collapse_ws, utf16_len, utf16_slice

REPORT_TOOL = "report_turn_analysis"
BUDGET_SECONDS = 30.0
MESSAGE_CAP = 1000
TURN_CAP = 300
CLOSING_CAP = 6000
SUMMARY_CAP = 100
MAX_REUSE, MAX_CREATE, MAX_HINTS, MAX_MARK_TAGS = 5, 3, 5, 6
FALLBACK_EVOLVE_REASON = "Analyzer unavailable — defaulting to evolve."
SILENT_EVOLVE_REASON = "The analyzer gave no judgment — defaulting to evolve."

SYSTEM_PROMPT = """\
You are the memory clerk of a personal assistant with a long-term episodic memory. You never \
talk to the user. For each new user message you fill in one report by calling the report tool \
exactly once.

The memory is a timeline of slices (a slice is one sitting of conversation, named by its UTC \
start minute, YYYY-MM-DD-HHMM) and a list of topics ("strands") that link slices about the same \
thing.

Your report covers:
1. Topics for this message. Prefer the existing topic names: put every one that fits in \
message_tags.reuse, copied character for character. Add a name to message_tags.create only \
for a durable subject none of them covers (a person, project, place, health matter, plan) — \
never for a passing detail. Short lowercase names in the user's language.
2. memory_worthy: false for small talk, thanks, greetings, "ok", "continue" and the like; such \
messages get no topics at all.
3. semantic_hint: the existing topics this message relates to, and why.
4. intent: what the user wants right now (code_debug, code_write, explain, chat, review, clarify).
5. emotional_signal: how emotionally loaded the message is, and in which register.
6. memory_update: only when the user explicitly asks you to remember or record something ("remember \
that…", "from now on…", "note that I…"), or corrects how the assistant should behave. Give the \
exact content to record and the card section it belongs to.
When the prompt says a slice is closing, also:
7. closed_marking: its focus (a few words), a one-line summary of at most 100 characters, up to \
6 topics (reuse existing names) and its overall tone.
8. evolve_card: whether that slice taught something lasting about the user worth adding to \
their profile card (worth true/false and why).
Leave out the parts that do not apply. Be factual; do not invent details."""


@dataclass(frozen=True)
class ClosingSlice:
    """The slice closing this turn, as the analyzer sees it."""

    slice_id: str
    turns: Sequence[Turn]
    tags: Sequence[str] = ()


@dataclass(frozen=True)
class AnalyzerInput:
    """One turn's input: the user's message, the known strand names, the closing slice if any."""

    message: str
    strand_names: Sequence[str] = ()
    closing: ClosingSlice | None = None


@dataclass(frozen=True)
class NewTag:
    tag: str
    reason: str = ""


@dataclass(frozen=True)
class Intent:
    type: analysis.IntentType
    reason: str = ""


@dataclass(frozen=True)
class EmotionalSignal:
    intensity: analysis.Intensity = "none"
    register: analysis.Register = "neutral"
    note: str = ""


@dataclass(frozen=True)
class MemoryUpdate:
    content: str
    section: analysis.Section | None = None


@dataclass(frozen=True)
class EvolveJudgment:
    worth: bool
    reason: str = ""


@dataclass(frozen=True)
class CloseMarking:
    focus: str
    summary: str
    tags: tuple[str, ...] = ()
    tone: analysis.Tone = "neutral"


@dataclass(frozen=True)
class TurnAnalysis:
    """The analyzer's result. `source` says whether a model produced it or the fallback did."""

    reuse_tags: tuple[str, ...] = ()
    new_tags: tuple[NewTag, ...] = ()
    hint_strands: tuple[str, ...] = ()
    hint_reason: str = ""
    intent: Intent | None = None
    memory_worthy: bool = True
    emotional: EmotionalSignal = EmotionalSignal()
    memory_update: MemoryUpdate | None = None
    evolve_card: EvolveJudgment | None = None
    marking: CloseMarking | None = None
    source: Literal["model", "fallback"] = "model"
    error: str | None = None

    @property
    def tags(self) -> tuple[str, ...]:
        """Every tag for the message: reused names first, then new ones."""
        return self.reuse_tags + tuple(t.tag for t in self.new_tags)


def fallback(closing: bool, error: str | None = None) -> TurnAnalysis:
    """The safe defaults when the analyzer cannot run: keep the turn, evolve at a close."""
    evolve = EvolveJudgment(True, FALLBACK_EVOLVE_REASON) if closing else None
    return TurnAnalysis(evolve_card=evolve, source="fallback", error=error)


def analyze_turn(
    inp: AnalyzerInput,
    worker: BoundModel | None,
    *,
    budget_seconds: float = BUDGET_SECONDS,
    monotonic: Callable[[], float] = time.monotonic,
) -> TurnAnalysis:
    """Analyze one turn on the worker model; the fallback on any failure or without a model."""
    closing = inp.closing is not None
    if worker is None:
        return fallback(closing, "no model configured")
    result = run_subagent(
        worker,
        system=SYSTEM_PROMPT,
        prompt=build_prompt(inp),
        report=ReportSpec(REPORT_TOOL, AnalyzerReport, "File the analysis of the user's new message."),
        max_steps=1,
        budget_seconds=budget_seconds,
        temperature=0.1,
        monotonic=monotonic,
    )
    if not result.ok or result.report is None:
        return fallback(closing, result.error or "no report")
    return finalize(result.report, inp)


def build_prompt(inp: AnalyzerInput) -> str:
    """The user prompt: the message, the topic names and, when closing, the compressed slice."""
    message = utf16_slice(inp.message, 0, MESSAGE_CAP)
    names = ", ".join(inp.strand_names) if inp.strand_names else "(none yet)"
    parts = [
        f'The user\'s new message:\n"""\n{message}\n"""',
        f"Existing topics: {names}",
    ]
    if inp.closing is None:
        parts.append("No slice is closing this turn: leave out closed_marking and evolve_card.")
    else:
        tags = ", ".join(inp.closing.tags) if inp.closing.tags else "(none)"
        parts.append(
            f"The slice {inp.closing.slice_id} is closing this turn. Its conversation, shortened:\n"
            f"{compress_turns(inp.closing.turns)}\n\nIts tags so far: {tags}\n"
            "Fill in closed_marking and evolve_card for it."
        )
    parts.append(f"Call {REPORT_TOOL} once with your report.")
    return "\n\n".join(parts)


def compress_turns(turns: Sequence[Turn]) -> str:
    """First turn + last 10 (when more than 11), each `role: first 300 chars`, last 6000 chars."""
    chosen = list(turns)
    omitted = 0
    if len(chosen) > 11:
        omitted = len(chosen) - 11
        chosen = [chosen[0], *chosen[-10:]]
    lines = [f"{t.role}: {utf16_slice(t.content, 0, TURN_CAP)}" for t in chosen]
    if omitted:
        lines.insert(1, f"… ({omitted} turns left out) …")
    text = "\n".join(lines)
    return utf16_slice(text, -CLOSING_CAP) if utf16_len(text) > CLOSING_CAP else text


def finalize(report: AnalyzerReport, inp: AnalyzerInput) -> TurnAnalysis:
    """Apply the post-processing rules to a validated report."""
    closing = inp.closing is not None
    reuse, create = _merge_first(report, inp.strand_names)
    if not report.memory_worthy:
        reuse, create = (), ()
    signal = report.emotional_signal
    intent = Intent(report.intent.type, report.intent.reason) if report.intent else None
    update = report.memory_update
    return TurnAnalysis(
        reuse_tags=reuse,
        new_tags=create,
        hint_strands=_clean_names(report.semantic_hint.strands, MAX_HINTS),
        hint_reason=report.semantic_hint.reason,
        intent=intent,
        memory_worthy=report.memory_worthy,
        emotional=EmotionalSignal(signal.intensity, signal.tone_register, signal.note),
        memory_update=MemoryUpdate(update.content, update.section) if update and update.content else None,
        evolve_card=_evolve(report, closing),
        marking=_marking(report) if closing else None,
    )


def _key(name: str) -> str:
    return collapse_ws(name).casefold()


def _clean_names(names: Sequence[str], cap: int) -> tuple[str, ...]:
    seen: dict[str, str] = {}
    for name in names:
        name = collapse_ws(name)
        if name and _key(name) not in seen:
            seen[_key(name)] = name
    return tuple(seen.values())[:cap]


def _merge_first(
    report: AnalyzerReport, existing: Sequence[str]
) -> tuple[tuple[str, ...], tuple[NewTag, ...]]:
    """Reused names map onto existing strands; a "new" tag that already exists is a reuse."""
    known = {_key(n): n for n in existing}
    reuse: dict[str, str] = {}
    create: dict[str, NewTag] = {}
    for name in report.message_tags.reuse:
        _place(name, "", known, reuse, create)
    for new in report.message_tags.create:
        _place(new.tag, new.reason, known, reuse, create)
    return tuple(reuse.values())[:MAX_REUSE], tuple(create.values())[:MAX_CREATE]


def _place(
    name: str, reason: str, known: dict[str, str], reuse: dict[str, str], create: dict[str, NewTag]
) -> None:
    name = collapse_ws(name)
    if not name:
        return
    key = _key(name)
    if key in known:
        reuse.setdefault(key, known[key])
    elif key not in create:
        create[key] = NewTag(name, reason)


def _evolve(report: AnalyzerReport, closing: bool) -> EvolveJudgment | None:
    if not closing:
        return None
    if report.evolve_card is None:
        return EvolveJudgment(True, SILENT_EVOLVE_REASON)
    return EvolveJudgment(report.evolve_card.worth, report.evolve_card.reason)


def _marking(report: AnalyzerReport) -> CloseMarking | None:
    mark = report.closed_marking
    if mark is None or not (mark.focus or mark.summary):
        return None
    return CloseMarking(
        focus=collapse_ws(mark.focus),
        summary=shorten(collapse_ws(mark.summary), SUMMARY_CAP),
        tags=_clean_names(mark.tags, MAX_MARK_TAGS),
        tone=mark.tone,
    )


def shorten(text: str, cap: int) -> str:
    """At most `cap` UTF-16 units, cut at a word boundary when one is near, marked with "…"."""
    if utf16_len(text) <= cap:
        return text
    cut = utf16_slice(text, 0, cap - 1)
    space = cut.rfind(" ")
    if space >= cap // 2:
        cut = cut[:space]
    return cut.rstrip(" ,;:.-") + "…"
