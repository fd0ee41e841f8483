"""Input controls and settings (UI.md §2 F)."""

from __future__ import annotations

import json

import pytest
from playwright.sync_api import Route, expect

from tests.browser.conftest import Server, eventually, save_screenshot
from tests.browser.scripted_turns import ScriptedTurns, full_script

pytestmark = pytest.mark.browser


def _config(server: Server) -> dict:
    """The stored preferences (`GET /api/config` answers `{config, problems}`)."""
    body = server.get("/api/config")
    return dict(body.get("config", body))


def test_the_model_picker_groups_models_saves_the_choice_and_sends_it(make_app, own_server: Server) -> None:
    models = own_server.get("/api/models")["models"]
    assert len(models) >= 2, "the writable server is started with a fake model provider"
    app = make_app(own_server)
    turns = ScriptedTurns(full_script()).install(app.page)
    page = app.open(wait="[data-testid=briefing]")
    page.get_by_test_id("model-selector").click()
    expect(page.locator(".model-group").first).to_be_visible()
    groups = page.locator(".model-group legend").all_inner_texts()
    assert [g.lower() for g in groups] == sorted(
        {m["provider"].lower() for m in models}, key=[m["provider"].lower() for m in models].index
    )
    expect(page.locator(".model-option input[name=model]")).to_have_count(len(models))
    current = page.locator(".model-option input[name=model]:checked").get_attribute("value")
    target = next(m for m in models if m["id"] != current)
    with page.expect_request(lambda r: r.url.endswith("/api/config") and r.method == "PATCH") as patch:
        page.locator(f".model-option input[value='{target['id']}']").check()
    assert json.loads(patch.value.post_data or "{}")["model"]["main"] == target["id"]
    page.keyboard.press("Escape")
    page.locator("#message-box").fill("Hi")
    page.locator("#message-box").press("Enter")
    page.wait_for_selector("[data-testid=msg-assistant][data-status=done]")
    assert turns.starts()[0]["model"] == target["id"]


def test_effort_cycles_and_is_remembered(make_app, own_server: Server) -> None:
    app = make_app(own_server)
    page = app.open(wait="[data-testid=briefing]")
    effort = page.get_by_test_id("effort")
    saved: list[str] = []
    page.on(
        "response",
        lambda r: r.url.endswith("/api/config") and r.request.method == "PATCH" and saved.append(r.url),
    )
    seen = [str(effort.get_attribute("data-effort"))]

    def step() -> None:
        effort.click()
        expect(effort).not_to_have_attribute("data-effort", seen[-1])
        seen.append(str(effort.get_attribute("data-effort")))

    for _ in range(3):
        step()
    assert set(seen) >= {"low", "high"}
    assert seen[0] == seen[3] or seen[1] == seen[3]
    step()
    # Every change has reached the server (each click saves; the responses may come after the clicks).
    eventually(page, lambda: len(saved) == 4, "four saves answered")
    chosen = seen[-1]
    assert _config(own_server)["model"]["effort"] == chosen
    page.reload()
    expect(page.get_by_test_id("effort")).to_have_attribute("data-effort", chosen)


def test_settings_show_bounds_reject_bad_values_and_save(make_app, own_server: Server) -> None:
    app = make_app(own_server)
    page = app.open("/#/settings", wait="[data-testid=settings-form]")
    config = _config(own_server)
    minutes = page.locator("#set-maxSliceMinutes")
    expect(minutes).to_have_value(str(config["slicing"]["maxSliceMinutes"]))
    assert (minutes.get_attribute("min"), minutes.get_attribute("max")) == ("5", "120")
    turns = page.locator("#set-maxTurnsPerSlice")
    assert (turns.get_attribute("min"), turns.get_attribute("max")) == ("5", "100")
    save = page.get_by_test_id("settings-save")
    minutes.fill("500")
    expect(minutes).to_have_attribute("aria-invalid", "true")
    expect(page.locator("#set-maxSliceMinutes-hint")).to_contain_text("between 5 and 120")
    expect(save).to_be_disabled()
    minutes.fill("4.5")
    expect(save).to_be_disabled()
    minutes.fill("45")
    expect(save).to_be_enabled()
    save_screenshot(page, f"settings-{app.size}-light")
    save.click()
    expect(save).to_contain_text("Saved")
    assert _config(own_server)["slicing"]["maxSliceMinutes"] == 45


def test_the_demo_says_its_settings_are_not_kept(make_app, demo_server: Server) -> None:
    flags = demo_server.get("/api/state")["flags"]
    app = make_app(demo_server)
    page = app.open("/#/settings", wait="[data-testid=settings-form]")
    banner = page.get_by_test_id("read-only-banner")
    # The flags come with /api/state, which may answer after the form (from /api/config) is drawn.
    banner.wait_for(state="visible")
    if flags["read_only"]:
        expect(banner).to_contain_text("read-only")
        expect(page.get_by_test_id("settings-save")).to_be_disabled()
    else:
        expect(banner).to_contain_text("Demo")
        expect(page.get_by_test_id("settings-save")).to_be_enabled()


