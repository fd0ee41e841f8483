"""Did the main model use what recall found? The mechanical `recall_verified` / `recall_reworked` rule.

Read from the turn's own tool calls after the turn, never asked of a model. For each recall that
ran a scan (not a repeat of an earlier answer, not a failure) the slices it returned are its hits
and recommended reads. Then, looking only at the calls of LATER rounds (calls of the same round
were made before its result was seen) and at the turn's reply:

- verified: a later read (readSlice, readSliceSummary, readAgentTimeline, readPreviously) opens
  one of those slices, or the reply names one of them by id;
- otherwise reworked: a later recall asks a different question, or a later read opens a slice
  the recall did not return (the conversation's own slice does not count);
- otherwise nothing is recorded (the model answered from what it had).

At most one signal per scan, so a turn records at most `MAX_SCANS` of them.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from core.agent.recall.once import RECALL, REPEAT_NOTE, UNAVAILABLE, question_key
from core.llm.types import ToolCall, ToolResult

READ_TOOLS = ("readSlice", "readSliceSummary", "readAgentTimeline", "readPreviously")
UseKind = Literal["recall_verified", "recall_reworked"]


@dataclass(frozen=True)
class RecallUse:
    """The verdict on one scan: which recall of the turn (1-based, in call order) and how it was used."""

    ordinal: int
    kind: UseKind


@dataclass(frozen=True)
class _Scan:
    ordinal: int
    round: int
    key: str
    found: frozenset[str]


def _canonical(slice_id: object) -> str:
    return str(slice_id or "").strip().replace("/", "-")


def _found(content: str) -> frozenset[str] | None:
    """The slice ids a scan's result names (hits and reads); None for a result that is no scan."""
    if content.startswith(UNAVAILABLE):
        return None
    try:
        data = json.loads(content)
    except ValueError:
        return None  # a note (the per-turn limit) or a triaged error: no scan ran
    if not isinstance(data, dict):
        return None
    rows = [r for key in ("hits", "recommended_reads") if isinstance(data.get(key), list) for r in data[key]]
    return frozenset(_canonical(r.get("slice_id")) for r in rows if isinstance(r, dict))


def _scans(rounds: Sequence[Sequence[ToolCall]], results: Mapping[str, ToolResult]) -> list[_Scan]:
    scans: list[_Scan] = []
    for n, calls in enumerate(rounds):
        for call in calls:
            result = results.get(call.id)
            if call.name != RECALL or result is None or result.is_error:
                continue
            if result.content.startswith(REPEAT_NOTE):
                continue  # the same question again: recall_repeated, recorded by the tool itself
            found = _found(result.content)
            if found is not None:
                key = question_key(str(call.arguments.get("query", "")))
                scans.append(_Scan(len(scans) + 1, n, key, found))
    return scans


def _cited(reply: str, found: frozenset[str]) -> bool:
    for slice_id in found:
        day, _, minute = slice_id.rpartition("-")
        if slice_id in reply or (day and f"{day.replace('-', '/')}/{minute}" in reply):
            return True
    return False


def recall_uses(
    rounds: Sequence[Sequence[ToolCall]], results: Mapping[str, ToolResult], reply: str, current: str
) -> list[RecallUse]:
    """The verdicts for one turn: `rounds` are its tool calls round by round, `reply` its text."""
    out: list[RecallUse] = []
    for scan in _scans(rounds, results):
        later = [c for calls in rounds[scan.round + 1 :] for c in calls]
        opened = {_canonical(c.arguments.get("sliceId")) for c in later if c.name in READ_TOOLS} - {""}
        if opened & scan.found or _cited(reply, scan.found - {""}):
            out.append(RecallUse(scan.ordinal, "recall_verified"))
            continue
        reworded = any(
            c.name == RECALL and question_key(str(c.arguments.get("query", ""))) != scan.key for c in later
        )
        if reworded or opened - scan.found - {current}:
            out.append(RecallUse(scan.ordinal, "recall_reworked"))
    return out
