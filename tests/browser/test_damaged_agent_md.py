"""A damaged agent.md — a slice file other than core.md — is named in the briefing's notice after
`previously maintain` found it, and the page still loads and works (docs/FORMAT.md "Damaged files")."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator

import pytest
from playwright.sync_api import expect

from core.memory import paths
from tests.browser.conftest import (
    ISOLATE,
    SAMPLE,
    Server,
    launch_server,
    previously_bin,
    save_screenshot,
    settle,
    stop_server,
    wait_ready,
)

pytestmark = pytest.mark.browser

DAMAGED = "2026-11-21-1040"
AGENT_MD = paths.agent_md(DAMAGED).value


@pytest.fixture(scope="module")
def damaged_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """The sample with one slice's agent.md not UTF-8, maintained once, then served."""
    root = tmp_path_factory.mktemp("damaged-agent") / "memory-root"
    shutil.copytree(SAMPLE / "memory", root / "memory")
    agent = root / AGENT_MD
    damaged = agent.read_bytes() + b"\xff\xfe"
    agent.write_bytes(damaged)
    env = {k: v for k, v in os.environ.items() if k not in ISOLATE}
    done = subprocess.run(
        [previously_bin(), "maintain", "--no-model", "--memory", str(root)],
        capture_output=True, text=True, env=env, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0 and AGENT_MD in done.stdout, done.stdout + done.stderr
    server = wait_ready(launch_server(["--memory", str(root)], root.parent / "serve.log"))
    yield server
    stop_server(server)
    assert agent.read_bytes() == damaged  # left byte for byte


def test_the_briefing_names_the_damaged_agent_md_and_the_page_still_works(
    make_app, damaged_server: Server
) -> None:
    app = make_app(damaged_server)
    page = app.open()
    notice = page.get_by_test_id("damage-notice")
    expect(notice).to_be_visible()
    expect(notice).to_contain_text(AGENT_MD)
    expect(notice).to_contain_text("not UTF-8")
    icon = notice.locator(".damage-title svg").bounding_box()
    words = notice.locator(".damage-title span").bounding_box()
    assert icon and words and words["x"] - (icon["x"] + icon["width"]) >= 4, "the icon touches the title"
    notice.scroll_into_view_if_needed()
    settle(page)
    save_screenshot(page, "damage-notice-desktop")
    expect(page.locator(f"[role=option][data-slice-id='{DAMAGED}']")).to_have_count(1)  # the wheel loads
    page.goto(f"{damaged_server.url}/#/slice/{DAMAGED}")
    expect(page.get_by_test_id("slice-view")).to_be_visible()  # its turns still open
    assert app.problems.items == []
