"""The main agent's tools: typed functions whose docstrings and signatures are what the model reads.

`main_tools(ctx)` binds them to one turn's `ToolContext`. Run a call with `tool.run(call)`:
invalid arguments and domain errors come back as `ERROR: …` results that say what to try,
never as exceptions. Reads are cheapest first — a summary, then a range, then a whole slice.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field

from core.agent import memory_files, slice_tools, time_tools
from core.agent.recall.filters import triage
from core.agent.recall.once import REPEAT_NOTE
from core.agent.recall.scan import run_recall
from core.agent.slice_tools import SliceRange
from core.agent.think_deep import think_deep
from core.agent.tool_context import ToolContext, ToolLabel
from core.agent.web_tools import WEB_TOOL_LABELS, WEB_TOOL_NAMES, web_tools
from core.clock import iso
from core.errors import PreviouslyError
from core.llm.tools import CallId, Tool, spec_from_model
from core.llm.types import Effort
from core.memory.evolution.fitness import Signal
from core.memory.evolution.store import record_signal

__all__ = ["TOOL_LABELS", "TOOL_NAMES", "ToolContext", "main_tools"]

SliceId = Annotated[str, Field(description="a slice id, YYYY-MM-DD-HHMM (the UTC minute it began)")]
MemoryPathArg = Annotated[str, Field(description="a path under memory/, tasks/ or sessions/")]


class TimelineWindowArgs(BaseModel):
    """Pointer lines for the slices between two dates (the UTC dates of their ids), newest first.

    Use it to orient by time ("what was going on in March?") or to find a slice id. Each line:
    id, local date, focus or summary, turns, tone, tags. Then readSliceSummary / readSlice.
    """

    model_config = ConfigDict(extra="ignore", populate_by_name=True)
    from_: str | None = Field(None, alias="from", description="first day, YYYY-MM-DD (omit: the beginning)")
    to: str | None = Field(None, description="last day, YYYY-MM-DD (omit: today)")
    limit: int = Field(time_tools.WINDOW_DEFAULT, ge=1, le=time_tools.WINDOW_MAX, description="at most 50")


def main_tools(ctx: ToolContext) -> list[Tool]:
    """Every tool of the main agent, bound to `ctx`, in the order of `TOOL_NAMES` (the web tools
    only when `ctx.web` provides them)."""
    functions = (*_memory_readers(ctx), *_helpers(ctx), *web_tools(ctx))
    tools = [Tool.from_function(fn) for fn in functions]

    def read_window(
        from_: str | None = None, to: str | None = None, limit: int = time_tools.WINDOW_DEFAULT
    ) -> str:
        return time_tools.timeline_window(ctx, from_, to, limit)

    window = Tool(spec_from_model(TimelineWindowArgs, "readTimelineWindow"), TimelineWindowArgs, read_window)
    by_name = {t.spec.name: t for t in [*tools, window]}
    return [by_name[name] for name in TOOL_NAMES if name in by_name]


def _memory_readers(ctx: ToolContext) -> list[Callable[..., Any]]:
    def recall(
        query: Annotated[str, Field(min_length=1, description="what to remember, in plain words")],
        call_id: CallId = "",
    ) -> str:
        """Search the user's whole past for conversations about something. A worker scans the
        timeline and topics and returns pointers (slice id, relevance, reason) and recommended
        reads. Call it once per topic; an empty result is final — do not call it again for the
        same thing. Then open the slices that matter with readSliceSummary or readSlice."""

        def scan() -> str:
            try:
                return run_recall(ctx, query, call_id).tool_text(ctx)
            except PreviouslyError as exc:
                return triage(str(exc))

        answer = ctx.recalls.answer(query, scan)
        if answer.startswith(REPEAT_NOTE) and ctx.batch is not None:  # instrumentation, not a model's view
            signal = Signal("recall_repeated", iso(ctx.clock.now()), ctx.slice_id or "")
            record_signal(ctx.batch, signal)
        return answer

    def readSliceSummary(sliceId: SliceId) -> str:
        """A slice's summary only: when it ran (local and UTC), turns, focus, summary, tags, tone,
        open loops, decisions. The cheapest check of whether a slice is worth opening."""
        return slice_tools.read_slice_summary(ctx, sliceId)

    def readSlice(sliceId: SliceId, range: SliceRange | None = None) -> str:
        """Read what was actually said in a slice: the whole file, or the part `range` picks (specific
        turns, the last N, turns after a time, turns matching keywords, or a line range). Turn
        headers carry the user's local time. Read this before quoting or dating anything."""
        return slice_tools.read_slice(ctx, sliceId, range)

    def readPreviously(sliceId: SliceId | None = None) -> str:
        """The user card: without sliceId the live one; with a sliceId, the card as it stood during
        that slice."""
        return slice_tools.read_previously(ctx, sliceId)

    def readAgentTimeline(sliceId: SliceId) -> str:
        """Your own notes from a slice: what you thought and which tools you used, turn by turn."""
        return slice_tools.read_agent_timeline(ctx, sliceId)

    return [recall, readSliceSummary, readSlice, readPreviously, readAgentTimeline]


