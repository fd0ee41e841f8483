"""A month's index upserted in place: the text equals a full render, byte for byte."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.memory.catalog.monthly import monthly_file, parse_monthly, render_monthly, upsert_monthly

pytestmark = pytest.mark.unit

ids = st.sampled_from(
    ["2026-08-01-0900", "2026-08-01-0901", "2026-08-15-2359", "2026-08-31-0000", "2026-08-10-1200"]
)
text = st.text(max_size=12)  # CJK, emoji, control characters, quotes
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | text, lambda inner: st.lists(inner, max_size=3), max_leaves=6
)
entries = st.fixed_dictionaries(
    {"id": ids, "focus": text, "summary": text, "tags": st.lists(text, max_size=3)},
    optional={"status": st.sampled_from(["active", "closed"]), "extra": json_values},
)


def _by_hand(old: str | None, entry: dict[str, Any]) -> str:
    """The upsert as a parse, a filter and a full render."""
    kept = [e for e in parse_monthly(old)[0] if e["id"] != entry["id"]]
    return render_monthly("2026-08", [*kept, dict(entry)])


@settings(max_examples=300, deadline=None)
@given(st.lists(entries, max_size=6), st.lists(entries, min_size=1, max_size=5))
def test_upserts_equal_a_full_render(start: list[dict[str, Any]], upserts: list[dict[str, Any]]) -> None:
    # The starting file may hold one id twice and be out of order (another writer, a hand edit).
    sources = [render_monthly("2026-08", start), json.dumps({"month": "2026-08", "slices": start})]
    for current in sources:
        expected: str | None = current
        for entry in upserts:
            expected = _by_hand(expected, entry)
            current = upsert_monthly(current, entry)
            assert current == expected
        assert monthly_file(current).text == current  # read back: the memo, no parse


@pytest.mark.parametrize(
    "broken", [None, "{not json", "[]", '{"slices": "x"}', '{"slices": [1, {"no": "id"}]}']
)
def test_a_broken_month_is_rebuilt_around_the_entry_as_before(broken: str | None) -> None:
    entry = {"id": "2026-08-10-1200", "focus": "工作 🌱", "summary": "", "tags": []}
    assert upsert_monthly(broken, entry) == _by_hand(broken, entry)


def test_the_memo_does_not_share_entries_with_callers() -> None:
    entry = {"id": "2026-08-10-1200", "focus": "a", "summary": "", "tags": ["x"]}
    first = upsert_monthly(None, entry)
    entry["focus"] = "changed after the upsert"
    assert json.loads(first)["slices"][0]["focus"] == "a"
    assert upsert_monthly(first, {**entry, "id": "2026-08-11-0000"}).count('"focus": "a"') == 1
