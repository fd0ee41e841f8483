"""The turn analyzer's result kept in the run store, for a later step of the same turn.

The close step runs the analyzer with the closing slice; the evolve step, a separate state so
a slow or failing card pass is retried without asking the analyzer again, reads the analysis
back from here. Plain JSON both ways: the nested dataclasses are rebuilt field by field.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from core.agent.workers.analyzer import (
    CloseMarking,
    EmotionalSignal,
    EvolveJudgment,
    Intent,
    MemoryUpdate,
    NewTag,
    TurnAnalysis,
)

ANALYSIS_KEY = "analysis"


def analysis_to_json(a: TurnAnalysis) -> dict[str, Any]:
    return asdict(a)


def analysis_from_json(data: Any) -> TurnAnalysis | None:
    """The stored analysis, or None when there is none (or it is not one)."""
    if not isinstance(data, dict):
        return None
    try:
        return TurnAnalysis(
            reuse_tags=tuple(data.get("reuse_tags") or ()),
            new_tags=tuple(NewTag(**t) for t in data.get("new_tags") or ()),
            hint_strands=tuple(data.get("hint_strands") or ()),
            hint_reason=str(data.get("hint_reason") or ""),
            intent=Intent(**data["intent"]) if data.get("intent") else None,
            memory_worthy=bool(data.get("memory_worthy", True)),
            emotional=EmotionalSignal(**(data.get("emotional") or {})),
            memory_update=MemoryUpdate(**data["memory_update"]) if data.get("memory_update") else None,
            evolve_card=EvolveJudgment(**data["evolve_card"]) if data.get("evolve_card") else None,
            marking=_marking(data.get("marking")),
            source=data.get("source", "model"),
            error=data.get("error"),
        )
    except (TypeError, KeyError):
        return None


def _marking(data: Any) -> CloseMarking | None:
    if not isinstance(data, dict):
        return None
    return CloseMarking(
        focus=str(data.get("focus", "")),
        summary=str(data.get("summary", "")),
        tags=tuple(data.get("tags") or ()),
        tone=data.get("tone", "neutral"),
    )
