"""The sign-in page: shown when the API answers 401, refuses a wrong key, comes back after the right one."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import ACCESS_KEY, Server, assert_fits, save_screenshot

pytestmark = pytest.mark.browser


@pytest.mark.parametrize("size", ["phone", "desktop"])
def test_sign_in_guards_the_app_and_returns_to_it(make_app, auth_server: Server, size: str) -> None:
    app = make_app(auth_server, size=size)
    app.problems.allow("401")
    page = app.page
    page.goto(auth_server.url + "/#/slice/2026-11-21-1040")
    page.wait_for_url("**/sign-in.html?next=*")
    assert_fits(app)
    save_screenshot(page, f"sign-in-{size}-light")
    page.locator("#key").fill("not-the-key")
    page.locator("#sign-in-form button").click()
    expect(page.get_by_role("alert")).to_have_text("That key is not right.")
    page.locator("#key").fill(ACCESS_KEY)
    page.locator("#sign-in-form button").click()
    page.locator(
        "[data-testid=slice-view][data-slice-id='2026-11-21-1040'] [data-testid=turn]"
    ).first.wait_for()
    expect(page).to_have_url(re.compile(r"#/slice/2026-11-21-1040$"))
