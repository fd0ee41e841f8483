"""What the main agent's tools run against: one read view, an optional write batch, the clock,
the models, where the conversation is, and callbacks for live progress.

Tools read through `ctx.reader` (the batch when there is one, so a tool sees what an earlier
tool of the same turn queued) and never commit: the caller commits `ctx.batch`.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from core.agent.recall.once import RecallMemo
from core.clock import Clock
from core.llm.registry import Resolution
from core.memory.config import UserConfig
from core.search import OpenIndex
from core.storage.base import Reader, WriteBatch
from core.web import WebAccess

# A tool's label: the catalogue key (core/i18n) under which `.running`, `.completed` and `.error`
# phrases stand, `{x}` for the call's subject. Each tool declares its own beside its definition.
ToolLabel = str
ProgressFn = Callable[[str, str], None]
HitsFn = Callable[[str, dict[str, Any]], None]


def _ignore(*_: Any) -> None:
    return None


@dataclass(kw_only=True)
class ToolContext:
    """Everything a main-agent tool may use.

    `progress(call_id, label)` becomes a `recall.progress` event and `hits(call_id, payload)` a
    `recall.hits` event (payload: query, hits, recommended, confidence). `system_prompt` is the
    turn's frozen prompt (thinkDeep reasons inside it); `slice_id` None outside a conversation;
    `search_index` an already opened full-text index to reuse (else recall opens one);
    `recalls` the turn's recall results so far (one recall per question, `recall_once`);
    `web` what the agent may use of the web (None: no web tools).
    """

    view: Reader
    clock: Clock
    batch: WriteBatch | None = None
    models: Resolution | None = None
    slice_id: str | None = None
    timezone: str | None = None
    locale: str = "en"
    config: UserConfig = field(default_factory=UserConfig)
    progress: ProgressFn = _ignore
    hits: HitsFn = _ignore
    system_prompt: str = ""
    search_index: OpenIndex | None = None
    recalls: RecallMemo = field(default_factory=RecallMemo)
    monotonic: Callable[[], float] = time.monotonic
    web: WebAccess | None = None

    @property
    def reader(self) -> Reader:
        """Where tools read: the batch (read-your-writes) when there is one, else the view."""
        return self.batch if self.batch is not None else self.view
