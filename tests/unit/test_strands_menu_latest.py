"""The prompt's topic menu: the latest path before the slice, found fast, same as the plain scan."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.agent.prompt_blocks import _latest_before

pytestmark = pytest.mark.unit

SLICE_PATHS = st.sampled_from(["2026/08/10/2130", "2026/08/10/2131", "2025/01/01/0000", "2027/12/31/2359"])
ODD = st.one_of(
    st.text(max_size=20), st.integers(), st.none(), st.just("2026/08/10/21301"), st.just("2026/08/1")
)


def _plain(paths: list[Any], before: str) -> str | None:
    earlier = [p for p in paths if isinstance(p, str) and len(p) == 15 and p < before]
    return max(earlier) if earlier else None


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(SLICE_PATHS, ODD), max_size=8), st.one_of(SLICE_PATHS, st.text(max_size=16)))
def test_latest_before_equals_the_plain_scan(paths: list[Any], before: str) -> None:
    assert _latest_before(paths, before) == _plain(paths, before)
