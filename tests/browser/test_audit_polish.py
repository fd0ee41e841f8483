"""The cosmetic and low defects of the December audit (docs/UI.md "The December audit"): D21, D23,
D26, D28, D29, D16 and D24, each checked at the size where it showed."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import SAMPLE, Server, launch_server, stop_server, wait_ready
from tests.browser.scripted_turns import PAUSE, SLICE_ID, ScriptedTurns, _event

pytestmark = pytest.mark.browser

LABELS = "els => els.map(e => e.innerText.trim())"


def _thinking_script() -> list[Any]:
    start = {"slice_id": SLICE_ID, "slice_opened": True, "slice_closed": None, "user_turn_id": "u1"}
    return [
        _event(1, "turn.started", "save", **start),
        _event(2, "step.started", "save", label="Saving your message"),
        PAUSE,
        _event(3, "step.done", "save", label="Saving your message"),
        _event(4, "step.started", "respond", label="Thinking"),
        _event(5, "reasoning.delta", "respond", text="She asks about the flights."),
        PAUSE,
        _event(6, "text.delta", "respond", text="Saturday."),
        _event(7, "step.done", "respond", label="Thinking"),
        _event(8, "turn.done", "finish", status="done", agent_turn_id="a1"),
    ]


def test_d21_each_stage_is_said_once_and_the_first_seconds_name_the_step(
    make_app: Any, demo_server: Server
) -> None:
    app = make_app(demo_server, size="phone")
    turns = ScriptedTurns(_thinking_script()).install(app.page)
    page = app.open(wait="[data-testid=briefing]")
    page.locator("#message-box").fill("Flights?")
    page.locator("#message-box").press("Enter")
    msg = page.get_by_test_id("msg-assistant")
    labels = msg.locator(".stage-pill, .card-label")
    # Saving: the steps card names the step; no vague "Getting ready…" beside it.
    expect(msg.get_by_test_id("housekeeping")).to_contain_text("Saving your message…")
    expect(msg.get_by_test_id("stage-pill")).to_have_count(0)
    assert "Getting ready…" not in msg.inner_text()
    turns.release()
    # Thinking: only the reasoning card says it (with its timer), not the pill and the steps too.
    expect(msg.get_by_test_id("reasoning")).to_have_attribute("data-state", "running")
    said = [x for x in labels.evaluate_all(LABELS) if "Thinking" in x]
    assert said == ["Thinking…"], said
    expect(msg.get_by_test_id("housekeeping")).to_have_attribute("data-phase", "replying")
    expect(msg.get_by_test_id("housekeeping").locator(".card-label")).to_have_text("Ready — answering")
    turns.release()
    expect(page.locator("[data-testid=msg-assistant][data-status=done]")).to_have_count(1)


PANEL_HEADINGS = """() => [...document.querySelectorAll('.settings .panel')].map((p) => {
  const box = p.getBoundingClientRect();
  const head = p.querySelector(':scope > legend, :scope > .panel-heading');
  if (!head) return null;
  const h = head.getBoundingClientRect();
  return [head.innerText, h.top - box.top];  // a legend's box starts where the fieldset's does
})"""


def test_d26_panels_fields_and_figures_share_one_look(make_app: Any, own_server: Server) -> None:
    app = make_app(own_server, size="phone")
    page = app.open("/#/settings", wait="[data-testid=settings-form]")
    # Every settings panel names itself on its border, as a fieldset's legend does.
    for heading in page.evaluate(PANEL_HEADINGS):
        assert heading is not None and abs(heading[1]) < 2, heading
    # Counts and dates in body text use lining figures, not Raleway's old-style ones.
    assert "lining-nums" in page.evaluate("getComputedStyle(document.body).fontVariantNumeric")
    # A playbook's textarea is padded like the inputs (checked on the edit, which is then cancelled).
    page = app.open("/#/evolution", wait="[data-testid=evo-playbook]")
    book = page.get_by_test_id("evo-playbook").first
    book.get_by_role("button", name="Edit").click()
    pad = book.locator("textarea").evaluate("e => parseFloat(getComputedStyle(e).paddingLeft)")
    assert pad >= 8, pad
    book.get_by_role("button", name="Cancel").click()
    # The native file button in dark mode wears the page's colours and type.
    dark = make_app(own_server, size="phone", scheme="dark")
    page = dark.open("/#/import", wait="input[type=file]")
    button, body = page.evaluate("""() => {
      const b = getComputedStyle(document.querySelector('input[type=file]'), '::file-selector-button');
      const s = getComputedStyle(document.body);
      return [[b.backgroundColor, b.color, b.fontFamily], [s.color, s.fontFamily]];
    }""")
    assert button[1] == body[0] and button[2] == body[1], (button, body)
    assert button[0] not in ("rgb(239, 239, 239)", "rgba(0, 0, 0, 0)"), button


@pytest.fixture(scope="module")
def forgetful(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """A server on a copy of the sample of its own: these tests forget things."""
    root = tmp_path_factory.mktemp("polish")
    shutil.copytree(SAMPLE / "memory", root / "memory-root" / "memory")
    server = wait_ready(launch_server(["--memory", str(root / "memory-root")], root / "serve.log"))
    yield server
    stop_server(server)


DANGER = """(sel) => {
  const probe = document.createElement('span');
  probe.style.color = 'var(--danger)';
  document.body.append(probe);
  const want = getComputedStyle(probe).color;
  probe.remove();
  return [getComputedStyle(document.querySelector(sel)).backgroundColor, want];
}"""


@pytest.mark.parametrize("size", ["phone", "desktop"])
def test_d16_forgetting_is_red_links_its_purge_guide_and_back_does_not_404(
    make_app: Any, forgetful: Server, size: str
) -> None:
    sid = "2026-11-21-1040" if size == "phone" else "2026-11-18-2045"
    app = make_app(forgetful, size=size)
    page = app.open("/", wait="[data-testid=briefing]")
    page.evaluate(f"location.hash = '#/slice/{sid}'")
    page.get_by_test_id("slice-forget").click()
    dialog = page.get_by_test_id("forget-dialog")
    confirm = dialog.get_by_test_id("forget-confirm")
    expect(confirm).to_be_visible()
    background, danger = page.evaluate(DANGER, "[data-testid=forget-confirm]")
    assert background == danger, (background, danger)
    # The repository path is now a link that shows the purge guide in the dialog.
    expect(dialog.get_by_test_id("forget-history")).not_to_contain_text("docs/FORGET.md")
    dialog.get_by_test_id("forget-purge").click()
    expect(dialog.get_by_test_id("forget-history")).to_contain_text("git filter-repo")
    requests: list[str] = []
    page.on("request", lambda r: r.url.endswith(f"/api/slices/{sid}") and requests.append(r.method))
    confirm.click()
    expect(page.get_by_test_id("forget-dialog")).to_have_count(0)
    expect(page.get_by_test_id("briefing")).to_be_visible()
    assert sid not in [e["id"] for e in forgetful.get("/api/timeline")["slices"]]
    # Back does not return to the slice that is gone (it would ask for it: a 404 and a console
    # error, which this fixture fails the test on).
    page.go_back()
    page.wait_for_timeout(500)
    assert sid not in page.url
    assert requests == ["DELETE"], requests


def test_d24_each_thing_is_asked_for_once_and_a_bad_address_says_what_it_is(
    make_app: Any, demo_server: Server
) -> None:
    app = make_app(demo_server, size="phone")
    asked: list[str] = []
    app.page.on("request", lambda r: "/api/" in r.url and asked.append(r.url.split("/api/", 1)[1]))
    page = app.open(wait="[data-testid=briefing]")
    expect(page.get_by_test_id("demo-badge")).to_be_visible()
    page.wait_for_load_state("networkidle")
    assert [a for a in asked if a.startswith("demo/personas")] == ["demo/personas"], asked
    # A slice that does not exist: asked for once (one 404), and said so.
    missing = "2020-01-01-0000"
    app.problems.allow(f"/api/slices/{missing}")
    page.evaluate(f"location.hash = '#/slice/{missing}'")
    expect(page.get_by_role("alert")).to_contain_text("This slice doesn't exist")
    page.wait_for_load_state("networkidle")
    assert asked.count(f"slices/{missing}") == 1, asked
    # An address that is no view of the page opens now, not a missing slice.
    page.evaluate("location.hash = '#/nonsense'")
    expect(page.get_by_test_id("briefing")).to_be_visible()
    expect(page.get_by_text("This slice doesn't exist")).to_have_count(0)
    # A persona link naming no persona: the notice, and no 400 in the console (the fixture fails
    # the test on any HTTP error it was not told to expect).
    other = make_app(demo_server, size="phone")
    page = other.open("/?persona=nobody", wait="[data-testid=persona-notice]")
    expect(page.get_by_test_id("persona-notice")).to_contain_text("no demo persona called “nobody”")
