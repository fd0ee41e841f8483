"""The slice view's own controls — edit, mark a loop done, download, forget a slice or an
exchange — and the export in Settings, at phone and desktop size.

A server of its own, on a fresh copy of the sample: these tests forget things.
"""

from __future__ import annotations

import io
import shutil
import urllib.error
import urllib.request
import zipfile
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import (
    REAL_TURN_MS,
    SAMPLE,
    Server,
    launch_server,
    model_env,
    save_screenshot,
    stop_server,
    wait_for_replies,
    wait_ready,
)
from tests.fakes.fake_model_server import FakeModelServer

pytestmark = pytest.mark.browser
SIZES = ["phone", "desktop"]


@pytest.fixture(scope="module")
def mine(tmp_path_factory: pytest.TempPathFactory, fake_model: FakeModelServer) -> Iterator[Server]:
    root = tmp_path_factory.mktemp("actions")
    shutil.copytree(SAMPLE / "memory", root / "memory-root" / "memory")
    args = ["--memory", str(root / "memory-root")]
    server = wait_ready(launch_server(args, root / "serve.log", model_env(fake_model)))
    yield server
    stop_server(server)


def _ids(server: Server) -> list[str]:
    return [e["id"] for e in server.get("/api/timeline")["slices"]]


def _pick(server: Server, n: int, want: str = "turns") -> str:
    """The n-th slice (from the oldest) that has what the test needs and has not been forgotten."""
    found = []
    for sid in _ids(server):
        data = server.get(f"/api/slices/{sid}")
        if want == "turns" and len(data["turns"]) >= 4 and data["status"] == "closed":
            found.append(sid)
        if want == "loops" and data["open_loops"]:
            found.append(sid)
    return found[n]


def _status(server: Server, path: str) -> int:
    try:
        with urllib.request.urlopen(server.url + path, timeout=10) as res:
            return int(res.status)
    except urllib.error.HTTPError as exc:
        return exc.code


def _open(make_app: Any, server: Server, sid: str, size: str) -> Page:
    app = make_app(server, size=size, reduced=True)
    return app.open(f"/#/slice/{sid}", wait=f"[data-slice-id='{sid}'] [data-testid=turn]")


@pytest.mark.parametrize("size", SIZES)
def test_forget_a_slice_asks_says_what_goes_and_that_history_keeps_it(
    make_app, mine: Server, size: str
) -> None:
    sid = _pick(mine, SIZES.index(size))
    data = mine.get(f"/api/slices/{sid}")
    page = _open(make_app, mine, sid, size)
    page.get_by_test_id("slice-forget").click()
    dialog = page.get_by_test_id("forget-dialog")
    expect(dialog.get_by_test_id("forget-what")).to_contain_text(data["focus"][:30])
    expect(dialog).to_contain_text(f"All {len(data['turns'])} turns")
    expect(dialog.get_by_test_id("forget-history")).to_contain_text("Git history still holds the old files")
    save_screenshot(page, f"forget-slice-{size}")
    dialog.get_by_role("button", name="Cancel").click()
    assert _status(mine, f"/api/slices/{sid}") == 200
    page.get_by_test_id("slice-forget").click()
    with page.expect_response(lambda r: r.request.method == "DELETE" and sid in r.url) as res:
        dialog.get_by_test_id("forget-confirm").click()
    assert res.value.status == 200
    page.wait_for_function("() => !location.hash.includes('/slice/')")
    expect(page.locator(f"[role=option][data-slice-id='{sid}']")).to_have_count(0)
    assert _status(mine, f"/api/slices/{sid}") == 404
    assert sid not in _ids(mine)


@pytest.mark.parametrize("size", SIZES)
def test_forget_one_exchange_removes_it_from_the_view(make_app, mine: Server, size: str) -> None:
    sid = _pick(mine, 2 + SIZES.index(size))
    data = mine.get(f"/api/slices/{sid}")
    second = [t for t in data["turns"] if t["role"] == "user"][1]
    page = _open(make_app, mine, sid, size)
    count = page.get_by_test_id("turn").count()
    page.get_by_test_id("forget-turn").nth(1).click()
    dialog = page.get_by_test_id("forget-turn-dialog")
    expect(dialog.get_by_test_id("forget-what")).to_contain_text(second["content"].split("\n")[0][:30])
    expect(dialog.get_by_test_id("forget-history")).to_be_visible()
    dialog.get_by_test_id("forget-confirm").click()
    expect(page.get_by_test_id("turn")).to_have_count(count - 2)
    expect(page.locator(".turn.user .bubble", has_text=second["content"].split("\n")[0][:30])).to_have_count(
        0
    )
    after = mine.get(f"/api/slices/{sid}")
    assert second["turn_id"] not in [t["turn_id"] for t in after["turns"]]


@pytest.mark.parametrize("size", SIZES)
def test_edit_the_marks_and_mark_a_loop_done(make_app, mine: Server, size: str) -> None:
    sid = _pick(mine, SIZES.index(size), want="loops")
    data = mine.get(f"/api/slices/{sid}")
    page = _open(make_app, mine, sid, size)
    page.get_by_test_id("slice-edit").click()
    dialog = page.get_by_test_id("edit-dialog")
    expect(dialog.locator("#edit-focus")).to_have_value(data["focus"])
    dialog.locator("#edit-focus").fill(f"My own words for {size}")
    save_screenshot(page, f"edit-slice-{size}")
    dialog.get_by_test_id("edit-save").click()
    expect(page.locator(".slice-focus")).to_have_text(f"My own words for {size}")
    stored = mine.get(f"/api/slices/{sid}")
    assert stored["marked_by"] == "user" and stored["summary"] == data["summary"]
    assert [t["content"] for t in stored["turns"]] == [t["content"] for t in data["turns"]]
    loop = data["open_loops"][0]
    page.get_by_test_id("slice-loops").get_by_role("button", name=f"Mark done: {loop}").click()
    expect(page.get_by_test_id("slice-loops").get_by_text(loop)).to_have_count(0)
    assert mine.get(f"/api/slices/{sid}")["done_loops"] == [loop]


