"""card_format.json: the card layout, parser, template, time rules, helpers and legacy formats."""

from __future__ import annotations

from typing import Any

import pytest

from core.clock import parse_iso
from core.memory import card as cardmod
from core.memory import card_migrate as mig
from core.memory.card import Anchor, Card, HorizonItem, NowItem, Past
from tests.conftest import load_vectors

pytestmark = pytest.mark.conformance

V = load_vectors("card_format.json")
NOW = parse_iso("2026-08-17T06:00:00.000Z")  # the clock the vectors were produced at


def card_from_dict(d: dict[str, Any]) -> Card:
    return Card(
        slice_id=d["sliceId"],
        updated=d["updated"],
        identity=list(d["identity"]),
        past=Past(d["past"]["profile"], [Anchor(a["text"], list(a["refs"])) for a in d["past"]["anchors"]]),
        now=[NowItem(n["text"], list(n["refs"]), n["since"]) for n in d["now"]],
        horizon=[HorizonItem(h["text"], h["by"], list(h["refs"])) for h in d["horizon"]],
        self_model=list(d["selfModel"]),
    )


def _ids(cases: list[dict]) -> list[str]:
    return [c.get("name", str(i)) for i, c in enumerate(cases)]


def test_constants() -> None:
    for name, value in V["constants"].items():
        assert getattr(cardmod, name) == value, name


@pytest.mark.parametrize("case", V["serialize"], ids=_ids(V["serialize"]))
def test_serialize(case: dict) -> None:
    text = cardmod.render_card(card_from_dict(case["doc"]))
    assert text == case["serialized"]
    reparsed = cardmod.parse_card(text, NOW)
    assert reparsed.to_dict() == case["reparsed"]
    assert reparsed.unplaced == []
    assert cardmod.render_card(reparsed) == text


@pytest.mark.parametrize("case", V["parse"], ids=_ids(V["parse"]))
def test_parse(case: dict) -> None:
    assert cardmod.is_card(case["content"]) is case["isCardFormat"]
    assert cardmod.parse_card(case["content"], NOW).to_dict() == case["parsed"]


def test_new_card_template() -> None:
    t = V["new_card_template"]
    assert cardmod.render_card(cardmod.new_card(t["sliceId"], NOW)) == t["output"]


def test_overdue() -> None:
    o = V["overdue"]
    items = [HorizonItem(h["text"], h["by"], list(h["refs"])) for h in o["horizon"]]
    got = cardmod.overdue_horizon(items, o["today"])
    assert [vars(h) for h in got] == o["overdue"]


@pytest.mark.parametrize("case", V["strip_trailing_parentheticals"])
def test_strip_trailing_parentheticals(case: dict) -> None:
    assert cardmod.strip_trailing_parentheticals(case["input"]) == case["output"]


@pytest.mark.parametrize("case", V["strip_inline_comments"])
def test_strip_inline_comments(case: dict) -> None:
    assert cardmod.strip_inline_comments(case["input"]) == case["output"]


def test_v3_round_trip_and_validate() -> None:
    v3 = V["v3"]
    doc = mig.parse_archive(v3["serialized"])
    assert doc.to_dict() == v3["doc"] == v3["reparsed"]
    assert mig.render_archive(doc) == v3["serialized"]
    errors = mig.validate_archive(doc)
    assert {"valid": not errors, "errors": errors} == v3["validate"]
    assert mig.render_archive(mig.new_archive("2026-07-26-1226", NOW)) == v3["new_template"]


def test_migrate_v2_and_v1_to_v3() -> None:
    m = V["migrate"]
    v2 = mig.migrate_to_archive(m["v2_input"], slice_id="2026-07-24-0913", now=NOW)
    assert mig.render_archive(v2) == m["v2_to_v3"]
    v1 = mig.migrate_to_archive(m["v1_input"], slice_id="2026-07-24-0913", now=NOW)
    assert mig.render_archive(v1) == m["v1_to_v3"]


def test_migrate_to_card() -> None:
    m = V["migrate"]
    v2 = mig.migrate_to_card(m["v2_input"], slice_id="2026-07-24-0913", now=NOW)
    assert cardmod.render_card(v2) == m["v2_to_card"]
    v3 = mig.migrate_to_card(V["v3"]["serialized"], slice_id="unused", now=NOW)
    assert cardmod.render_card(v3) == m["v3_to_card"]


def test_detect() -> None:
    texts = {"v2": V["migrate"]["v2_input"], "v3": V["v3"]["serialized"]}
    assert V["migrate"]["detect"]
    for case in V["migrate"]["detect"]:
        text = texts[case["name"]]
        got = {"isV2": mig.is_v2(text), "isV3": mig.is_v3(text), "isCard": cardmod.is_card(text)}
        assert got == {k: case[k] for k in ("isV2", "isV3", "isCard")}
        assert mig.is_legacy(text)


def test_every_section_is_covered() -> None:
    covered = {"description", "constants", "serialize", "parse", "new_card_template", "overdue"}
    covered |= {"strip_trailing_parentheticals", "strip_inline_comments", "v3", "migrate"}
    assert set(V) <= covered
