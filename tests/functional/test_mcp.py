"""The MCP server through the SDK's own client: `previously mcp` over stdio, and `/mcp` over HTTP.

The memory is a LoCoMo dev conversation imported with `previously import --format locomo`;
recall must find the slice holding a question's evidence, read_slice must return its words.
"""

from __future__ import annotations

import json
import shutil
import sys
from collections.abc import Awaitable, Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.exceptions import MCPError
from mcp_types import Implementation
from typer.testing import CliRunner

from core.agent.recall.scan import REPORT_TOOL
from core.clock import iso
from core.memory.paths import CONFIG_JSON, core_md
from core.memory.slice.model import parse_core_md
from core.memory.slice.staged_notes import NOTES_DIR
from functions.cli import _load_commands, app
from functions.compose.local import build_deps
from functions.server import ServeOptions, build_app
from functions.settings import load_settings
from tests.conftest import LOCOMO_DEV, REPO_ROOT
from tests.fakes.fake_model_server import FakeModelServer, Reply, ToolCall
from tests.fakes.live_server import live_server

pytestmark = pytest.mark.functional

_load_commands()
LOCOMO = LOCOMO_DEV
QUESTION = "When did Melanie run a charity race?"
TOOLS = [
    "recall",
    "read_slice",
    "read_slice_summary",
    "timeline_window",
    "briefing",
    "read_card",
    "search",
    "context",
    "remember",
]
KEY = "mcp test key, long and random enough"
AGENT = Implementation(name="pytest-agent", version="1.0")
NO_MODEL = {"OPENAI_BASE_URL": "", "OPENAI_API_KEY": "", "ANTHROPIC_API_KEY": "", "DEEPSEEK_API_KEY": ""}

needs_locomo = pytest.mark.skipif(not LOCOMO.is_dir(), reason="LoCoMo dev data not beside the repository")


def gold(question: str) -> set[str]:
    for line in (LOCOMO / "qa_gold_dev.jsonl").read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        if row["question"] == question:
            return set(row["evidence_slice_ids"])
    raise AssertionError(f"{question!r} is not in the gold file")


@pytest.fixture(scope="module")
def locomo_memory(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("locomo")
    args = ["import", "--format", "locomo", str(LOCOMO / "locomo10_dev.json"), "--conversation", "conv-26"]
    result = CliRunner().invoke(app, [*args, "--memory", str(root)], env={**NO_MODEL, "STORAGE": ""})
    assert result.exit_code == 0, result.output
    return root


@pytest.fixture
def memory(locomo_memory: Path, tmp_path: Path) -> Path:
    """A private copy (tests that write must not change the shared import)."""
    root = tmp_path / "mem"
    shutil.copytree(locomo_memory, root)
    return root


def set_remember(root: Path, mode: str) -> None:
    path = root / str(CONFIG_JSON)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"mcpRemember": mode}), encoding="utf-8")


def stdio(root: Path, *extra: str, env: dict[str, str] | None = None) -> Client:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "functions.cli", "mcp", "--memory", str(root), *extra],
        env={**NO_MODEL, "STORAGE": "", "PYTHONPATH": str(REPO_ROOT), **(env or {})},
        cwd=str(root),
    )
    return Client(params, read_timeout_seconds=60, client_info=AGENT)


def run(client: Client, body: Callable[[Client], Awaitable[Any]]) -> Any:
    async def main() -> Any:
        async with client:
            return await body(client)

    return anyio.run(main)


def text(result: Any) -> str:
    return "\n".join(block.text for block in result.content)


async def read_checks(c: Client) -> dict[str, Any]:
    """Everything the read-side tests look at, in one connection (a subprocess costs seconds)."""
    out: dict[str, Any] = {"tools": [t.name for t in (await c.list_tools()).tools]}
    out["recall"] = await c.call_tool("recall", {"query": QUESTION, "k": 5})
    out["search"] = await c.call_tool("search", {"q": "charity race", "k": 3})
    sid = out["recall"].structured_content["hits"][0]["slice_id"]
    out["slice"] = await c.call_tool("read_slice", {"slice_id": sid})
    out["last"] = await c.call_tool("read_slice", {"slice_id": sid, "range": {"type": "last", "count": 1}})
    out["summary"] = await c.call_tool("read_slice_summary", {"slice_id": sid})
    out["window"] = await c.call_tool("timeline_window", {"from": "2023-05-01", "to": "2023-05-31"})
    out["card"] = await c.call_tool("read_card", {})
    out["resource"] = await c.read_resource(f"previously://slice/{sid}")
    out["bad"] = {
        "id": await c.call_tool("read_slice", {"slice_id": "last tuesday"}),
        "missing": await c.call_tool("read_slice_summary", {"slice_id": "2020-01-01-0000"}),
        "k": await c.call_tool("recall", {"query": QUESTION, "k": 0}),
        "empty": await c.call_tool("search", {"q": ""}),
        "day": await c.call_tool("timeline_window", {"from": "May 2023"}),
        "range": await c.call_tool("read_slice", {"slice_id": sid, "range": {"type": "lines", "start": 9}}),
        "args": await c.call_tool("read_slice", {}),
        "tool": await c.call_tool("forget_everything", {}),
    }
    try:
        await c.read_resource("previously://slice/2020-01-01-0000")
        out["bad_resource"] = None
    except MCPError as exc:
        out["bad_resource"] = str(exc)
    out["remember"] = await c.call_tool(
        "remember", {"text": "Melanie's race raised money for mental health."}
    )
    out["after"] = await c.call_tool("read_card", {})  # the connection survived every refusal
    return out