def test_the_model_field_takes_any_id_and_shows_where_each_model_comes_from(
    make_app, own_server: Server
) -> None:
    app = make_app(own_server)
    page = app.open("/#/settings", wait="[data-testid=settings-form]")
    main = page.locator("#set-main")
    hint = page.locator("#set-main-hint")
    expect(hint).to_contain_text("Now: ")
    options = page.locator("#model-ids option")
    expect(options).to_have_count(len(own_server.get("/api/models")["models"]))
    states = page.get_by_test_id("provider-states")
    expect(states.locator("[data-provider=moonshot]")).to_contain_text("set MOONSHOT_API_KEY")
    expect(states.locator("[data-provider=anthropic]")).to_contain_text("ANTHROPIC_API_KEY is set")
    main.fill("my-own-model:7b")  # on no list: typed by hand
    with page.expect_response(lambda r: r.url.endswith("/api/config") and r.request.method == "PATCH"):
        page.get_by_test_id("settings-save").click()
    assert _config(own_server)["model"]["main"] == "my-own-model:7b"
    expect(hint).to_have_text("Now: my-own-model:7b (from Settings)")
    resolved = own_server.get("/api/models")
    assert resolved["main"] == "my-own-model:7b" and resolved["main_model"]["source"] == "config"
    save_screenshot(page, f"settings-models-{app.size}-light")
    main.fill("")  # back to automatic, for the other tests on this server
    with page.expect_response(lambda r: r.url.endswith("/api/config") and r.request.method == "PATCH"):
        page.get_by_test_id("settings-save").click()
    assert _config(own_server)["model"]["main"] == "auto"
    expect(hint).not_to_contain_text("my-own-model")


def test_the_settings_form_waits_for_the_stored_settings(make_app, own_server: Server) -> None:
    """Drawn before the stored settings arrive, the form would be reset under the user's typing."""
    config = _config(own_server)
    app = make_app(own_server, service_workers="block")  # page.route sees every fetch
    held: list[Route] = []

    def on_config(route: Route) -> None:
        if route.request.method == "GET":
            held.append(route)
        else:
            route.fallback()

    app.page.route("**/api/config", on_config)
    page = app.open("/#/settings")
    eventually(page, lambda: held, "the page asked for the stored settings")
    expect(page.get_by_test_id("settings-form")).to_have_count(0)
    held[0].continue_()
    minutes = page.locator("#set-maxSliceMinutes")
    expect(minutes).to_have_value(str(config["slicing"]["maxSliceMinutes"]))


def test_what_is_typed_while_a_save_is_in_flight_stays(make_app, own_server: Server) -> None:
    """The saved settings come back and are shown; a field changed meanwhile keeps the new text."""
    app = make_app(own_server)
    held: list[Route] = []

    def on_config(route: Route) -> None:
        if route.request.method == "PATCH":
            held.append(route)
        else:
            route.fallback()

    app.page.route("**/api/config", on_config)
    page = app.open("/#/settings", wait="[data-testid=settings-form]")
    minutes, turns = page.locator("#set-maxSliceMinutes"), page.locator("#set-maxTurnsPerSlice")
    minutes.fill("45")
    page.get_by_test_id("settings-save").click()
    eventually(page, lambda: held, "the page sent the save")
    turns.fill("12")  # typed while the save is in flight
    held[0].continue_()
    expect(page.get_by_test_id("settings-save")).to_contain_text("Saved")
    expect(minutes).to_have_value("45")
    expect(turns).to_have_value("12")
    assert _config(own_server)["slicing"]["maxSliceMinutes"] == 45


def test_quick_effort_changes_are_saved_in_the_order_they_were_made(make_app, own_server: Server) -> None:
    """The first save is held back; the second must not overtake it (or the first choice wins)."""
    app = make_app(own_server)
    page = app.open(wait="[data-testid=briefing]")
    held: list[Route] = []

    def on_config(route: Route) -> None:
        if route.request.method == "PATCH" and not held:
            held.append(route)
        else:
            route.fallback()

    page.route("**/api/config", on_config)
    answered: list[str] = []
    page.on("response", lambda r: r.request.method == "PATCH" and answered.append(r.url))
    effort = page.get_by_test_id("effort")
    seen = [str(effort.get_attribute("data-effort"))]
    for _ in range(2):
        effort.click()
        expect(effort).not_to_have_attribute("data-effort", seen[-1])
        seen.append(str(effort.get_attribute("data-effort")))
    eventually(page, lambda: held, "the first save went out")
    held[0].continue_()
    eventually(page, lambda: len(answered) == 2, "both saves answered")
    assert _config(own_server)["model"]["effort"] == seen[-1]
