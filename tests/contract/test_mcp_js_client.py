"""`previously mcp` as another ecosystem's client sees it: the MCP TypeScript SDK's client, the
one MCP Inspector is built on (pinned in tests/contract/mcp_js/package-lock.json, installed by
`make setup` or here on first use). That client checks every answer against the protocol's
schemas and each tool result against the tool's declared output schema, so a schema that only
the Python SDK accepts fails here (issue 32: "schemas validate under both the official SDK and
the Inspector client")."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.functional.test_mcp import TOOLS

pytestmark = pytest.mark.functional
ROOT = Path(__file__).resolve().parents[2]
CLIENT = Path(__file__).parent / "mcp_js"
SAMPLE = ROOT / "sample"


def _client_ready() -> bool:
    """Install the pinned client when it is missing; False only off CI without Node."""
    if shutil.which("node") is None or shutil.which("npm") is None:
        if os.environ.get("CI"):
            pytest.fail("Node 20 and npm are needed for the MCP client check (the machine has them)")
        return False
    if not (CLIENT / "node_modules" / "@modelcontextprotocol" / "sdk").is_dir():
        subprocess.run(
            ["npm", "ci", "--no-audit", "--no-fund", "--loglevel=error"], cwd=CLIENT, check=True, timeout=600
        )
    return True


def test_the_typescript_sdk_client_accepts_every_tool_resource_and_prompt() -> None:
    if not _client_ready():
        pytest.skip("no Node.js here")
    server = [str(Path(sys.executable).parent / "previously"), "mcp", "--read-only", "--memory", str(SAMPLE)]
    done = subprocess.run(
        ["node", "check.mjs", *server], cwd=CLIENT, capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 0, done.stderr[-3000:]
    out = json.loads(done.stdout)
    tools = out["tools"]
    assert list(tools) == TOOLS  # the same tools, in the same order, as the Python SDK's client sees
    assert all(t["input"] == "object" and t["output"] == "object" and t["described"] for t in tools.values())
    assert [n for n, t in tools.items() if not t["readOnly"]] == ["remember"]
    calls = out["calls"]
    # Every read answered, its structured result valid against the tool's own output schema
    # (the TypeScript client throws when it is not).
    for name in ("search", "recall", "read_slice", "read_slice_summary", "timeline_window", "briefing"):
        assert calls[name].get("isError") is False, (name, calls[name])
    for name in ("read_card", "context"):
        assert calls[name].get("isError") is False, (name, calls[name])
    assert calls["context"]["text"].startswith('Context for "the trip"')
    # The one write is refused cleanly under --read-only: a tool error, not a broken call.
    assert calls["remember"].get("isError") is True and "read-only" in calls["remember"]["text"]
    resources = out["resources"]
    assert resources[:2] == ["previously://card", "previously://timeline"]
    assert any(u.startswith("previously://timeline/") for u in resources)
    assert sum(u.startswith("previously://slice/") for u in resources) >= 10
    assert len(resources) == len(set(resources))
    assert sorted(out["templates"]) == ["previously://slice/{slice_id}", "previously://timeline/{month}"]
    assert out["prompts"] == ["previously_on"] and "Previously on…" in out["prompt"]
    assert all(n > 0 for n in out["read"].values())