def assert_reads(out: dict[str, Any], root: Path) -> None:
    assert out["tools"] == TOOLS
    recall = out["recall"]
    assert not recall.is_error
    hits = recall.structured_content["hits"]
    assert gold(QUESTION) & {h["slice_id"] for h in hits}
    assert recall.structured_content["source"] == "floor"  # no model configured
    assert all(set(h) == {"slice_id", "relevance", "reason"} and 0 <= h["relevance"] <= 1 for h in hits)
    assert out["search"].structured_content["hits"][0]["slice_id"] in gold(QUESTION)

    sid = hits[0]["slice_id"]
    stored = parse_core_md((root / str(core_md(sid))).read_text(encoding="utf-8"))
    words = text(out["slice"])
    assert all(turn.content in words for turn in stored.turns)
    assert stored.turns[-1].content in text(out["last"]) and stored.turns[0].content not in text(out["last"])
    assert text(out["summary"]).startswith(f"Slice {sid}\n") and f"Turns: {len(stored.turns)}" in text(
        out["summary"]
    )
    assert "2023-05-25-1314" in text(out["window"]) and "2023-06-09-1955" not in text(out["window"])
    assert "still empty" in text(out["card"])  # LoCoMo brings no user card
    assert all(turn.content in out["resource"].contents[0].text for turn in stored.turns)


def assert_refusals(out: dict[str, Any]) -> None:
    bad = out["bad"]
    assert all(result.is_error for result in bad.values())
    assert "is not a slice id" in text(bad["id"]) and "timeline_window" in text(bad["id"])
    assert "There is no slice 2020-01-01-0000" in text(bad["missing"])
    assert "k" in text(bad["k"]) and "greater than or equal to 1" in text(bad["k"])
    assert "at least 1 character" in text(bad["empty"])
    assert "YYYY-MM-DD" in text(bad["day"])
    assert "start` ≤ `end`" in text(bad["range"])
    assert "slice_id" in text(bad["args"]) and "Field required" in text(bad["args"])
    assert "forget_everything" in text(bad["tool"])
    assert out["bad_resource"] and "There is no slice 2020-01-01-0000" in out["bad_resource"]
    assert out["remember"].is_error and '"mcpRemember": "stage"' in text(out["remember"])
    assert not out["after"].is_error


@needs_locomo
def test_stdio_server_reads_recalls_and_refuses_cleanly(memory: Path) -> None:
    before = sorted(p.relative_to(memory) for p in memory.rglob("*"))
    out = run(stdio(memory), read_checks)
    assert_reads(out, memory)
    assert_refusals(out)
    assert sorted(p.relative_to(memory) for p in memory.rglob("*")) == before  # nothing written


@needs_locomo
def test_stdio_recall_is_the_worker_scan_when_a_model_is_configured(
    memory: Path, fake_models: FakeModelServer
) -> None:
    evidence = sorted(gold(QUESTION))[0]
    found = [
        {"slice_id": evidence, "relevance": 0.9, "reason": "the charity race"},
        {"slice_id": "2031-01-01-0000", "relevance": 0.8, "reason": "invented"},
    ]
    fake_models.enqueue(
        Reply(tool_calls=[ToolCall("searchMemory", {"query": "charity race"})]),
        Reply(tool_calls=[ToolCall(REPORT_TOOL, {"hits": found, "confidence": 0.8})]),
    )

    async def body(c: Client) -> Any:
        return await c.call_tool("recall", {"query": QUESTION})

    result = run(stdio(memory, env={"OPENAI_BASE_URL": fake_models.openai_base_url}), body)
    assert not result.is_error, text(result)
    out = result.structured_content
    assert out["source"] == "worker" and out["confidence"] == 0.8
    assert out["hits"] == [{"slice_id": evidence, "relevance": 0.9, "reason": "the charity race"}]
    assert len(fake_models.model_requests()) == 2


