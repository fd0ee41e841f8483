"""The search helper behind webSearch: the worker answers from the results, with the search playbook
in its own prompt (never the turn's frozen prompt); it may search again; it falls back to the results."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from core.agent.tool_context import ToolContext
from core.agent.workers.search_agent import MAX_EXTRA_SEARCHES, REPORT_TOOL, SYSTEM_PROMPT, web_search
from core.clock import FixedClock
from core.llm.registry import ModelRegistry, ProviderConfig
from core.memory.evolution.paths import playbook_md
from core.memory.paths import agent_md
from core.storage.memory import InMemoryStorage
from core.web import WebAccess
from core.web.search import SearxngSearch
from tests.fakes.fake_model_server import FakeModelServer, RecordedRequest, Reply, ToolCall
from tests.fakes.fake_web import FakeWeb
from tests.functional.test_web_tools import TOMATO_ROWS, tool_outputs
from tests.functional.turn_support import make_harness

pytestmark = pytest.mark.functional
SLICE = "2026-08-11-1115"
NOW = "2026-08-11T11:15:00.000Z"
BOOK = "Prefer sources from European gardeners; they garden on balconies in Berlin."
POT_ROWS = [("Choosing a pot", "https://pots.example/size", "Twenty litres at least.")]
ANSWER = "Six hours of sun and a big pot [1]; feed every two weeks [2]."
REPORT: dict[str, object] = {
    "answer": ANSWER,
    "recommendation": "Open [1] for the pot size.",
    "suggested_reads": [
        {"url": "https://gardens.example/tomatoes", "title": "Growing Tomatoes", "reason": "the basics"},
        {"url": "https://invented.example/", "title": "Not a result", "reason": "made up"},
    ],
}


@pytest.fixture
def web() -> Iterator[FakeWeb]:
    server = FakeWeb().start()
    server.results["balcony tomatoes"] = TOMATO_ROWS
    server.results["tomato pot size"] = POT_ROWS
    yield server
    server.stop()


def _system(request: RecordedRequest) -> str:
    return str(request.body["messages"][0]["content"])


def test_in_a_turn_the_playbook_reaches_the_search_helper_not_the_main_prompt(
    web: FakeWeb, fake_models: FakeModelServer
) -> None:
    storage = InMemoryStorage.from_texts({str(playbook_md("search")): BOOK + "\n"})
    h = make_harness(storage, FixedClock.at(NOW), fake_models)
    h.deps.web = WebAccess(None, SearxngSearch(web.searx_url))
    assert h.brain is not None
    h.brain.reports[REPORT_TOOL] = REPORT
    h.brain.main(
        Reply(tool_calls=[ToolCall("webSearch", {"query": "balcony tomatoes"}, id="s1")]), "Sun and a pot."
    )
    assert h.turn("How do I grow tomatoes on my balcony?").status == "done"
    [helper] = h.brain.requests[REPORT_TOOL]
    assert _system(helper) == SYSTEM_PROMPT
    assert helper.last_user_text.startswith("Question: balcony tomatoes\nToday (UTC): 2026-08-11\n\n")
    assert helper.last_user_text.endswith(f"## Playbook: how to serve this user\n{BOOK}")
    assert all(BOOK not in s for s in h.brain.system_prompts()), "never in the frozen prompt"
    assert all(BOOK not in r.last_user_text for r in h.brain.requests["main"])
    seen = tool_outputs(h.brain.requests["main"][1])[0]
    assert seen.startswith(
        'Web search for "balcony tomatoes" — the search helper\'s answer:\n' + ANSWER + "\n\n"
        "Recommendation: Open [1] for the pot size.\n\n"
        "Suggested reads (open them with webFetch):\n"
        "- Growing Tomatoes — https://gardens.example/tomatoes: the basics\n\n"
        'Web results for "balcony tomatoes" (cite the URLs'
    )
    assert seen.endswith(
        "[1] Growing Tomatoes on a Balcony\nhttps://gardens.example/tomatoes\n"
        "Six hours of sun, a big pot.\n\n"
        "[2] Tomato feeding guide\nhttps://feed.example/guide\nFeed every two weeks."
    )
    assert "invented.example" not in seen, "a suggested page the searches never showed is dropped"
    log = h.read(str(agent_md(SLICE))) or ""
    assert "### Sources\n- <https://gardens.example/tomatoes> — Growing Tomatoes on a Balcony\n" in log


def ctx(fake: FakeModelServer | None, storage: InMemoryStorage | None = None) -> ToolContext:
    clock = FixedClock.at(NOW)
    models = None
    if fake is not None:
        registry = ModelRegistry(
            ProviderConfig(openai_base_url=fake.openai_base_url), clock=clock, sleep=lambda _: None
        )
        models = registry.resolve()
    view = (storage or InMemoryStorage()).snapshot()
    return ToolContext(view=view, clock=clock, models=models, system_prompt="FROZEN PROMPT")


def test_without_a_playbook_nothing_is_added(web: FakeWeb, fake_models: FakeModelServer) -> None:
    fake_models.enqueue(Reply(tool_calls=[ToolCall(REPORT_TOOL, REPORT)]))
    web_search(ctx(fake_models), SearxngSearch(web.searx_url), "balcony tomatoes")
    sent = fake_models.model_requests()[-1]
    assert "## Playbook" not in sent.last_user_text and _system(sent) == SYSTEM_PROMPT


def test_the_helper_may_search_again_a_bounded_number_of_times(
    web: FakeWeb, fake_models: FakeModelServer
) -> None:
    again = [
        ToolCall("searchWeb", {"query": "tomato pot size"}, id=f"w{i}") for i in range(MAX_EXTRA_SEARCHES + 1)
    ]
    fake_models.enqueue(
        Reply(tool_calls=again), Reply(tool_calls=[ToolCall(REPORT_TOOL, {"answer": "Big pots [3]."})])
    )
    text = web_search(ctx(fake_models), SearxngSearch(web.searx_url), "balcony tomatoes")
    assert text.startswith(
        'Web search for "balcony tomatoes" — the search helper\'s answer:\nBig pots [3].\n\n'
    )
    assert "[3] Choosing a pot\nhttps://pots.example/size" in text, (
        "later results are numbered after the first"
    )
    assert [r["path"] for r in web.requests].count("/search") == 1 + MAX_EXTRA_SEARCHES
    results = tool_outputs(fake_models.model_requests()[-1])
    assert results[-1].startswith("No more searches in this call")


@pytest.mark.parametrize(
    "reply",
    [Reply.error(500), Reply(tool_calls=[ToolCall(REPORT_TOOL, {"answer": "  "})]), Reply(text="just talk")],
)
def test_a_helper_that_fails_or_says_nothing_leaves_the_results(
    web: FakeWeb, fake_models: FakeModelServer, reply: Reply
) -> None:
    fake_models.enqueue(*([reply] * 8))
    text = web_search(ctx(fake_models), SearxngSearch(web.searx_url), "balcony tomatoes")
    assert text.startswith('Web results for "balcony tomatoes"') and "[2] Tomato feeding guide" in text


def test_without_a_worker_the_backend_answers_alone(web: FakeWeb) -> None:
    text = web_search(ctx(None), SearxngSearch(web.searx_url), "balcony tomatoes")
    assert text.startswith('Web results for "balcony tomatoes"')
