"""The fast paths taken for large memories give exactly what the plain code gives."""

from __future__ import annotations

import json
import random

import pytest

from core.memory import paths
from core.memory.catalog.strands import StrandWeaver, render_strands, weave_tag
from core.memory.formats import jsjson

pytestmark = pytest.mark.unit


def _value(rng: random.Random, depth: int = 0) -> object:
    kinds = ["str", "int", "bool", "none", "float"] + (["list", "dict"] if depth < 3 else [])
    kind = rng.choice(kinds)
    if kind == "str":
        return "".join(rng.choice('aé"\\\n\t\u2028😀 /') for _ in range(rng.randint(0, 6)))
    if kind == "int":
        return rng.randint(-5, 10**6)
    if kind == "bool":
        return rng.random() < 0.5
    if kind == "none":
        return None
    if kind == "float":
        return rng.choice([0.5, 1e-7, 3.0, -2.25])
    if kind == "list":
        return [_value(rng, depth + 1) for _ in range(rng.randint(0, 3))]
    return {f"k{i}{rng.choice('xé')}": _value(rng, depth + 1) for i in range(rng.randint(0, 3))}


def test_jsjson_writes_what_json_dumps_writes() -> None:
    rng = random.Random(3)
    for _ in range(500):
        value = _value(rng)
        assert jsjson.dumps(value) == json.dumps(value, ensure_ascii=False, indent=2)


def test_strand_weaver_matches_weave_tag() -> None:
    rng = random.Random(5)
    tags = [
        "Apex",
        "apex",
        " APEX ",
        "2024",
        "007",
        "Plan  B",
        "plan b",
        "Ｈｅｌｌｏ",
        "hello",
        "陈永超",
        "1",
    ]
    for _ in range(200):
        start = {rng.choice(tags): [f"2026/01/0{i}/0000" for i in range(rng.randint(0, 2))] for _ in range(3)}
        plain = {k: list(v) for k, v in start.items()}
        fast = {k: list(v) for k, v in start.items()}
        weaver = StrandWeaver(fast)
        for _ in range(6):
            tag, path = rng.choice(tags), f"2026/02/0{rng.randint(1, 3)}/0000"
            before = sum(map(len, plain.values()))
            weave_tag(plain, tag, path)
            assert weaver.weave(tag, path) == (sum(map(len, plain.values())) > before)
        assert render_strands(fast) == render_strands(plain)


def test_canonical_path_shortcut_agrees_with_normalisation() -> None:
    rng = random.Random(7)
    parts = ["memory", "tasks", "sessions", "src", ".", "..", "", "a.b", "...", ".hidden", "x y", "é", "C:"]
    for _ in range(3000):
        raw = "/".join(rng.choice(parts) for _ in range(rng.randint(1, 5)))
        slow = (
            bool(raw)
            and not raw.startswith("/")
            and paths.normalize(raw) == raw
            and paths.original_allows(raw)
        )
        assert (paths._reject_reason(raw) is None) == slow, raw
