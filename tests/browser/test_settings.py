"""Input controls and settings (UI.md §2 F)."""

from __future__ import annotations

import json

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import Server, save_screenshot
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
    seen = [effort.get_attribute("data-effort")]
    for _ in range(3):
        effort.click()
        seen.append(effort.get_attribute("data-effort"))
    assert set(seen) >= {"low", "high"}
    assert seen[0] == seen[3] or seen[1] == seen[3]
    with page.expect_response(lambda r: r.url.endswith("/api/config") and r.request.method == "PATCH"):
        effort.click()
    chosen = effort.get_attribute("data-effort")
    page.reload()
    page.wait_for_selector("[data-testid=effort]")
    assert page.get_by_test_id("effort").get_attribute("data-effort") == chosen


def test_settings_show_bounds_reject_bad_values_and_save(make_app, own_server: Server) -> None:
    app = make_app(own_server)
    page = app.open("/#/settings", wait="[data-testid=settings-form]")
    config = _config(own_server)
    minutes = page.locator("#set-maxSliceMinutes")
    assert minutes.input_value() == str(config["slicing"]["maxSliceMinutes"])
    assert (minutes.get_attribute("min"), minutes.get_attribute("max")) == ("5", "120")
    turns = page.locator("#set-maxTurnsPerSlice")
    assert (turns.get_attribute("min"), turns.get_attribute("max")) == ("5", "100")
    save = page.get_by_test_id("settings-save")
    minutes.fill("500")
    expect(minutes).to_have_attribute("aria-invalid", "true")
    assert "between 5 and 120" in page.locator("#set-maxSliceMinutes-hint").inner_text()
    expect(save).to_be_disabled()
    minutes.fill("4.5")
    expect(save).to_be_disabled()
    minutes.fill("45")
    expect(save).to_be_enabled()
    save_screenshot(page, f"settings-{app.size}-light")
    save.click()
    page.wait_for_function(
        "() => document.querySelector('[data-testid=settings-save]').innerText.includes('Saved')"
    )
    assert _config(own_server)["slicing"]["maxSliceMinutes"] == 45


def test_the_demo_says_its_settings_are_not_kept(make_app, demo_server: Server) -> None:
    flags = demo_server.get("/api/state")["flags"]
    app = make_app(demo_server)
    page = app.open("/#/settings", wait="[data-testid=settings-form]")
    banner = page.get_by_test_id("read-only-banner")
    # The flags come with /api/state, which may answer after the form (from /api/config) is drawn.
    banner.wait_for(state="visible")
    if flags["read_only"]:
        assert "read-only" in banner.inner_text()
        expect(page.get_by_test_id("settings-save")).to_be_disabled()
    else:
        assert "Demo" in banner.inner_text()
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
