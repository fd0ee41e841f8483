"""`timeline/agent.md`: the agent's cognition log, one entry per turn, append-only.

An entry is `## Cognition <turnId> — <ISO time>` followed by, for every model invocation of the
turn, each step's reasoning (`### Thinking`, one paragraph per line) and tool calls
(`### Tools`, one line per call with ok / error / ?), then the pages webSearch cited
(`### Sources`) and the thinkDeep reports of the turn (`### Reasoning fragments`). The turn
work fills the record types below from model streams; this module only turns them into the
file's exact text and reads entries back.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from core.memory.formats.escape import escape_cognition, unescape_cognition
from core.memory.formats.yaml_types import js_to_string
from core.text import js_trim, js_trim_end, utf16_len, utf16_slice

STATUS_OK, STATUS_ERROR, STATUS_UNKNOWN = "ok", "error", "?"
MAX_PARAMS = 5
MAX_PARAM_CHARS = 80
MAX_ERROR_CHARS = 200
MAX_ANSWER_CHARS = 2000
MAX_REASONING_CHARS = 1000
_PARAGRAPH_BREAK_RE = re.compile(r"\n{2,}")
# An entry starts where `## Cognition ` starts a line (JS line ends: \n, \r, U+2028, U+2029).
_ENTRY_RE = re.compile("(?:\\A|(?<=[\n\r\u2028\u2029]))## Cognition ")


@dataclass(frozen=True)
class ToolCall:
    """One tool call of a step: `status` is "ok", "error" or "?" (no result came back)."""

    name: str
    input: Any = None
    status: str = STATUS_UNKNOWN
    output: Any = None  # shown (first 200 chars) when the call failed


@dataclass(frozen=True)
class Step:
    """One completed model step: its reasoning fragments as streamed, and its tool calls."""

    reasoning: Sequence[str] = ()
    tool_calls: Sequence[ToolCall] = ()


@dataclass(frozen=True)
class Invocation:
    """One call of the model (a turn may need several, e.g. continuations)."""

    steps: Sequence[Step] = ()


@dataclass(frozen=True)
class DeepReport:
    """What one thinkDeep call reported."""

    question: str
    answer: str = ""
    reasoning: str = ""


@dataclass(frozen=True)
class CitedSource:
    """A page a web search put before the model: its title and URL."""

    title: str
    url: str


@dataclass
class Cognition:
    """Everything agent.md records about one turn."""

    invocations: list[Invocation] = field(default_factory=list)
    reports: list[DeepReport] = field(default_factory=list)
    sources: list[CitedSource] = field(default_factory=list)


def _js_json(value: Any) -> str:
    """`JSON.stringify` (compact; integral floats as integers, like JS numbers)."""
    if isinstance(value, float) and value.is_integer():
        return js_to_string(value)
    if isinstance(value, Mapping):
        return (
            "{"
            + ",".join(f"{json.dumps(str(k), ensure_ascii=False)}:{_js_json(v)}" for k, v in value.items())
            + "}"
        )
    if isinstance(value, list | tuple):
        return "[" + ",".join(_js_json(v) for v in value) + "]"
    return json.dumps(value, ensure_ascii=False)


def _js_string(value: Any) -> str:
    """`String(value)` for a non-object tool input."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return js_to_string(value)
    if isinstance(value, list | tuple):
        return ",".join("" if v is None else _js_string(v) for v in value)
    return str(value)


def format_params(value: Any) -> str:
    """A tool call's input as `key: value, …` (first five keys, long strings cut at 80)."""
    if value is None:
        return ""
    if not isinstance(value, Mapping):
        return _js_string(value)
    shown = []
    for key, item in list(value.items())[:MAX_PARAMS]:
        if isinstance(item, str):
            cut = utf16_slice(item, 0, MAX_PARAM_CHARS) + "…" if utf16_len(item) > MAX_PARAM_CHARS else item
            shown.append(f'{key}: "{cut}"')
        else:
            shown.append(f"{key}: {_js_json(item)}")
    return ", ".join(shown)


def tool_line(call: ToolCall) -> str:
    """One `### Tools` line."""
    if call.status == STATUS_OK:
        status = STATUS_OK
    elif call.status == STATUS_ERROR:
        detail = (
            utf16_slice(call.output, 0, MAX_ERROR_CHARS) if isinstance(call.output, str) else "unknown error"
        )
        status = f"error: {detail}"
    else:
        status = STATUS_UNKNOWN
    return f"- `{call.name}`({format_params(call.input)}) → {status}"


def render_invocation(invocation: Invocation) -> str:
    """One invocation's part of an entry (exactly "\\n" when it had no steps)."""
    lines: list[str] = []
    for step in invocation.steps:
        thought = "".join(step.reasoning)
        if thought.strip():
            lines.append("\n### Thinking")
            lines.extend(p for p in (js_trim(x) for x in _PARAGRAPH_BREAK_RE.split(thought)) if p)
        if step.tool_calls:
            lines.append("\n### Tools")
            lines.extend(tool_line(c) for c in step.tool_calls)
    return "\n".join(lines) + "\n"