@needs_locomo
def test_stdio_remember_stages_a_note_when_the_owner_allows_it(memory: Path) -> None:
    set_remember(memory, "stage")

    async def body(c: Client) -> Any:
        return await c.call_tool("remember", {"text": "Melanie ran the race for mental health."})

    result = run(stdio(memory), body)
    assert not result.is_error and "Staged as note" in text(result)
    (note,) = (memory / str(NOTES_DIR)).iterdir()
    stored = json.loads(note.read_text(encoding="utf-8"))
    assert (stored["text"], stored["source"], stored["status"]) == (
        "Melanie ran the race for mental health.",
        "MCP (stdio) · pytest-agent",
        "staged",
    )
    listed = CliRunner().invoke(app, ["notes", "--memory", str(memory)])
    assert listed.exit_code == 0 and "Melanie ran the race for mental health." in listed.stdout


@needs_locomo
def test_stdio_read_only_flag_refuses_even_when_config_allows(memory: Path) -> None:
    set_remember(memory, "append")

    async def body(c: Client) -> Any:
        return await c.call_tool("remember", {"text": "x"})

    result = run(stdio(memory, "--read-only"), body)
    assert result.is_error and "read-only" in text(result)
    assert not (memory / str(NOTES_DIR)).exists()


# ---------------------------------------------------------------- over HTTP


@pytest.fixture
def http_server(memory: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[str, Path]]:
    for var in NO_MODEL:
        monkeypatch.delenv(var, raising=False)
    settings = load_settings(STORAGE="local", PREVIOUSLY_ACCESS_KEY=KEY)
    deps = build_deps(settings, memory_override=memory, require_auth=True)
    with live_server(build_app(deps, ServeOptions(require_auth=True, maintenance_minutes=0))) as url:
        yield url, memory


def remote(url: str, key: str | None) -> Client:
    headers = {"x-access-key": key} if key else {}
    transport = streamable_http_client(f"{url}/mcp", http_client=create_mcp_http_client(headers=headers))
    return Client(transport, client_info=AGENT)


@needs_locomo
def test_http_with_the_key_serves_the_same_tools(http_server: tuple[str, Path]) -> None:
    url, root = http_server
    out = run(remote(url, KEY), read_checks)
    assert_reads(out, root)
    assert_refusals(out)


@needs_locomo
def test_http_without_the_key_is_refused_like_the_rest_of_the_api(http_server: tuple[str, Path]) -> None:
    url, _ = http_server
    for key in (None, "wrong key"):
        with pytest.raises(Exception):  # noqa: B017 - the client surfaces the 401 as its own error
            run(remote(url, key), lambda c: c.list_tools())
        raw = httpx.post(
            f"{url}/mcp",
            json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
            headers={"x-access-key": key} if key else {},
        )
        assert raw.status_code == 401 and raw.json()["error"] == "unauthorized"


@needs_locomo
def test_http_remember_appends_only_when_the_owner_enabled_it(http_server: tuple[str, Path]) -> None:
    url, root = http_server
    sid, opened = open_slice_now()  # the server's clock is real time: the open slice is today's
    path = root / str(core_md(sid))
    path.parent.mkdir(parents=True)
    path.write_text(opened, encoding="utf-8")

    async def body(c: Client) -> Any:
        return await c.call_tool("remember", {"text": "Melanie wants to run again next spring."})

    refused = run(remote(url, KEY), body)
    assert refused.is_error and '"mcpRemember": "stage"' in text(refused)
    assert path.read_text(encoding="utf-8") == opened
    set_remember(root, "append")
    done = run(remote(url, KEY), body)
    assert not done.is_error and f"slice {sid}" in text(done)
    turns = parse_core_md(path.read_text(encoding="utf-8")).turns
    assert [t.content for t in turns] == [
        "Are you coming on Saturday?",
        "[remembered via MCP (remote) · pytest-agent]\n\nMelanie wants to run again next spring.",
    ]


def open_slice_now() -> tuple[str, str]:
    """An active slice that began a minute ago, with one user turn."""
    start = iso(datetime.now(UTC) - timedelta(minutes=1))
    sid = f"{start[:10]}-{start[11:13]}{start[14:16]}"
    return sid, (
        f"---\nslice_id: {sid}\nstatus: active\nstart: '{start}'\ntimezone: UTC\ntags: []\n---\n\n"
        f"## Turn abc123 — {start} (user)\n\nAre you coming on Saturday?\n"
    )


def test_mcp_command_refuses_a_missing_memory_or_zone_before_serving(tmp_path: Path) -> None:
    missing = CliRunner().invoke(app, ["mcp", "--memory", str(tmp_path / "nowhere")], env={"STORAGE": ""})
    assert missing.exit_code == 1 and "no memory at" in missing.stderr
    zone = CliRunner().invoke(app, ["mcp", "--memory", str(tmp_path), "--tz", "Mars/Olympus"])
    assert zone.exit_code == 1 and "unknown timezone" in zone.stderr
