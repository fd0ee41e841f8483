"""MCP for agents that work (issue 32): the context tool, search filters, the timeline and slice
resources, through the SDK's own client (in-memory transport) — no model configured, so recall is
the full-text floor."""

from __future__ import annotations

import json
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

from core.agent import outside_context
from core.agent.outside import OutsideAccess
from core.clock import FixedClock, SequentialIds, parse_iso
from core.memory.paths import STRANDS_JSON
from functions.mcp.server import PreviouslyServer, build_server
from tests.fakes.slices import SAMPLE, slice_text, storage_with

pytestmark = pytest.mark.functional
STRANDS = {"pixel": ["2026/03/14/0900", "2026/08/09/2015"], "family": ["2026/05/02/1830"]}


def access(slices: dict[str, str] | None = None) -> OutsideAccess:
    storage = storage_with(slices or SAMPLE)
    storage.files[STRANDS_JSON] = json.dumps(STRANDS)  # type: ignore[attr-defined]
    clock = FixedClock(parse_iso("2026-08-12T00:00:00Z"))
    return OutsideAccess(storage=storage, clock=clock, ids=SequentialIds())


def text(result: Any) -> str:
    return "\n".join(block.text for block in result.content)


def run(fn: Any, memory: OutsideAccess | None = None) -> Any:
    async def main() -> Any:
        async with Client(build_server(memory or access())) as c:
            return await fn(c)

    return anyio.run(main)


def hit_ids(result: Any) -> list[str]:
    assert not result.is_error, text(result)
    return [h["slice_id"] for h in result.structured_content["hits"]]


def test_context_gives_summaries_and_the_matching_turns_in_one_call() -> None:
    async def go(c: Client) -> Any:
        return await c.call_tool("context", {"query": "Pixel the beagle", "k": 3})

    got = run(go)
    assert not got.is_error, text(got)
    out = text(got)
    assert out.startswith('Context for "Pixel the beagle"') and "full-text search" in out
    # Both Pixel slices, each with its summary lines and its own words, exactly as said.
    for sid in ("2026-03-14-0900", "2026-08-09-2015"):
        assert f"## {sid}" in out and f"Slice {sid}" in out
    assert "I finally adopted a rescue dog today, a beagle called Pixel." in out
    assert "Took Pixel to the beach, he loved chasing the waves." in out
    # A turn sharing no word with the question is not shown.
    assert "chews my shoes" not in out


def test_context_stays_inside_its_budget_and_names_what_it_left_out() -> None:
    big = {
        sid: slice_text(sid, [("user", f"Lisbon notes {sid}: " + "tram " * 400)])
        for sid in (f"2026-06-{d:02d}-1000" for d in range(1, 9))
    }

    async def go(c: Client) -> Any:
        return await c.call_tool("context", {"query": "Lisbon tram", "k": 8, "budget_tokens": 300})

    out = text(run(go, access(big)))
    assert len(out) <= 300 * outside_context.CHARS_PER_TOKEN + 400  # the budget, plus the closing notes
    assert "cut at the budget" in out and "read it whole" in out
    assert "Over the budget, left out" in out


def test_context_refuses_a_budget_out_of_range_with_the_range() -> None:
    async def go(c: Client) -> Any:
        return await c.call_tool("context", {"query": "Pixel", "budget_tokens": 10})

    got = run(go)
    assert got.is_error and "200" in text(got)


def test_context_of_nothing_is_a_final_empty_answer() -> None:
    async def go(c: Client) -> Any:
        return await c.call_tool("context", {"query": "xylophone quartz"})

    out = text(run(go))
    assert "Nothing in the memory matches" in out


def test_search_narrows_by_dates_and_by_strand() -> None:
    async def go(c: Client) -> dict[str, Any]:
        return {
            "all": hit_ids(await c.call_tool("search", {"q": "Pixel"})),
            "august": hit_ids(await c.call_tool("search", {"q": "Pixel", "from": "2026-08-01"})),
            "spring": hit_ids(await c.call_tool("search", {"q": "Pixel", "to": "2026-04-30"})),
            "strand": hit_ids(await c.call_tool("search", {"q": "wedding beach", "strand": "Family"})),
            "unknown": await c.call_tool("search", {"q": "Pixel", "strand": "astronomy"}),
            "swapped": await c.call_tool("search", {"q": "Pixel", "from": "2026-09-01", "to": "2026-01-01"}),
            "bad": await c.call_tool("search", {"q": "Pixel", "from": "May 2026"}),
        }

    out = run(go)
    assert set(out["all"]) == {"2026-03-14-0900", "2026-08-09-2015"}
    assert out["august"] == ["2026-08-09-2015"]
    assert out["spring"] == ["2026-03-14-0900"]
    assert out["strand"] == ["2026-05-02-1830"]  # "beach" alone would find Pixel's August slice
    assert out["unknown"].is_error and "Known strands: pixel, family" in text(out["unknown"])
    assert out["swapped"].is_error and "Swap them" in text(out["swapped"])
    assert out["bad"].is_error and "2026-08-01" in text(out["bad"])


