"""The Import screen: choose an export, preview it, accept it, find the slices (UI.md sizes)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import (
    Server,
    assert_fits,
    launch_server,
    save_screenshot,
    stop_server,
    wait_ready,
)
from tests.fakes.exports import chatgpt_corpus, claude_corpus, write_zip

pytestmark = pytest.mark.browser


@pytest.fixture
def fresh_server(tmp_path: Path) -> Iterator[Server]:
    """A server over an empty memory of its own (the import changes it)."""
    server = wait_ready(launch_server(["--memory", str(tmp_path / "memory-root")], tmp_path / "serve.log"))
    yield server
    stop_server(server)


@pytest.mark.parametrize("size", ["phone", "desktop"])
def test_preview_then_accept_puts_the_conversations_on_the_timeline(
    make_app, fresh_server: Server, tmp_path: Path, size: str
) -> None:
    export = write_zip(tmp_path / "chatgpt-export.zip", chatgpt_corpus()[0], {"file-AbC123-cat.png": b"png"})
    app = make_app(fresh_server, size=size)
    page = app.open("/#/import", wait="[data-testid=import-page]")
    accept = page.get_by_test_id("import-accept")
    expect(accept).to_be_disabled()
    page.get_by_test_id("import-file").set_input_files(str(export))
    expect(page.get_by_test_id("import-format")).to_have_value("chatgpt")
    page.get_by_test_id("import-preview-btn").click()
    preview = page.get_by_test_id("import-preview")
    expect(preview).to_contain_text("From 2024-03-04 to 2024-03-11")
    counts = page.get_by_test_id("import-counts").inner_text()
    assert "Conversations\n3" in counts and "New slices\n4" in counts
    expect(page.get_by_test_id("import-skipped")).to_contain_text("image")
    # D15: each planned row names its conversation by its title (the id only in the tooltip).
    rows = page.get_by_test_id("import-planned").locator(".import-conversation")
    expect(rows.first).to_have_text("Kyoto trip")
    expect(rows.first).to_have_attribute("title", re.compile(r"^'Kyoto trip' \(.+\)$"))
    assert fresh_server.get("/api/timeline")["total"] == 0  # the preview wrote nothing
    assert_fits(app)
    save_screenshot(page, f"import-preview-{size}")
    accept.click()
    page.wait_for_selector("[data-testid=import-status].done")
    expect(page.get_by_test_id("import-status")).to_contain_text("4 slices")
    expect(accept).to_be_disabled()
    assert fresh_server.get("/api/timeline")["total"] == 4
    # D15: the page concludes — the preview has gone and a link opens the newest imported slice.
    expect(preview).to_have_count(0)
    page.get_by_test_id("import-open").click()
    expect(page.locator("[data-testid=slice-view] [data-testid=turn]").first).to_be_visible()
    page.goto(fresh_server.url + "/#/slice/2024-03-04-0901")
    expect(page.get_by_test_id("slice-view")).to_contain_text("Fushimi Inari")
    # …headed by the conversation's title, not "Opened with: …" its first line.
    expect(page.get_by_test_id("slice-view").locator("h1")).to_have_text("Kyoto trip")


def test_a_broken_export_is_refused_with_its_reason(make_app, fresh_server: Server, tmp_path: Path) -> None:
    bad = tmp_path / "conversations.json"
    bad.write_text('[{"title": "Broken", "id": "c-1", "mapping": 7}]', encoding="utf-8")
    app = make_app(fresh_server)
    app.problems.allow("/api/import/preview")
    page = app.open("/#/import", wait="[data-testid=import-page]")
    page.get_by_test_id("import-file").set_input_files(str(bad))
    page.get_by_test_id("import-preview-btn").click()
    page.wait_for_selector("[data-testid=import-status].failed")
    status = page.get_by_test_id("import-status")
    # D15: the message's code spans show as code, with no literal backticks.
    expect(status).to_contain_text("'Broken' (c-1): field mapping")
    expect(status.locator("code").first).to_have_text("mapping")
    assert "`" not in status.inner_text()
    expect(page.get_by_test_id("import-accept")).to_be_disabled()


def test_a_claude_export_lists_its_projects_documents_and_memories(
    make_app, fresh_server: Server, tmp_path: Path
) -> None:
    projects = [
        {
            "uuid": "p1",
            "name": "Garden",
            "created_at": "2024-05-01T10:00:00Z",
            "docs": [{"filename": "beds.md", "content": "Bed one: beans."}],
        }
    ]
    memories = [{"conversations_memory": "Mara restores clocks."}]
    extra = {"projects.json": json.dumps(projects).encode(), "memories.json": json.dumps(memories).encode()}
    export = write_zip(tmp_path / "claude-export.zip", claude_corpus()[0], extra)
    app = make_app(fresh_server)
    page = app.open("/#/import", wait="[data-testid=import-page]")
    page.get_by_test_id("import-file").set_input_files(str(export))
    page.get_by_test_id("import-format").select_option("claude")
    page.get_by_test_id("import-preview-btn").click()
    expect(page.get_by_test_id("import-projects")).to_contain_text("Garden")
    expect(page.get_by_test_id("import-projects")).to_contain_text("documents: 1")
    expect(page.get_by_test_id("import-memories")).to_contain_text("memories: 1")
    expect(page.get_by_test_id("import-card-lines")).to_contain_text("Mara restores clocks.")
    page.get_by_test_id("import-accept").click()
    page.wait_for_selector("[data-testid=import-status].done")
    page.goto(fresh_server.url + "/#/slice/2024-05-01-1000")
    expect(page.get_by_test_id("slice-view")).to_contain_text("beds.md")
