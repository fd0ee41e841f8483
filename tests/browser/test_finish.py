"""Issue 22: the defects a pass at 390×844 and 1440×900 found, one test each at the size it showed."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import Server, eventually

pytestmark = pytest.mark.browser


def test_self_model_refs_are_slice_links_and_sections_carry_the_cli_names(
    make_app, demo_server: Server
) -> None:
    app = make_app(demo_server)
    page = app.open("/#/card", wait="[data-testid=card-entry]")
    section = page.locator(".card-section[data-section=self_model]")
    entry = section.locator("[data-testid=card-entry]").first
    expect(entry.locator(".entry-text > span").first).not_to_contain_text("refs:")
    keys = page.locator(".card-section .section-key").all_inner_texts()
    assert {"past", "anchor", "now", "horizon", "self_model"} <= set(keys), keys
    entry.get_by_role("button", name="2024-08-19-1845").click()
    page.wait_for_selector("[data-testid=slice-view]")
    expect(page).to_have_url(re.compile(r"2024-08-19-1845$"))


IN_THE_WHEEL = "() => !!document.activeElement?.closest('[role=listbox]')"


def test_one_esc_closes_search_and_focus_returns_to_its_opener(make_app, demo_server: Server) -> None:
    app = make_app(demo_server)
    page = app.open()
    opener = page.locator(".wheel-toolbar button[aria-label]").last
    opener.click()
    box = page.locator("#search-q")
    expect(box).to_be_focused()
    box.fill("mandarin")
    page.keyboard.press("Escape")
    page.wait_for_function("() => !document.querySelector('[data-testid=search-dialog]').open")
    expect(opener).to_be_focused()
    # Opened from the keyboard in the wheel, it returns there.
    page.locator("[role=listbox]").first.focus()
    page.wait_for_function(IN_THE_WHEEL)
    page.keyboard.press("/")
    page.wait_for_function("() => document.querySelector('[data-testid=search-dialog]').open")
    expect(box).to_be_focused()
    page.keyboard.press("Escape")
    page.wait_for_function("() => !document.querySelector('[data-testid=search-dialog]').open")
    # Focus goes back with the dialog's close event, a task after it closed.
    page.wait_for_function(IN_THE_WHEEL, timeout=5000)


def test_esc_on_the_card_at_the_time_returns_focus_to_its_opener(make_app, demo_server: Server) -> None:
    app = make_app(demo_server, size="phone")
    page = app.open("/#/slice/2026-11-21-1040", wait="[data-testid=slice-view]")
    bar = page.get_by_test_id("previously-bar")
    bar.click()
    page.get_by_test_id("previously-dialog").locator(".md").first.wait_for()
    page.keyboard.press("Escape")
    page.wait_for_function(
        "() => ![...document.querySelectorAll('[data-testid=previously-dialog]')].some(d => d.open)"
    )
    expect(bar).to_be_focused()


def test_the_shortcut_sheet_lists_esc_and_space(make_app, demo_server: Server) -> None:
    app = make_app(demo_server)
    page = app.open()
    page.keyboard.press("?")
    sheet = page.get_by_test_id("shortcuts-dialog")
    page.wait_for_function("() => document.querySelector('[data-testid=shortcuts-dialog]').open")
    keys = sheet.locator("kbd").all_inner_texts()
    assert "Esc" in keys and any("Space" in k for k in keys), keys
    page.keyboard.press("Escape")
    page.wait_for_function("() => !document.querySelector('[data-testid=shortcuts-dialog]').open")


def test_in_chinese_the_effort_button_does_not_read_like_the_language_button(
    make_app, own_server: Server
) -> None:
    app = make_app(own_server, size="phone")
    page = app.open("/?lang=zh")
    effort = page.get_by_test_id("effort").inner_text().strip()
    header = {t.strip() for t in page.locator("header button").all_inner_texts()}
    assert effort and effort not in header and effort not in {"中", "EN"}, (effort, header)


def test_settings_save_closes_the_saved_settings_and_the_demo_banner_matches_the_readme(
    make_app, demo_server: Server
) -> None:
    app = make_app(demo_server, size="phone")
    page = app.open("/#/settings", wait="[data-testid=settings-form]")
    page.wait_for_load_state("networkidle")  # the model list fills in after the form: measure after it
    save = page.get_by_test_id("settings-save").bounding_box()
    theme = page.locator("#set-theme").bounding_box()
    form = page.get_by_test_id("settings-form").bounding_box()
    assert save and theme and form
    # Appearance (this browser, applied at once) is not inside the part the Save button saves.
    assert theme["y"] < form["y"] <= save["y"]
    last = page.locator("[data-testid=settings-form] fieldset").last.bounding_box()
    assert last and save["y"] > last["y"] + last["height"] - 1
    banner = page.get_by_test_id("read-only-banner")
    banner.wait_for(state="visible")
    assert "kept only for you" in banner.inner_text()
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    assert "kept only for you" in readme


def _steps_script(error: bool = False) -> list:  # type: ignore[type-arg]
    from tests.browser.scripted_turns import PAUSE, SLICE_ID, _event

    head = [
        _event(
            1,
            "turn.started",
            "prepare",
            slice_id=SLICE_ID,
            slice_opened=False,
            slice_closed=None,
            user_turn_id="u1",
        ),
        _event(2, "step.started", "prepare", label="Opening the slice"),
        _event(3, "step.done", "prepare", label="Slice ready"),
        _event(4, "step.started", "agent", label="Thinking"),
    ]
    if error:
        return [*head, _event(5, "turn.error", "agent", code="model_error", message="The provider said no.")]
    return [
        *head,
        PAUSE,
        _event(5, "text.delta", text="Here is the plan"),
        PAUSE,
        _event(6, "turn.done", "finish", status="done", agent_turn_id="a1"),
    ]


def test_the_steps_stop_spinning_once_the_reply_streams_and_an_error_says_where_it_stopped(
    make_app, demo_server: Server
) -> None:
    from tests.browser.scripted_turns import ScriptedTurns

    app = make_app(demo_server, size="phone")
    turns = ScriptedTurns(_steps_script()).install(app.page)
    page = app.open(wait="[data-testid=briefing]")
    page.locator("#message-box").fill("Plan?")
    page.locator("#message-box").press("Enter")
    steps = page.get_by_test_id("housekeeping")
    expect(steps).to_have_attribute("data-phase", "busy")
    turns.release()
    page.get_by_text("Here is the plan").wait_for()
    expect(steps).to_have_attribute("data-phase", "replying")
    expect(page.locator("[data-testid=housekeeping] .spin")).to_have_count(0)
    turns.release()
    expect(steps).to_have_attribute("data-phase", "complete")

    app2 = make_app(demo_server, size="phone")
    ScriptedTurns(_steps_script(error=True)).install(app2.page)
    page2 = app2.open(wait="[data-testid=briefing]")
    page2.locator("#message-box").fill("Plan?")
    page2.locator("#message-box").press("Enter")
    page2.get_by_test_id("turn-error").wait_for()
    label = page2.locator("[data-testid=housekeeping] .card-label")
    expect(label).to_contain_text("Thinking")
    expect(label).not_to_contain_text("All steps done")


def test_enter_during_a_turn_queues_the_message_and_sends_it_after(make_app, demo_server: Server) -> None:
    from tests.browser.scripted_turns import ScriptedTurns

    app = make_app(demo_server)
    turns = ScriptedTurns(_steps_script()).install(app.page)
    page = app.open(wait="[data-testid=briefing]")
    box = page.locator("#message-box")
    box.fill("First")
    box.press("Enter")
    page.get_by_test_id("stop").wait_for()
    box.fill("Second, after that")
    box.press("Enter")
    expect(page.get_by_test_id("queued")).to_be_visible()
    expect(box).to_have_value("Second, after that")
    assert len(turns.starts()) == 1
    turns.release()
    turns.release()
    expect(page.get_by_test_id("msg-user")).to_have_count(2)
    # The start goes out over the socket just after the message is drawn.
    eventually(page, lambda: len(turns.starts()) == 2, "the queued message is sent")
    assert [s["message"] for s in turns.starts()] == ["First", "Second, after that"]
    expect(page.get_by_test_id("queued")).to_have_count(0)
    expect(box).to_have_value("")


def test_on_a_phone_the_setup_notice_follows_the_briefing_folded_to_one_line(
    make_app, empty_server: Server
) -> None:
    app = make_app(empty_server, size="phone")
    page = app.open(wait="[data-testid=setup-notice]")
    notice = page.get_by_test_id("setup-notice")
    box, name = notice.bounding_box(), page.locator(".brief-title").bounding_box()
    assert box and name and box["y"] >= name["y"] + name["height"]
    assert box["height"] < 0.12 * 844, box
    notice.locator("summary").click()
    expect(page.get_by_test_id("setup-guide")).to_be_visible()

    desk = make_app(empty_server)
    page = desk.open(wait="[data-testid=setup-notice]")
    expect(page.get_by_test_id("setup-guide")).to_be_visible()


def test_the_card_at_the_time_shows_the_card_not_its_bookkeeping(make_app, demo_server: Server) -> None:
    app = make_app(demo_server, size="phone")
    page = app.open("/#/slice/2026-11-21-1040", wait="[data-testid=slice-view] [data-testid=turn]")
    page.get_by_test_id("previously-bar").click()
    dialog = page.get_by_test_id("previously-dialog")
    dialog.locator(".md h2").first.wait_for()
    text = dialog.inner_text()
    assert "Active slice" not in text and "Format:" not in text and "Updated:" not in text
    assert "Identity" in dialog.locator(".md h2").all_inner_texts()
    # D14: refs are links to their slices, not "— refs: [2025/02/08/1617]".
    assert "refs:" not in text
    ref = dialog.locator(".md a[href='#/slice/2025-02-08-1617']")
    expect(ref).to_have_text("2025/02/08")
    expect(ref).not_to_have_attribute("target", "_blank")


def test_without_a_session_the_page_goes_to_sign_in_without_a_single_401(
    make_app, auth_server: Server
) -> None:
    app = make_app(auth_server, size="phone")
    refused: list[str] = []
    app.page.on("response", lambda res: res.status == 401 and refused.append(res.url))
    app.page.goto(auth_server.url + "/#/card")
    app.page.wait_for_url("**/sign-in.html?next=*")
    assert refused == []


def test_installable_and_offline_it_shows_the_last_timeline_read_only(make_app, demo_server: Server) -> None:
    app = make_app(demo_server, size="phone")
    page = app.open(wait="[data-testid=briefing-name]")
    manifest = page.evaluate("fetch(document.querySelector('link[rel=manifest]').href).then(r => r.json())")
    assert manifest["display"] == "standalone" and len(manifest["icons"]) >= 2
    assert page.evaluate("navigator.serviceWorker.ready.then(r => r.active.scriptURL)").endswith("/sw.js")
    # A load under the service worker keeps a copy of what the page read.
    page.reload()
    page.wait_for_selector("[data-testid=briefing-name]")
    page.wait_for_function("() => navigator.serviceWorker.controller !== null")
    name = page.get_by_test_id("briefing-name").inner_text()
    # The timeline's rows come with their own read, after the briefing.
    expect(page.locator("[role=option]")).not_to_have_count(0)
    page.wait_for_load_state("networkidle")
    rows = page.locator("[role=option]").count()
    app.context.set_offline(True)
    app.problems.allow("ERR_INTERNET_DISCONNECTED")
    page.reload()
    expect(page.get_by_test_id("briefing-name")).to_have_text(name)
    expect(page.locator("[role=option]")).to_have_count(rows)
    expect(page.get_by_test_id("offline")).to_be_visible()
    expect(page.locator("#message-box")).to_have_attribute("placeholder", "Offline: reading only")
    page.locator("#message-box").fill("Hello")
    page.locator("#message-box").press("Enter")
    expect(page.get_by_test_id("send")).to_be_disabled()
    app.context.set_offline(False)
    expect(page.get_by_test_id("offline")).to_have_count(0)


def test_the_answer_notification_is_opt_in_from_settings(make_app, own_server: Server) -> None:
    app = make_app(own_server, permissions=["notifications"])
    page = app.open("/#/settings", wait="[data-testid=settings-form]")
    toggle = page.get_by_test_id("notify-toggle")
    expect(toggle).not_to_be_checked()
    stored = "(want) => localStorage.getItem('previously:notify') === want"
    toggle.check()
    expect(toggle).to_be_checked()
    page.wait_for_function(stored, arg="on")
    toggle.uncheck()
    expect(toggle).not_to_be_checked()
    page.wait_for_function(stored, arg="off")


MIN_TEXT_PX = 9.5
FONT_PX = """(sel) => [...document.querySelectorAll(sel)].map((el) => {
  const box = el.getBoundingClientRect();
  return box.height > 0 ? parseFloat(getComputedStyle(el).fontSize) * (box.height / el.offsetHeight) : 99;
})"""


def test_desktop_rows_away_from_the_centre_stay_readable_and_focus_uses_the_column(
    make_app, demo_server: Server
) -> None:
    app = make_app(demo_server)
    page = app.open()
    page.locator("[role=option]").nth(5).wait_for()
    sizes = page.evaluate(FONT_PX, "[role=option] .wheel-date")
    assert sizes and min(sizes) >= MIN_TEXT_PX, sizes
    widths = page.evaluate(
        "() => [...document.querySelectorAll('[role=option] .wheel-focus')]"
        ".map(e => e.getBoundingClientRect().width)"
    )
    column = page.locator(".wheel-col").bounding_box()
    assert column and max(widths) >= 0.5 * column["width"], (widths, column)


def test_the_phone_spine_shows_the_year_hides_half_rows_and_is_visible_in_the_dark(
    make_app, demo_server: Server
) -> None:
    app = make_app(demo_server, size="phone", scheme="dark")
    page = app.open("/#/slice/2026-11-21-1040", wait="[data-testid=slice-view] [data-testid=turn]")
    expect(page.get_by_test_id("wheel-year")).to_have_text("2026")
    mask = page.evaluate("getComputedStyle(document.querySelector('.wheel.phone .wheel-scroller')).maskImage")
    assert "96px" in mask, mask
    shadow = page.evaluate("getComputedStyle(document.querySelector('.wheel-spine')).boxShadow")
    assert shadow and shadow != "none", shadow


def test_dates_use_one_format_and_turns_repeat_only_the_time(make_app, demo_server: Server) -> None:
    import re

    app = make_app(demo_server)
    page = app.open("/#/slice/2026-11-21-1040", wait="[data-testid=slice-view] [data-testid=turn]")
    stamps = page.locator("[data-testid=turn] time").all_inner_texts()
    assert stamps and all(re.fullmatch(r"\d\d:\d\d", s) for s in stamps), stamps
    head = page.locator(".slice-when").inner_text()
    assert re.search(r"\d{4}/\d\d/\d\d", head), head


def test_after_chatting_only_elsewhere_the_briefing_shows_the_slice_in_progress(
    make_app, tmp_path: Path
) -> None:
    from tests.browser.conftest import launch_server, stop_server, wait_ready

    sid = "2026-11-30-1100"
    head = f'---\nslice_id: "{sid}"\nstatus: active\nstart: "2026-11-30T11:00:00.000Z"\n---\n\n'
    body = "".join(
        f"## Turn u{i} — 2026-11-30T11:0{i}:00.000Z (user)\n\nPlanning the garden, part {i}\n\n"
        f"## Turn a{i} — 2026-11-30T11:0{i}:30.000Z (agent)\n\nNoted {i}.\n\n"
        for i in range(4)
    )
    core = tmp_path / "root" / "memory" / "episodic" / "slices" / "2026" / "11" / "30" / "1100" / "timeline"
    core.mkdir(parents=True)
    (core / "core.md").write_text(head + body, encoding="utf-8")
    server = wait_ready(launch_server(["--memory", str(tmp_path / "root")], tmp_path / "serve.log"))
    try:
        app = make_app(server, size="phone")
        page = app.open(wait="[data-testid=briefing]")
        expect(page.get_by_test_id("briefing-last-topic")).to_contain_text("Planning the garden, part 0")
        assert "Nothing remembered yet" not in page.get_by_test_id("briefing").inner_text()
        assert "Opened with" not in page.get_by_test_id("briefing").inner_text()
        entry = next(s for s in server.get("/api/timeline")["slices"] if s["id"] == sid)
        assert entry["turn_count"] == 8
    finally:
        app.context.close()
        stop_server(server)


# Press "/" and look at the search dialog as soon as the page has drawn it (a microtask later).
OPEN_AT_ONCE = """async () => {
  document.body.dispatchEvent(new KeyboardEvent('keydown', { key: '/', bubbles: true }));
  await Promise.resolve();
  const dlg = document.querySelector('[data-testid=search-dialog]');
  return { drawn: !!document.querySelector('#search-q'), modal: !!dlg && dlg.open };
}"""


def test_a_dialog_is_modal_as_soon_as_it_is_drawn(make_app, demo_server: Server) -> None:
    """An Esc pressed right after opening must reach the dialog, not the page behind it."""
    app = make_app(demo_server)
    page = app.open(wait="[data-testid=briefing]")
    assert page.evaluate(OPEN_AT_ONCE) == {"drawn": True, "modal": True}
    page.keyboard.press("Escape")
    page.wait_for_function("() => !document.querySelector('[data-testid=search-dialog]').open")
