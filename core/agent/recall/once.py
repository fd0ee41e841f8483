"""One recall per question per turn, enforced in code.

A model that keeps calling `recall` for the same thing (one ran 8 recalls × 8 worker steps in a
turn) gets the first result again, with a note, instead of a new scan. Distinct questions are
bounded too: after `MAX_SCANS` scans in one turn, a further recall is answered with a note and no
scan. The memo is seeded from the turn's earlier rounds (they may have run in another process)
and shared by the parallel calls of one round.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from core.llm.types import AssistantMessage, Message, ToolResult

RECALL = "recall"
MAX_SCANS = 3
REPEAT_NOTE = (
    "Note: recall already ran for this question in this turn; this is that result again, not a "
    "new search. Do not call recall for it again: read the recommended slices or answer."
)
LIMIT_NOTE = (
    "Note: recall already ran {n} times in this turn, the most one turn runs. Answer with what you "
    "found, or read a slice you already know of."
)
UNAVAILABLE = "[recall unavailable]"  # a failed scan is not an answer: it may be tried again
_SPACES = re.compile(r"\s+")
_EDGES = re.compile(r"^[\s\"'“”‘’«».,;:!?？。，！]+|[\s\"'“”‘’«».,;:!?？。，！]+$")


def question_key(query: str) -> str:
    """The same question however it is spaced, cased or punctuated at its ends."""
    return _EDGES.sub("", _SPACES.sub(" ", query.casefold())).strip()


@dataclass
class RecallMemo:
    """The recall results of one turn so far, by question."""

    answered: dict[str, str] = field(default_factory=dict)
    scans: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    _pending: dict[str, threading.Event] = field(default_factory=dict, repr=False)

    @classmethod
    def from_history(cls, messages: Iterable[Message]) -> RecallMemo:
        """Seed from earlier rounds: each recall call paired with its (non-error) result."""
        queries: dict[str, str] = {}
        memo = cls()
        for m in messages:
            if isinstance(m, AssistantMessage):
                queries.update(
                    {c.id: str(c.arguments.get("query", "")) for c in m.tool_calls if c.name == RECALL}
                )
            elif isinstance(m, ToolResult) and m.call_id in queries:
                memo.scans += 1
                if not m.is_error and not m.content.startswith(UNAVAILABLE):
                    memo.answered.setdefault(question_key(queries[m.call_id]), _without_note(m.content))
        return memo

    def answer(self, query: str, scan: Callable[[], str]) -> str:
        """The first result for this question (with a note), else a new scan while under the cap."""
        key = question_key(query)
        while True:
            with self._lock:
                if key in self.answered:
                    return f"{REPEAT_NOTE}\n\n{self.answered[key]}"
                waiting = self._pending.get(key)
                if waiting is None:
                    if self.scans >= MAX_SCANS:
                        return LIMIT_NOTE.format(n=self.scans)
                    self.scans += 1
                    done = self._pending[key] = threading.Event()
                    break
            waiting.wait()  # the same question asked twice in one round: wait for the first
        try:
            result = scan()
            if not result.startswith(UNAVAILABLE):
                with self._lock:
                    self.answered[key] = result
            return result
        finally:
            with self._lock:
                self._pending.pop(key, None)
            done.set()


def _without_note(text: str) -> str:
    return text.split("\n\n", 1)[1] if text.startswith(REPEAT_NOTE) else text
