"""Playbooks reach the sub-agents' user prompts at call time, never a system prompt; writes are refused."""

from __future__ import annotations

import json

import pytest

from core.agent.main_tools import main_tools
from core.agent.recall.prompt import SYSTEM_PROMPT as RECALL_SYSTEM
from core.agent.recall.scan import REPORT_TOOL, run_recall
from core.agent.tool_context import ToolContext
from core.clock import FixedClock, parse_iso
from core.llm.registry import ModelRegistry, ProviderConfig
from core.llm.types import ToolCall as Call
from core.memory.evolution.paths import FITNESS_JSON, playbook_md
from core.storage.base import WriteBatch
from core.storage.memory import InMemoryStorage
from tests.fakes.agent_memory import build_memory, make_slice
from tests.fakes.fake_model_server import FakeModelServer, Reply, ToolCall

pytestmark = pytest.mark.functional

NOW = "2026-08-17T14:10:00.000Z"
CURRENT = "2026-08-17-1400"
RECALL_BOOK = "Dates matter more than topics in this user's questions."
DEEP_BOOK = "Lay out the trade-offs as a short table; they decide themselves."


def storage(with_books: bool = True) -> InMemoryStorage:
    slices = [
        make_slice("2026-08-12-2000", [("user", "Signed the lease!")], focus="Lease signed", tags=["move"]),
        make_slice(CURRENT, [("user", "when did I sign?")], status="active"),
    ]
    books = {str(playbook_md("recall")): RECALL_BOOK + "\n", str(playbook_md("thinkdeep")): DEEP_BOOK}
    return build_memory(slices, parse_iso(NOW), extra=books if with_books else {})


def ctx(fake: FakeModelServer, clock: FixedClock, store: InMemoryStorage) -> ToolContext:
    models = ModelRegistry(
        ProviderConfig(openai_base_url=fake.openai_base_url), clock=clock, sleep=lambda _: None
    )
    batch = WriteBatch.open(store)
    return ToolContext(
        view=batch.snapshot, batch=batch, clock=FixedClock.at(NOW), models=models.resolve(), slice_id=CURRENT,
        timezone="Europe/Lisbon", system_prompt="FROZEN PROMPT",
    )  # fmt: skip


def _system(body: dict[str, object]) -> str:
    return str(body["messages"][0]["content"])  # type: ignore[index]


def test_the_recall_playbook_reaches_the_scan_prompt_only(
    fake_models: FakeModelServer, clock: FixedClock
) -> None:
    fake_models.enqueue(Reply(tool_calls=[ToolCall(REPORT_TOOL, {"hits": [], "confidence": 0.1})]))
    run_recall(ctx(fake_models, clock, storage()), "when did I sign the lease?")
    sent = fake_models.model_requests()[-1]
    assert sent.last_user_text.endswith(f"## Playbook: how to serve this user\n{RECALL_BOOK}")
    assert _system(sent.body) == RECALL_SYSTEM


def test_the_thinkdeep_playbook_goes_into_the_question_not_the_frozen_prompt(
    fake_models: FakeModelServer, clock: FixedClock
) -> None:
    fake_models.enqueue(Reply(text="Take it."))
    tools = {t.spec.name: t for t in main_tools(ctx(fake_models, clock, storage()))}
    tools["thinkDeep"].run(Call("c1", "thinkDeep", {"question": "Which flat?"}))
    sent = fake_models.model_requests()[-1]
    assert sent.last_user_text.endswith(
        f"Question: Which flat?\n\n## Playbook: how to serve this user\n{DEEP_BOOK}"
    )
    system = _system(sent.body)
    assert system.startswith("FROZEN PROMPT\n\n## Reasoning fragment mode") and DEEP_BOOK not in system


def test_a_missing_playbook_adds_nothing(fake_models: FakeModelServer, clock: FixedClock) -> None:
    fake_models.enqueue(Reply(text="Take it."))
    tools = {t.spec.name: t for t in main_tools(ctx(fake_models, clock, storage(with_books=False)))}
    tools["thinkDeep"].run(Call("c1", "thinkDeep", {"question": "Which flat?"}))
    assert fake_models.model_requests()[-1].last_user_text.endswith("Question: Which flat?")


