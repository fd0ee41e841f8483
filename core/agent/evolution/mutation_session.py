"""The loop brake and bookkeeping shared by the mutation sessions of the card pass and the direction pass.

A session's tools validate inside themselves and answer `OK — …` or a `Problem`; `_run` turns
a Problem into its message, and a model repeating the same refused call is braked: the second
time it is told exactly what to cut, the third time an over-length text is saved truncated
(other checks still apply) and anything else is skipped with an instruction to finish.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from typing import Any, ClassVar

from core.llm.tools import Tool
from core.memory.card import rules as r
from core.text import collapse_ws, utf16_slice

Outcome = str | r.Problem


def _brake_key(tool: str, args: dict[str, Any]) -> str:
    parts = [tool]
    for value in args.values():
        if value is None:
            continue
        if isinstance(value, str):
            parts.append(collapse_ws(value).lower())
        else:
            parts.append(json.dumps(value, ensure_ascii=False, separators=(",", ":")))
    return "|".join(parts)


def quote(text: str, n: int = 80) -> str:
    cut = utf16_slice(text, 0, n)
    return f'"{cut}…"' if cut != text else f'"{text}"'


class MutationSession:
    """Base of a session whose tools are the methods named in `tool_names`; `log` lists what changed."""

    tool_names: ClassVar[tuple[str, ...]] = ()
    log: list[str]
    _rejections: Counter[str]

    def _begin(self) -> None:
        self.log = []
        self._rejections = Counter()

    def tools(self) -> list[Callable[..., str]]:
        """The mutation tools, bound to this session."""
        return [getattr(self, name) for name in self.tool_names]

    # ------------------------------------------------------------ the loop brake

    def _run(
        self, tool: str, args: dict[str, Any], apply: Callable[..., Outcome], text_arg: str | None = None
    ) -> str:
        outcome = apply(**args)
        if isinstance(outcome, str):
            return outcome
        key = _brake_key(tool, args)
        self._rejections[key] += 1
        attempt = self._rejections[key]
        if attempt == 1:
            return outcome.message
        if attempt == 2:
            return f"LOOP BRAKE (attempt 2): {self._second_warning(outcome)}\n{outcome.message}"
        if outcome.kind == "too_long" and text_arg:
            forced_args = {**args, text_arg: r.truncate(args[text_arg], outcome.limit)}
            forced = apply(**forced_args, forced=True)
            if isinstance(forced, str):
                return forced
            return (
                f"LOOP BRAKE (attempt {attempt}): the text was cut to {outcome.limit} chars, but the "
                f"call still fails, so nothing was saved.\n{forced.message}"
            )
        return (
            f"LOOP BRAKE (attempt {attempt}): this exact call has been rejected {attempt} times and "
            "was SKIPPED. Do not send it again: fix what the message says or drop it, and call "
            f"finish if nothing else is left.\n{outcome.message}"
        )

    @staticmethod
    def _second_warning(p: r.Problem) -> str:
        if p.kind == "too_long":
            return (
                f"the same call was refused before. {p.length} chars against a {p.limit} limit means "
                f"deleting at least {p.length - p.limit} chars — rewording alone will not fit. A third "
                "identical call will be cut off at the limit."
            )
        return "the same call was refused before. Change the arguments as the message says, or drop it."

    def _ok(self, tool: str, detail: str, message: str, *, forced: bool = False, note: str = "") -> str:
        entry = f"{tool}: {utf16_slice(detail, 0, 50)}" + (f" ({note})" if note else "")
        self.log.append(f"forced: {entry}" if forced else entry)
        if forced:
            return f"OK — FORCED: {message} The text was cut to the limit; compress it yourself next time."
        return f"OK — {message}"

    def as_tools(self) -> list[Tool]:
        """The session's tools as model tools."""
        return [Tool.from_function(fn) for fn in self.tools()]
