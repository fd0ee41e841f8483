"""Helpers for card-evolution tests: a small memory, a worker on the fake model server, scripted passes."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field, replace
from typing import Any

from core.clock import FixedClock
from core.llm.client import MODEL_RETRY
from core.llm.registry import BoundModel, ModelRegistry, ProviderConfig
from core.memory.card.model import Anchor, Card, HorizonItem, NowItem, render_card
from core.memory.evolution import direction as d
from core.memory.paths import CARD, core_md
from core.memory.slice.model import Slice, parse_core_md
from core.storage.memory import InMemoryStorage
from tests.fakes.fake_model_server import FakeModelServer, RecordedRequest, Reply, ToolCall
from tests.fakes.slices import slice_text

NOW = "2026-08-11T11:15:00.000Z"  # the `clock` fixture
CLOSED = "2026-08-11-1015"
CURRENT = "2026-08-11-1115"
OLDER = "2026-07-30-0900"

DIRECTION_REF = "2026/08/01/0900"

CLOSED_TURNS = [
    ("user", "I signed up for the Berlin half marathon in October. Training starts this week."),
    ("agent", "Great goal! Do you have a plan?"),
    ("user", "Three runs a week. Also, I have to send the grant report to Ines by August 20."),
    ("agent", "Noted. Want a reminder schedule?"),
]


def memory(card: str | None = None, extra: dict[str, str] | None = None) -> InMemoryStorage:
    """Three slices (an older one, the one just closed, the current one) and optionally a card."""
    files = {
        core_md(OLDER): slice_text(
            OLDER, [("user", "Started a new job at the museum."), ("agent", "Congrats!")]
        ),
        core_md(CLOSED): slice_text(CLOSED, CLOSED_TURNS, tags=["running", "grant"]),
        core_md(CURRENT): slice_text(
            CURRENT, [("user", "Remember that I am vegetarian, please.")], status="active"
        ),
    }
    if card is not None:
        files[CARD] = card
    files.update(extra or {})
    return InMemoryStorage.from_texts({str(k): v for k, v in files.items()})


def slice_of(storage: InMemoryStorage, slice_id: str) -> Slice:
    """The parsed slice as stored."""
    return parse_core_md(storage.files[core_md(slice_id)])


def card_text(
    *,
    identity: list[str] | None = None,
    profile: str = "",
    anchors: list[Anchor] | None = None,
    now: list[NowItem] | None = None,
    horizon: list[HorizonItem] | None = None,
    self_model: list[str] | None = None,
) -> str:
    """A current-format card stamped for the older slice."""
    card = Card(slice_id=OLDER, updated="2026-07-30T09:10:00.000Z", identity=identity or [])
    card.past.profile = profile
    card.past.anchors = anchors or []
    card.now, card.horizon, card.self_model = now or [], horizon or [], self_model or []
    return render_card(card)


def direction_text(first_until: str, second_until: str) -> str:
    """direction.md with one portrait trait and two hypotheses (h1, h2), each checked until the date given."""
    refs = [DIRECTION_REF]
    return d.render_direction(
        d.Direction(
            updated="2026-08-01T09:10:00.000Z",
            portrait=[d.Trait("Thinks aloud before deciding", refs)],
            hypotheses=[
                d.Hypothesis(
                    "h1", "Wants the short answer first", "asks to shorten", refs, "2026-08-01", first_until
                ),
                d.Hypothesis("h2", "Prefers mornings", "writes at 7am", refs, "2026-07-01", second_until),
            ],
        )
    )


def worker(fake: FakeModelServer, clock: FixedClock, wire: str = "openai") -> BoundModel:
    """The worker model on the fake server; the client does not retry on its own (evolution does)."""
    if wire == "openai":
        config = ProviderConfig(openai_base_url=fake.openai_base_url)
    else:
        config = ProviderConfig(anthropic_api_key="test-key", anthropic_base_url=fake.anthropic_base_url)
    registry = ModelRegistry(
        config, clock=clock, sleep=lambda _: None, retry=replace(MODEL_RETRY, max_attempts=1)
    )
    return registry.resolve().worker


@dataclass
class Held:
    """A scripted report that waits: `entered` is set when the model is asked, and it answers
    `reply` once the test sets `release` (or after ten seconds)."""

    reply: Reply
    entered: threading.Event = field(default_factory=threading.Event)
    release: threading.Event = field(default_factory=threading.Event)

    def __call__(self, request: RecordedRequest) -> Reply:
        self.entered.set()
        self.release.wait(10)
        return self.reply


def calls(*pairs: tuple[str, dict[str, Any]]) -> Reply:
    """One model round calling these tools."""
    return Reply(tool_calls=[ToolCall(name, args) for name, args in pairs])


def finish(summary: str = "", reasoning: str = "done") -> Reply:
    """The round that ends the pass."""
    return calls(("finish", {"reasoning": reasoning, "summary": summary}))


def tool_results(body: dict[str, Any]) -> list[str]:
    """Every tool result in a recorded request, either wire format."""
    out: list[str] = []
    for message in body["messages"]:
        if message.get("role") == "tool":
            out.append(message["content"])
        elif isinstance(message.get("content"), list):
            out += [b["content"] for b in message["content"] if b.get("type") == "tool_result"]
    return out


def first_prompt(fake: FakeModelServer) -> str:
    """The user prompt of the first request of the pass."""
    return fake.model_requests()[0].last_user_text