def _helpers(ctx: ToolContext) -> list[Callable[..., Any]]:
    def currentTime() -> str:
        """The current time on the user's clock and in UTC, how long this slice has been running,
        and a table of nearby dates. Call it whenever the exact time matters."""
        return time_tools.current_time(ctx)

    def thinkDeep(
        question: Annotated[str, Field(min_length=1, description="the sub-question to think through")],
        effort: Annotated[Effort, Field(description="low, medium or high")] = "low",
    ) -> str:
        """Think one hard question through in a separate, tool-free reasoning pass (it takes time).
        Returns the conclusion and the reasoning behind it."""
        return think_deep(ctx, question, effort).to_json()

    def readMemoryFile(path: MemoryPathArg) -> str:
        """Read one file of the user's memory repository (under memory/, tasks/ or sessions/)."""
        return memory_files.read_memory_file(ctx, path)

    def writeMemoryFile(
        path: MemoryPathArg, content: Annotated[str, Field(description="the whole new text of the file")]
    ) -> str:
        """Write a whole file under memory/, tasks/ or sessions/ (notes, lists, plans the user asked
        for). Slices, indexes, the user card and settings are off limits. Saved with this turn."""
        return memory_files.write_memory_file(ctx, path, content)

    def listMemoryFiles(
        prefix: Annotated[str, Field(description="a folder, e.g. memory/notes or tasks")] = "memory",
    ) -> str:
        """List the files under a folder of the memory repository."""
        return memory_files.list_memory_files(ctx, prefix)

    return [currentTime, thinkDeep, readMemoryFile, writeMemoryFile, listMemoryFiles]


# How each tool's calls are labelled on the turn's events: tool → its catalogue key, whose
# `.running`, `.completed` and `.error` phrases core/i18n holds in every language the page speaks
# (core/turn/labels.py puts the call's subject in `{x}`).
TOOL_LABELS: dict[str, ToolLabel] = {
    "recall": "tool.recall",
    "readSlice": "tool.readSlice",
    "readSliceSummary": "tool.readSliceSummary",
    "readTimelineWindow": "tool.readTimelineWindow",
    "readPreviously": "tool.readPreviously",
    "readAgentTimeline": "tool.readAgentTimeline",
    "currentTime": "tool.currentTime",
    "thinkDeep": "tool.thinkDeep",
    "readMemoryFile": "tool.readMemoryFile",
    "writeMemoryFile": "tool.writeMemoryFile",
    "listMemoryFiles": "tool.listMemoryFiles",
    **WEB_TOOL_LABELS,
}


TOOL_NAMES = (
    "recall",
    "readSliceSummary",
    "readTimelineWindow",
    "readSlice",
    "readPreviously",
    "readAgentTimeline",
    "currentTime",
    "thinkDeep",
    "readMemoryFile",
    "writeMemoryFile",
    "listMemoryFiles",
    *WEB_TOOL_NAMES,
)
