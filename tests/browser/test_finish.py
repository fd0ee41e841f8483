"""Issue 22: the defects a pass at 390×844 and 1440×900 found, one test each at the size it showed."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import Server

pytestmark = pytest.mark.browser


def test_self_model_refs_are_slice_links_and_sections_carry_the_cli_names(make_app, demo_server: Server) -> None:
    app = make_app(demo_server)
    page = app.open("/#/card", wait="[data-testid=card-entry]")
    section = page.locator(".card-section[data-section=self_model]")
    entry = section.locator("[data-testid=card-entry]").first
    expect(entry.locator(".entry-text > span").first).not_to_contain_text("refs:")
    keys = page.locator(".card-section .section-key").all_inner_texts()
    assert {"past", "anchor", "now", "horizon", "self_model"} <= set(keys), keys
    entry.get_by_role("button", name="2024-08-19-1845").click()
    page.wait_for_selector("[data-testid=slice-view]")
    assert page.url.endswith("2024-08-19-1845")
