"""thinkDeep: one think-only call on the main model, bounded in time, returning its reasoning.

The main agent uses it for a hard sub-question. The call sees the turn's system prompt plus a
short "reasoning fragment" instruction (or a standalone one outside a turn) — its playbook, if
any, goes into the question, so the frozen prompt stays byte-identical — gets no tools,
and stops at its time budget, keeping whatever it had produced by then.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from typing import Any

from core.agent.playbooks import playbook_note
from core.agent.tool_context import ToolContext
from core.errors import ModelTimeout, PreviouslyError
from core.llm.types import Effort, Finish, ReasoningDelta, TextDelta, UserMessage
from core.memory.slice.agent_md import DeepReport
from core.reltime import format_local_time, local_date_key, weekday_label
from core.text import utf16_len, utf16_slice

BUDGET_SECONDS = 180.0
REASONING_CHARS = 6000
FRAGMENT_MODE = (
    "## Reasoning fragment mode\n\n"
    "You are now thinking one question through on your own, away from the conversation. Nobody reads "
    "this as a reply: it comes back to you as a note for the answer you will write. Reason carefully, "
    "check your steps, then state your conclusion in a few plain sentences, with how sure you are. "
    "You have no tools here; say which facts you would need to confirm in memory."
)
STANDALONE = (
    "You think a single question through carefully and answer it in a few plain sentences, saying how "
    "sure you are and what you would need to check. You have no tools."
)
TIMEOUT_NOTE = "The time budget ran out; this is what the reasoning had reached. Treat it as unfinished."


@dataclass
class DeepResult:
    """What thinkDeep returns: status completed / timeout / error, the answer and the reasoning."""

    question: str
    ok: bool
    status: str
    answer: str = ""
    reasoning: str = ""
    error: str | None = None
    note: str | None = None

    def to_json(self) -> str:
        """The tool text (absent fields left out)."""
        data = {k: v for k, v in asdict(self).items() if v is not None}
        return json.dumps(data, ensure_ascii=False)


def think_deep(
    ctx: ToolContext, question: str, effort: Effort = "low", budget: float = BUDGET_SECONDS
) -> DeepResult:
    """Reason about `question` with the main model, within `budget` seconds."""
    if ctx.models is None:
        return DeepResult(question, False, "error", error="No model is configured; answer directly instead.")
    model = ctx.models.main
    system = f"{ctx.system_prompt}\n\n{FRAGMENT_MODE}" if ctx.system_prompt.strip() else STANDALONE
    request = model.request(
        [UserMessage(f"{_today(ctx)}\n\nQuestion: {question}{playbook_note(ctx.reader, 'thinkdeep')}")],
        system=system,
        thinking=True,
        effort=effort,
        timeout=budget,
        cache_system=bool(ctx.system_prompt.strip()),
    )
    answer: list[str] = []
    reasoning: list[str] = []
    deadline = ctx.monotonic() + budget
    try:
        for event in model.client.stream(request):
            if isinstance(event, TextDelta):
                answer.append(event.text)
            elif isinstance(event, ReasoningDelta):
                reasoning.append(event.text)
            elif isinstance(event, Finish) and event.reason == "error":
                return _result(question, "error", answer, reasoning, error=event.error or "the model refused")
            if ctx.monotonic() > deadline:
                return _result(question, "timeout", answer, reasoning, note=TIMEOUT_NOTE)
    except ModelTimeout:
        return _result(question, "timeout", answer, reasoning, note=TIMEOUT_NOTE)
    except PreviouslyError as exc:
        return _result(question, "error", answer, reasoning, error=str(exc))
    return _result(question, "completed", answer, reasoning)


def _today(ctx: ToolContext) -> str:
    now = ctx.clock.now()
    day = local_date_key(now, ctx.timezone) or ""
    lt = format_local_time(now, ctx.timezone)
    return f"Today is {day} ({weekday_label(day, 'en')}), {lt.local[-5:]} in {lt.zone}."


def _result(question: str, status: str, answer: list[str], reasoning: list[str], **extra: Any) -> DeepResult:
    text = "".join(reasoning).strip()
    if utf16_len(text) > REASONING_CHARS:
        text = utf16_slice(text, 0, REASONING_CHARS) + " …"
    return DeepResult(question, status == "completed", status, "".join(answer).strip(), text, **extra)


def deep_report_from(output: str) -> DeepReport | None:
    """The agent.md report of one thinkDeep tool result (None when it holds nothing to keep)."""
    try:
        data = json.loads(output)
    except ValueError:
        return None
    if not isinstance(data, dict):
        return None
    answer, reasoning = str(data.get("answer") or ""), str(data.get("reasoning") or "")
    if not answer.strip() and not reasoning.strip():
        return None
    return DeepReport(str(data.get("question") or ""), answer, reasoning)
