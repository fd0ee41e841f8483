"""A damaged slice file stays on the wheel, says so, and its view names the problem (FORMAT.md)."""

from __future__ import annotations

import shutil
from collections.abc import Iterator

import pytest
from playwright.sync_api import expect

from core.memory import paths
from tests.browser.conftest import SAMPLE, Server, launch_server, stop_server, wait_ready

pytestmark = pytest.mark.browser

DAMAGED = "2026-11-21-1040"  # a recent slice, so its row is near NOW on the wheel


@pytest.fixture(scope="module")
def damaged_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """The sample with one slice that is not UTF-8, and no catalog (a fresh one cannot read it)."""
    root = tmp_path_factory.mktemp("damaged")
    shutil.copytree(SAMPLE / "memory", root / "memory-root" / "memory")
    core = root / "memory-root" / str(paths.core_md(DAMAGED))
    core.write_bytes(core.read_bytes() + b"\xff\xfe")
    (root / "memory-root" / str(paths.CATALOG_TOP_JSON)).unlink()
    server = wait_ready(launch_server(["--memory", str(root / "memory-root")], root / "serve.log"))
    yield server
    stop_server(server)
    assert core.read_bytes().endswith(b"\xff\xfe")


def test_the_damaged_slice_is_on_the_wheel_and_its_view_says_why(make_app, damaged_server: Server) -> None:
    app = make_app(damaged_server)
    page = app.open()
    row = page.locator(f"[role=option][data-slice-id='{DAMAGED}']")
    expect(row).to_contain_text("Damaged file")
    page.goto(f"{damaged_server.url}/#/slice/{DAMAGED}")
    view = page.get_by_test_id("slice-view")
    expect(view.locator(".banner")).to_contain_text("not UTF-8")
    assert app.problems.items == []