def test_download_one_slice_as_markdown(make_app, mine: Server) -> None:
    sid = _pick(mine, 0)
    page = _open(make_app, mine, sid, "desktop")
    with page.expect_download() as dl:
        page.get_by_test_id("slice-download").click()
    assert dl.value.suggested_filename == f"slice-{sid}.md"
    text = open(dl.value.path(), encoding="utf-8").read()  # noqa: SIM115
    first = mine.get(f"/api/slices/{sid}")["turns"][0]["content"].split("\n")[0]
    assert first in text


@pytest.mark.parametrize("size", SIZES)
def test_the_demo_shows_the_controls_disabled_and_says_why(make_app, demo_server: Server, size: str) -> None:
    sid = _ids(demo_server)[-1]
    page = _open(make_app, demo_server, sid, size)
    expect(page.get_by_test_id("slice-forget")).to_be_disabled()
    expect(page.get_by_test_id("slice-edit")).to_be_disabled()
    expect(page.get_by_test_id("slice-actions")).to_contain_text("cannot be edited or forgotten")
    expect(page.get_by_test_id("forget-turn")).to_have_count(0)
    expect(page.get_by_test_id("loop-done")).to_have_count(0)


def test_settings_downloads_the_whole_memory(make_app, mine: Server) -> None:
    app = make_app(mine)
    page = app.open("/#/settings", wait="[data-testid=settings]")
    panel = page.get_by_test_id("export-panel")
    expect(panel).to_contain_text("byte for byte")
    with page.expect_download() as dl:
        panel.get_by_test_id("export-download").click()
    assert dl.value.suggested_filename.startswith("previously-memory-")
    with zipfile.ZipFile(io.BytesIO(open(dl.value.path(), "rb").read())) as zf:
        names = zf.namelist()
    assert "memory/episodic/current-previously.md" in names and "EXPORT.txt" in names


def _say(page: Page, text: str, done: int) -> None:
    page.locator("#message-box").fill(text)
    page.locator("#message-box").press("Enter")
    wait_for_replies(page, done)


@pytest.mark.parametrize("size", SIZES)
def test_copy_answer_again_and_edit_the_last_message(make_app, mine: Server, size: str) -> None:
    app = make_app(mine, size=size, reduced=True, permissions=["clipboard-read", "clipboard-write"])
    page = app.open(wait="[data-testid=briefing]")
    word = f"Pelican{size}"
    _say(page, f"Remember the {word} pier", 1)
    reply = page.locator("[data-testid=msg-assistant] .reply").last.inner_text()
    page.get_by_test_id("copy-reply").last.click()
    expect(page.get_by_test_id("copy-reply").last).to_contain_text("Copied")
    assert page.evaluate("() => navigator.clipboard.readText()").strip() == reply.strip()
    sid = mine.get("/api/state")["active"]["slice_id"]
    first = page.locator("[data-testid=msg-assistant]:not([data-earlier])").element_handle()
    with page.expect_response(lambda r: r.url.endswith("/retract")) as taken:
        page.get_by_test_id("regenerate").click()
    assert taken.value.status == 200
    # The old exchange leaves the view; until then it must not be editable (the retract is in flight).
    first.wait_for_element_state("hidden")
    wait_for_replies(page, 1)
    own = page.locator("[data-testid=msg-user]:not([data-earlier])")  # not an earlier size's exchanges
    expect(own).to_have_count(1)
    page.get_by_test_id("edit-message").click()
    page.locator(".msg-editing textarea").fill(f"Forget the pier, think of {word} bay")
    page.get_by_test_id("edit-send").click()
    expect(own).to_have_text([f"Forget the pier, think of {word} bay"], timeout=REAL_TURN_MS)
    wait_for_replies(page, 1)
    data = mine.get(f"/api/slices/{sid}")
    texts = [t["content"] for t in data["turns"]]
    assert f"Forget the pier, think of {word} bay" in texts and f"Remember the {word} pier" not in texts
    expect(page.get_by_test_id("regenerate")).to_have_count(1)


def test_the_controls_and_dialogs_have_no_serious_accessibility_problems(make_app, mine: Server) -> None:
    from tests.browser.test_a11y import serious_violations

    sid = _pick(mine, 0, want="loops")
    page = _open(make_app, mine, sid, "desktop")
    found = {"slice view with controls": serious_violations(page)}
    page.get_by_test_id("slice-edit").click()
    page.get_by_test_id("edit-dialog").locator("#edit-focus").wait_for()
    found["edit dialog"] = serious_violations(page)
    page.keyboard.press("Escape")
    page.get_by_test_id("slice-forget").click()
    page.get_by_test_id("forget-dialog").get_by_test_id("forget-what").wait_for()
    found["forget dialog"] = serious_violations(page)
    page.keyboard.press("Escape")
    page.get_by_test_id("forget-turn").first.click()
    page.get_by_test_id("forget-turn-dialog").get_by_test_id("forget-what").wait_for()
    found["forget-turn dialog"] = serious_violations(page)
    assert found == {key: [] for key in found}
