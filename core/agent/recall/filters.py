"""What the recall scan's report goes through before the main model sees it.

docs/RECALL.md "The worker scan" describes the scan.

Models write numbers as strings, leave fields out and invent slice ids. These helpers are
tolerant where a model is sloppy and strict where a mistake would mislead: numbers are coerced
and clamped, recommended reads normalised, the current slice and unknown ids dropped.
"""

from __future__ import annotations

import math
import re
from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import Any, TypeVar

PRIORITIES = ("high", "medium", "low")
MAX_RECOMMENDED = 5
Item = TypeVar("Item", bound=Mapping[str, Any])
_TRANSIENT_RE = re.compile(
    r"ECONNRESET|ETIMEDOUT|EAI_AGAIN|socket hang up|network|timeout|timed out|temporar|\b429\b|\b5\d\d\b",
    re.IGNORECASE,
)


def tolerant_number(value: Any) -> float | None:
    """A number from a number or a numeric string; None for anything else (NaN included)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, str):
        try:
            value = float(value.strip())
        except ValueError:
            return None
    if isinstance(value, int | float) and math.isfinite(value):
        return float(value)
    return None


def tolerant_bounded01(value: Any) -> float:
    """A relevance or confidence: coerced, garbage as 0, clamped to [0, 1]."""
    number = tolerant_number(value)
    return 0.0 if number is None else min(1.0, max(0.0, number))


def tolerant_number_array(values: Any) -> list[float]:
    """A list of numbers: numeric strings coerced, garbage as 0, nulls left out."""
    if not isinstance(values, list):
        return []
    out = []
    for value in values:
        if value is None:
            continue
        number = tolerant_number(value)
        out.append(0.0 if number is None else number)
    return out


def tolerant_text(value: Any) -> str:
    """A text field: a string as given, anything else empty."""
    return value if isinstance(value, str) else ""


def normalize_recommended_reads(raw: Any) -> list[dict[str, str]]:
    """At most five reads with an id; unknown priority → medium, no reason → "", empty note dropped."""
    out: list[dict[str, str]] = []
    for item in raw if isinstance(raw, list) else []:
        if not isinstance(item, Mapping):
            continue
        slice_id = item.get("slice_id")
        if not isinstance(slice_id, str) or not slice_id.strip():
            continue
        priority = item.get("priority")
        read = {
            "slice_id": slice_id.strip(),
            "priority": priority if priority in PRIORITIES else "medium",
            "reason": tolerant_text(item.get("reason")),
        }
        note = item.get("note")
        if isinstance(note, str) and note.strip():
            read["note"] = note
        out.append(read)
        if len(out) == MAX_RECOMMENDED:
            break
    return out


def exclude_current(items: Iterable[Item], current: str | None) -> list[Item]:
    """Items about any slice but the one being talked in right now."""
    return [item for item in items if not current or item.get("slice_id") != current]


def filter_known(items: Iterable[Item], known: Collection[str] | None) -> list[Item]:
    """Items whose slice exists; `known` None (no way to tell) keeps them all."""
    if known is None:
        return list(items)
    return [item for item in items if item.get("slice_id") in known]


def recall_step_override(steps: int, max_steps: int, reported: bool, report_tool: str) -> str | None:
    """The tool the next step must call: the report, once all but one step ran without it."""
    if reported or steps < max_steps - 1:
        return None
    return report_tool


def recall_step_choice(
    steps: int, max_steps: int, reported: bool, report_tool: str
) -> dict[str, dict[str, str]] | None:
    """The prepared step as the reference shows it: the structured tool choice forcing the report
    (`{"toolChoice": {"type": "tool", "toolName": …}}`), or None when the step runs free."""
    name = recall_step_override(steps, max_steps, reported, report_tool)
    return None if name is None else {"toolChoice": {"type": "tool", "toolName": name}}


def first_forced_step(max_steps: int, report_tool: str) -> int:
    """The 1-based step from which the scan is forced to file its report."""
    return next(
        step
        for step in range(1, max_steps + 1)
        if recall_step_override(step - 1, max_steps, False, report_tool) is not None
    )


def is_transient(message: str) -> bool:
    """Whether a failure reads like one that goes away on a retry (network, timeout, 429, 5xx)."""
    return bool(_TRANSIENT_RE.search(message or ""))


def triage(message: str) -> str:
    """The tool text for a recall that could not run: retry once, or take another route."""
    if is_transient(message):
        return f"[recall unavailable] {message}. This looks transient — you may retry once."
    return (
        f"[recall unavailable] {message}. This is a deterministic failure — retrying will not help; "
        "try a different approach."
    )


def best_first(hits: Sequence[Item]) -> list[Item]:
    """Hits by relevance (highest first), one per slice (its most relevant)."""
    seen: set[str] = set()
    out = []
    for hit in sorted(hits, key=lambda h: -float(h.get("relevance") or 0.0)):
        sid = str(hit.get("slice_id"))
        if sid not in seen:
            seen.add(sid)
            out.append(hit)
    return out