def test_a_narrow_filter_still_finds_its_best_slice_however_low_it_ranks_overall() -> None:
    many = {
        sid: slice_text(sid, [("user", "garden garden garden tomatoes")])
        for sid in (f"2026-02-{d:02d}-0800" for d in range(1, 28))
    }
    many["2026-08-01-0800"] = slice_text("2026-08-01-0800", [("user", "a long day; the garden was dry")])

    async def go(c: Client) -> list[str]:
        return hit_ids(await c.call_tool("search", {"q": "garden", "k": 3, "from": "2026-08-01"}))

    assert run(go, access(many)) == ["2026-08-01-0800"]


def test_the_card_the_months_and_every_slice_are_listed_and_readable() -> None:
    async def go(c: Client) -> dict[str, Any]:
        listed = await c.list_resources()
        templates = await c.list_resource_templates()
        month = await c.read_resource("previously://timeline/2026-08")
        index = await c.read_resource("previously://timeline")
        one = await c.read_resource("previously://slice/2026-05-02-1830")
        return {
            "uris": [str(r.uri) for r in listed.resources],
            "cursor": listed.next_cursor,
            "templates": sorted(t.uri_template for t in templates.resource_templates),
            "month": month.contents[0].text,  # type: ignore[union-attr]
            "index": index.contents[0].text,  # type: ignore[union-attr]
            "one": one.contents[0].text,  # type: ignore[union-attr]
        }

    out = run(go)
    uris = out["uris"]
    assert {"previously://card", "previously://timeline"} <= set(uris)
    assert [u for u in uris if u.startswith("previously://timeline/")] == [
        "previously://timeline/2026-08",
        "previously://timeline/2026-07",
        "previously://timeline/2026-05",
        "previously://timeline/2026-03",
    ]
    slices = [u.rsplit("/", 1)[1] for u in uris if u.startswith("previously://slice/")]
    assert slices == sorted(SAMPLE, reverse=True)
    assert out["cursor"] is None
    assert out["templates"] == ["previously://slice/{slice_id}", "previously://timeline/{month}"]
    assert "2026-08: 2 slices — previously://timeline/2026-08" in out["index"]
    assert out["month"].startswith("Timeline 2026-08") and "2 slices" in out["month"]
    assert "2026-08-10-1200" in out["month"] and "2026-07-28-0658" not in out["month"]
    assert "My sister's wedding in Lisbon was beautiful" in out["one"]


def test_a_month_without_slices_or_a_bad_month_is_a_protocol_error_saying_why() -> None:
    async def go(c: Client) -> list[str]:
        said = []
        for uri in ("previously://timeline/2020-01", "previously://timeline/2026-13"):
            with pytest.raises(MCPError) as err:
                await c.read_resource(uri)
            said.append(str(err.value))
        return said

    empty, bad = run(go)
    assert "no slices in 2020-01" in empty
    assert "2026-08 (YYYY-MM)" in bad


def test_the_resource_list_comes_in_pages_with_a_cursor(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(PreviouslyServer, "PAGE", 3)

    async def go(c: Client) -> tuple[list[str], Any]:
        seen: list[str] = []
        cursor = None
        while True:
            page = await c.list_resources(cursor=cursor)
            seen += [str(r.uri) for r in page.resources]
            cursor = page.next_cursor
            if cursor is None:
                break
        with pytest.raises(MCPError) as err:
            await c.list_resources(cursor="not-ours")
        return seen, err.value

    seen, err = run(go)
    assert len(seen) == len(set(seen)) == 2 + 4 + len(SAMPLE)  # card, timeline; months; slices
    assert "list again from the start" in str(err)


def test_every_tool_says_what_it_costs() -> None:
    async def go(c: Client) -> dict[str, str]:
        return {t.name: t.description or "" for t in (await c.list_tools()).tools}

    described = run(go)
    assert len(described) == 9
    assert [name for name, text in described.items() if "Cost:" not in text] == []