def render_reports(reports: Iterable[DeepReport]) -> str:
    """The `### Reasoning fragments` section ("" when no report has an answer or reasoning)."""
    kept = [r for r in reports if r.answer.strip() or r.reasoning.strip()]
    if not kept:
        return ""
    out = ["\n### Reasoning fragments"]
    for r in kept:
        out.append(f"\n\n**Q**: {r.question}")
        if r.answer:
            out.append(f"\n\n{utf16_slice(r.answer, 0, MAX_ANSWER_CHARS)}")
        if r.reasoning:
            out.append(f"\n\n<reasoning>\n{utf16_slice(r.reasoning, 0, MAX_REASONING_CHARS)}\n</reasoning>")
    return "".join(out) + "\n"


def render_sources(sources: Iterable[CitedSource]) -> str:
    """The `### Sources` section: one `- <url> — title` line per distinct URL ("" for none)."""
    seen: dict[str, str] = {}
    for source in sources:
        seen.setdefault(source.url, " ".join(source.title.split()))
    if not seen:
        return ""
    lines = [f"- <{url}> — {title}" if title else f"- <{url}>" for url, title in seen.items()]
    return "\n### Sources\n" + "\n".join(lines) + "\n"


def render_cognition(cognition: Cognition) -> str:
    """An entry's body: every invocation, then the cited sources, then the reports."""
    body = "".join(render_invocation(i) for i in cognition.invocations)
    return body + render_sources(cognition.sources) + render_reports(cognition.reports)


def cognition_entry(turn_id: str, now_iso: str, body: str) -> str:
    """A full agent.md entry: header line plus body (a `## Cognition ` inside the body is escaped)."""
    return f"## Cognition {turn_id} — {now_iso}\n{escape_cognition(body)}"


def append_cognition(existing: str | None, entry: str) -> str:
    """agent.md with `entry` appended (a blank line between entries; no frontmatter ever)."""
    if existing and existing.strip():
        return f"{js_trim_end(existing)}\n\n{entry}"
    return entry


def cognition_for(agent_md_text: str, turn_id: str) -> str | None:
    """The body of the entry for `turn_id` (header removed, trimmed), or None when there is none."""
    starts = [m.start() for m in _ENTRY_RE.finditer(agent_md_text)]
    for i, start in enumerate(starts):
        line_end = agent_md_text.find("\n", start)
        header = agent_md_text[start : len(agent_md_text) if line_end == -1 else line_end]
        label = header[len("## Cognition ") :]
        if label == turn_id or label.startswith(turn_id + " "):
            end = starts[i + 1] if i + 1 < len(starts) else len(agent_md_text)
            return js_trim(unescape_cognition(agent_md_text[start + len(header) : end]))
    return None


def remove_cognition(agent_md_text: str, turn_id: str) -> str:
    """agent.md without the entries for `turn_id` (forgetting a turn); every other entry, and
    any text above the first one, is kept byte for byte. Returns "" when nothing is left."""
    starts = [m.start() for m in _ENTRY_RE.finditer(agent_md_text)]
    out, last = [], 0
    for i, start in enumerate(starts):
        line_end = agent_md_text.find("\n", start)
        label = agent_md_text[
            start + len("## Cognition ") : len(agent_md_text) if line_end == -1 else line_end
        ]
        if label == turn_id or label.startswith(turn_id + " "):
            out.append(agent_md_text[last:start])
            last = starts[i + 1] if i + 1 < len(starts) else len(agent_md_text)
    if last == 0:
        return agent_md_text
    text = "".join(out) + agent_md_text[last:]
    if last == len(agent_md_text):  # the last entry went: end as a file with one entry fewer does
        text = js_trim_end(text) + "\n" if text.strip() else ""
    return text


def join_assistant_texts(texts: Iterable[str]) -> str:
    """The stored agent turn: the model's text parts exactly as written, joined by a blank line.

    Nothing is trimmed (docs/FORMAT.md "Turns"): a reply of one part is stored byte for byte.
    Empty parts are dropped, and so are parts of nothing but blank space when another part
    has words (the space a model emits beside a tool call). The original trimmed every part.
    """
    parts = [t for t in texts if t]
    worded = [t for t in parts if js_trim(t)]
    return "\n\n".join(worded or parts)


def all_assistant_text(messages: Sequence[Mapping[str, Any]], start_index: int = 0) -> str:
    """The agent turn text from chat messages produced by this turn (from `start_index` on)."""
    texts: list[str] = []
    for msg in messages[start_index:]:
        if msg.get("role") != "assistant":
            continue
        content = msg.get("content")
        if isinstance(content, str):
            texts.append(content)
        elif isinstance(content, list):
            texts.extend(
                p.get("text", "") for p in content if isinstance(p, Mapping) and p.get("type") == "text"
            )
    return join_assistant_texts(texts)


def agent_turn_content(finish_reason: str, text: str) -> str | None:
    """What the agent turn stores: the text on a normal stop, `[partial] …` otherwise, None if nothing."""
    if finish_reason == "stop":
        return text
    return f"[partial] {text}" if text else None
