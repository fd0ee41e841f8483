"""The "Evolve now" button on the How it learns page and the card page, at both sizes: busy while the
background run runs (the page polls it), then the result; disabled in the demo."""

from __future__ import annotations

import shutil
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from playwright.sync_api import expect

from core.memory.catalog.weave import list_slice_ids
from core.memory.paths import CARD
from core.storage.local import LocalStorage
from tests.browser.conftest import (
    SAMPLE,
    Server,
    launch_server,
    model_env,
    save_screenshot,
    stop_server,
    wait_ready,
)
from tests.fakes.brain import Brain
from tests.fakes.fake_model_server import FakeModelServer, RecordedRequest, Reply, ToolCall

pytestmark = pytest.mark.browser
# Two model passes in a background run, polled every second, on a loaded machine.
RUN_MS = 30_000


@dataclass
class Evolving:
    server: Server
    root: Path
    brain: Brain
    newest: str
    release: threading.Event


@pytest.fixture(scope="module")
def evolving(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Evolving]:
    root = tmp_path_factory.mktemp("evolve-now") / "memory-root"
    shutil.copytree(SAMPLE / "memory", root / "memory")
    newest = list_slice_ids(LocalStorage(root).snapshot())[-1]
    fake = FakeModelServer().start()
    brain = Brain.install(fake)
    server = launch_server(
        ["--memory", str(root), "--maintenance-minutes", "0"], root.parent / "serve.log", model_env(fake)
    )
    yield Evolving(wait_ready(server), root, brain, newest, threading.Event())
    stop_server(server)
    fake.stop()


def card_pass(e: Evolving, text: str, horizon: bool = True) -> None:
    """The card pass adds `text` to Horizon (the sample's Now is full), else to the self-model (Horizon
    has room for two more), once the test lets it answer."""

    def answer(request: RecordedRequest) -> Reply:
        e.release.wait(30)
        args = {"text": text, "by": "2099-01-15", "refs": [e.newest]}
        add = ToolCall("add_horizon", args) if horizon else ToolCall("add_self_model", {"text": text})
        done = ToolCall("finish", {"reasoning": "asked", "summary": f"Noted: {text}."})
        return Reply(tool_calls=[add, done])

    e.release.clear()
    e.brain.reports["finish"] = answer


@pytest.mark.parametrize("size", ["phone", "desktop"])
def test_evolve_now_shows_busy_then_what_changed(make_app, evolving: Evolving, size: str) -> None:
    text = f"Trying the evolve button on the {size}"
    card_pass(evolving, text)
    app = make_app(evolving.server, size=size)
    page = app.open("/#/evolution", wait="[data-testid=evolution-page]")
    button = page.get_by_test_id("evo-now-button")
    result = page.get_by_test_id("evo-now-result")
    expect(button).to_be_enabled()
    button.click()
    expect(button).to_be_disabled()
    expect(button).to_have_attribute("aria-busy", "true")
    expect(button).to_have_text("Evolving…")
    expect(result).to_contain_text("Reviewing your latest conversation")
    evolving.release.set()
    expect(result).to_have_text(f"Card: Noted: {text}.", timeout=RUN_MS)
    expect(button).to_be_enabled()
    expect(button).to_have_attribute("aria-busy", "false")
    save_screenshot(page, f"evolve-now-{size}")
    assert text in (evolving.root / CARD.value).read_text(encoding="utf-8")


@pytest.mark.parametrize("size", ["phone", "desktop"])
def test_the_card_page_has_the_same_button(make_app, evolving: Evolving, size: str) -> None:
    text = f"Evolving from the card page on the {size}"
    card_pass(evolving, text, horizon=False)
    app = make_app(evolving.server, size=size)
    page = app.open("/#/card", wait="[data-testid=card-page]")
    button = page.get_by_test_id("evo-now-button")
    result = page.get_by_test_id("evo-now-result")
    expect(button).to_be_enabled()
    button.click()
    expect(button).to_have_attribute("aria-busy", "true")
    expect(result).to_contain_text("Reviewing your latest conversation")
    evolving.release.set()
    expect(result).to_have_text(f"Card: Noted: {text}.", timeout=RUN_MS)
    expect(button).to_be_enabled()
    expect(page.get_by_test_id("card-page")).to_contain_text(text)  # the page shows the new card
    save_screenshot(page, f"evolve-now-card-{size}")
    assert text in (evolving.root / CARD.value).read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    log = tmp_path_factory.mktemp("evolve-demo") / "serve.log"
    server = wait_ready(launch_server(["--demo", "--maintenance-minutes", "0"], log))
    yield server
    stop_server(server)


def test_the_demo_offers_no_evolve_now(make_app, demo: Server) -> None:
    app = make_app(demo)
    page = app.open("/#/evolution", wait="[data-testid=evolution-page]")
    expect(page.get_by_test_id("evo-now-button")).to_be_disabled()
    expect(page.get_by_test_id("evo-now")).to_contain_text("Evolve now is off in the demo")


def test_the_demo_card_page_offers_no_evolve_now(make_app, demo: Server) -> None:
    app = make_app(demo)
    page = app.open("/#/card", wait="[data-testid=card-page]")
    expect(page.get_by_test_id("evo-now-button")).to_be_disabled()
    expect(page.get_by_test_id("evo-now")).to_contain_text("Evolve now is off in the demo")
