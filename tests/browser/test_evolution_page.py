"""The Evolution page at both sizes: portrait, hypotheses and playbooks with evidence; reject, edit, undo."""

from __future__ import annotations

import shutil
from collections.abc import Iterator

import pytest
from playwright.sync_api import expect

from core.memory.evolution import direction as d
from core.memory.evolution.paths import DIRECTION_MD, playbook_md
from tests.browser.conftest import SAMPLE, Server, launch_server, save_screenshot, stop_server, wait_ready

pytestmark = pytest.mark.browser
REF = "2026/08/01/0900"
DIRECTION = d.render_direction(
    d.Direction(
        updated="2026-08-01T09:10:00.000Z",
        portrait=[d.Trait("Thinks aloud before deciding", [REF])],
        hypotheses=[
            d.Hypothesis(
                "h1", "Wants the short answer first", "asks to shorten", [REF], "2026-08-01", "2099-01-01"
            ),
            d.Hypothesis("h2", "Prefers mornings", "writes at 7am", [REF], "2026-07-01", "2026-07-20"),
        ],
    )
)
BOOK = "Dates matter more than topics in their questions.\n"


@pytest.fixture(scope="module")
def evolved(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    root = tmp_path_factory.mktemp("evolution") / "memory-root"
    shutil.copytree(SAMPLE / "memory", root / "memory")
    for path, text in ((DIRECTION_MD, DIRECTION), (playbook_md("recall"), BOOK)):
        (root / path.value).parent.mkdir(parents=True, exist_ok=True)
        (root / path.value).write_text(text, encoding="utf-8")
    server = wait_ready(launch_server(["--memory", str(root)], root.parent / "serve.log"))
    yield server
    stop_server(server)


@pytest.mark.parametrize("size", ["phone", "desktop"])
def test_the_page_shows_the_layer_and_undoes_changes(make_app, evolved: Server, size: str) -> None:
    app = make_app(evolved, size=size)
    page = app.open("/#/evolution", wait="[data-testid=evolution-page]")
    expect(page.get_by_test_id("evo-trait")).to_have_text("Thinks aloud before deciding2026-08-01-0900")
    hypotheses = page.get_by_test_id("evo-hypothesis")
    expect(hypotheses).to_have_count(2)
    expect(hypotheses.nth(1)).to_contain_text("expired")
    recall = page.locator("[data-testid=evo-playbook][data-agent=recall]")
    expect(recall).to_contain_text(BOOK.strip())
    expect(page.locator("[data-testid=evo-playbook][data-agent=search]")).to_contain_text("No brief yet.")
    save_screenshot(page, f"evolution-{size}-light")

    hypotheses.first.get_by_role("button", name="Reject").click()
    expect(hypotheses).to_have_count(1)
    assert [h["id"] for h in evolved.get("/api/evolution")["hypotheses"]] == ["h2"]
    page.get_by_test_id("evo-undo").click()
    expect(hypotheses).to_have_count(2)
    assert evolved.get("/api/evolution")["hypotheses"][0]["claim"] == "Wants the short answer first"

    recall.get_by_role("button", name="Edit").click()
    recall.locator("textarea").fill("Search by date first.")
    recall.get_by_role("button", name="Save").click()
    expect(recall).to_contain_text("Search by date first.")
    books = {b["agent"]: b["text"] for b in evolved.get("/api/evolution")["playbooks"]}
    assert books["recall"] == "Search by date first.\n"
    recall.get_by_role("button", name="Undo").click()
    expect(recall).to_contain_text(BOOK.strip())
