"""whitelist.json: the original's path decisions, with our deliberate deviation as a rule.

Rule (ARCHITECTURE §2): every path the original denies, we deny; a path the original would
*repair* (its normalised form differs from what was sent, or it carries %-escapes) we reject;
anything else gets the original's allow/protect decision.
"""

from __future__ import annotations

import pytest

from core.errors import PathDenied
from core.memory import paths
from tests.conformance.vectors import Case, shape, vectors

V = vectors("whitelist.json")
CASES = V.cases("cases", shape("path", "path normalized allowed protected writable"))


@pytest.mark.conformance
@pytest.mark.parametrize("prefixes", V.value("allowed_prefixes"))
def test_allowed_prefixes(prefixes: Case) -> None:
    """Each prefix the original allows admits a file under it; a sibling name does not pass."""
    for prefix in prefixes.data:
        inside = prefix.rstrip("/") + "/x.md" if prefix.endswith("/") else prefix
        assert paths.original_allows(inside), prefix
        assert not paths.original_allows("other/" + inside), prefix


@pytest.mark.conformance
@pytest.mark.parametrize("case", CASES)
def test_whitelist_case(case: Case) -> None:
    raw = case["path"]
    assert paths.normalize(raw) == case["normalized"]
    assert paths.original_allows(raw) is case["allowed"]
    assert paths.is_protected(case["normalized"]) is case["protected"]

    repaired = case["normalized"] != raw or "%" in raw
    if not case["allowed"] or repaired:
        with pytest.raises(PathDenied):
            paths.check_path(raw)
        return
    p = paths.check_path(raw)
    assert p.protected is case["protected"]
    if case["writable"]:
        assert str(paths.writable_path(raw)) == raw
    else:
        with pytest.raises(PathDenied):
            paths.writable_path(raw)