@pytest.mark.parametrize(
    "path",
    [
        "memory/evolution/direction.md",
        "memory/evolution/fitness.json",
        "memory/evolution/undo/direction.md",
        "memory/agent-playbooks/recall.md",
        "memory/agent-playbooks/new.md",
    ],
)
def test_the_generic_write_tool_refuses_the_evolution_layer(
    fake_models: FakeModelServer, clock: FixedClock, path: str
) -> None:
    store = storage()
    c = ctx(fake_models, clock, store)
    tools = {t.spec.name: t for t in main_tools(c)}
    result = tools["writeMemoryFile"].run(Call("c1", "writeMemoryFile", {"path": path, "content": "{}"}))
    assert result.is_error and "belongs to the evolution layer" in result.content
    assert c.batch is not None and c.batch.pending_paths == []
    assert json.dumps(store.files.get(playbook_md("recall"))) == json.dumps(RECALL_BOOK + "\n")


def test_a_repeated_recall_is_recorded_as_a_signal(fake_models: FakeModelServer, clock: FixedClock) -> None:
    c = ctx(fake_models, clock, storage())
    c.models = None  # the deterministic floor answers: no model needed
    tools = {t.spec.name: t for t in main_tools(c)}
    tools["recall"].run(Call("c1", "recall", {"query": "the lease"}))
    assert c.batch is not None and FITNESS_JSON not in c.batch.pending_paths
    tools["recall"].run(Call("c2", "recall", {"query": "The lease"}))
    ledger = json.loads(c.batch.read(FITNESS_JSON) or "{}")
    assert ledger["signals"] == [
        {"kind": "recall_repeated", "at": "2026-08-17T14:10:00.000Z", "slice": CURRENT, "detail": ""}
    ]


def test_forgetting_scrubs_the_ledger_and_records_the_signal(clock: FixedClock) -> None:
    from core.actions.forget import forget
    from core.memory.evolution.fitness import Fitness, Score, render_fitness

    gone = "2026-08-12-2000"
    ledger = Fitness(
        scores=[Score(gone, "recall", -1, "Signed the lease!", "t"), Score(CURRENT, "card", 1, "ok", "t")]
    )
    store = storage()
    store.files[FITNESS_JSON] = render_fitness(ledger)
    forget(store, gone, FixedClock.at(NOW))
    after = json.loads(store.files[FITNESS_JSON])
    assert [s["slice"] for s in after["scores"]] == [CURRENT]
    assert after["signals"] == [{"kind": "forgotten", "at": NOW, "slice": "", "detail": "slice"}]
    assert "Signed the lease" not in store.files[FITNESS_JSON]


def test_forgetting_takes_the_slice_out_of_the_direction(clock: FixedClock) -> None:
    from core.actions.forget import forget
    from core.memory.evolution import direction as d
    from core.memory.evolution.paths import DIRECTION_MD

    gone, kept = "2026/08/12/2000", "2026/08/17/1400"
    direction = d.Direction(
        updated="2026-08-17T14:00:00.000Z",
        portrait=[d.Trait("Celebrates milestones", [gone]), d.Trait("Plans ahead", [gone, kept])],
        hypotheses=[d.Hypothesis("h1", "Likes leases", "t", [f"{gone}-t1"], "2026-08-12", "2026-09-01")],
        unsorted=["a hand-written line"],
    )
    store = storage()
    store.files[DIRECTION_MD] = d.render_direction(direction)
    forget(store, "2026-08-12-2000", FixedClock.at(NOW))
    after = d.parse_direction(store.files[DIRECTION_MD])
    assert after.portrait == [d.Trait("Plans ahead", [kept])]
    assert after.hypotheses == [] and after.unsorted == ["a hand-written line"]


@pytest.mark.parametrize(
    ("reason", "kind"), [(None, "regenerate"), ("regenerate", "regenerate"), ("edit", "message_edited")]
)
def test_taking_an_exchange_back_records_regenerate_or_edit(reason: str | None, kind: str) -> None:
    from tests.functional.api_env import make_env, same_origin
    from tests.functional.test_retract import SID, _storage

    env = make_env(storage=_storage())
    body = {} if reason is None else {"reason": reason}
    r = env.client.post(f"/api/slices/{SID}/turns/t00001/retract", json=body, headers=same_origin())
    assert r.status_code == 200, r.text
    ledger = json.loads(env.files()[str(FITNESS_JSON)])
    assert [(s["kind"], s["slice"]) for s in ledger["signals"]] == [(kind, SID)]
