"""card_format.json: the card layout, parser, template, time rules, helpers and legacy formats."""

from __future__ import annotations

from typing import Any

import pytest

from core.clock import parse_iso
from core.memory.card import migrate as mig
from core.memory.card import model as cardmod
from core.memory.card.model import Anchor, Card, HorizonItem, NowItem, Past
from tests.conformance.vectors import Case, shape, vectors

pytestmark = pytest.mark.conformance

V = vectors("card_format.json")
IN_OUT = shape("input/output", "input output")
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


@pytest.mark.parametrize("constants", V.value("constants"))
def test_constants(constants: Case) -> None:
    for name, value in constants.data.items():
        assert getattr(cardmod, name, None) == value, f"card_format.json → constants.{name}"


@pytest.mark.parametrize("case", V.cases("serialize", shape("serialize", "doc serialized reparsed")))
def test_serialize(case: Case) -> None:
    text = cardmod.render_card(card_from_dict(case["doc"]))
    assert text == case["serialized"]
    reparsed = cardmod.parse_card(text, NOW)
    assert reparsed.to_dict() == case["reparsed"]
    assert reparsed.unplaced == []
    assert cardmod.render_card(reparsed) == text


@pytest.mark.parametrize("case", V.cases("parse", shape("parse", "content isCardFormat parsed")))
def test_parse(case: Case) -> None:
    """A card parses to the original's object; any other document (`parsed: null`) to none."""
    assert cardmod.is_card(case["content"]) is case["isCardFormat"]
    card = cardmod.read_card(case["content"], NOW)
    assert (card.to_dict() if card is not None else None) == case["parsed"]


@pytest.mark.parametrize("t", V.cases("new_card_template", shape("template", "sliceId output")))
def test_new_card_template(t: Case) -> None:
    assert cardmod.render_card(cardmod.new_card(t["sliceId"], NOW)) == t["output"]


@pytest.mark.parametrize("o", V.cases("overdue", shape("overdue", "today horizon overdue")))
def test_overdue(o: Case) -> None:
    items = [HorizonItem(h["text"], h["by"], list(h["refs"])) for h in o["horizon"]]
    got = cardmod.overdue_horizon(items, o["today"])
    assert [vars(h) for h in got] == o["overdue"]


@pytest.mark.parametrize("case", V.cases("strip_trailing_parentheticals", IN_OUT))
def test_strip_trailing_parentheticals(case: Case) -> None:
    assert cardmod.strip_trailing_parentheticals(case["input"]) == case["output"]


@pytest.mark.parametrize("case", V.cases("strip_inline_comments", IN_OUT))
def test_strip_inline_comments(case: Case) -> None:
    assert cardmod.strip_inline_comments(case["input"]) == case["output"]


V3 = shape("v3 archive", "doc serialized reparsed validate new_template")


@pytest.mark.parametrize("v3", V.cases("v3", V3))
def test_v3_round_trip_and_validate(v3: Case) -> None:
    doc = mig.parse_archive(v3["serialized"])
    assert doc.to_dict() == v3["doc"] == v3["reparsed"]
    assert mig.render_archive(doc) == v3["serialized"]
    errors = mig.validate_archive(doc)
    assert {"valid": not errors, "errors": errors} == v3["validate"]
    assert mig.render_archive(mig.new_archive("2026-07-26-1226", NOW)) == v3["new_template"]


MIGRATE = shape("migrate", "v2_input v2_to_v3 v1_input v1_to_v3 v2_to_card v3_to_card detect")


@pytest.mark.parametrize("m", V.cases("migrate", MIGRATE))
def test_migrate_v2_and_v1_to_v3(m: Case) -> None:
    v2 = mig.migrate_to_archive(m["v2_input"], slice_id="2026-07-24-0913", now=NOW)
    assert mig.render_archive(v2) == m["v2_to_v3"]
    v1 = mig.migrate_to_archive(m["v1_input"], slice_id="2026-07-24-0913", now=NOW)
    assert mig.render_archive(v1) == m["v1_to_v3"]


@pytest.mark.parametrize("m", V.cases("migrate", MIGRATE))
def test_migrate_to_card(m: Case) -> None:
    v2 = mig.migrate_to_card(m["v2_input"], slice_id="2026-07-24-0913", now=NOW)
    assert cardmod.render_card(v2) == m["v2_to_card"]
    v3 = mig.migrate_to_card(V.section("v3.serialized"), slice_id="unused", now=NOW)
    assert cardmod.render_card(v3) == m["v3_to_card"]


def _detect_text(name: str) -> str:
    """The document a detect case names: `migrate.<name>_input` or `migrate.<name>` (a migration's
    output), the first serialised card for `card`, else the `<name>` section's text."""
    migrate = V.section("migrate")
    for key in (f"{name}_input", name):
        if isinstance(migrate.get(key), str):
            return str(migrate[key])
    if name in ("card", "v5") and V.section("serialize"):
        return str(V.section("serialize")[0]["serialized"])
    section = V.section(name)
    return str(section["serialized"] if isinstance(section, dict) else section)


def _legacy_documents() -> dict[str, str]:
    migrate = V.section("migrate")
    return {"v3": V.section("v3.serialized"), "v2": migrate["v2_input"], "v1": migrate["v1_input"]}


@pytest.mark.parametrize("name", ["v3", "v2", "v1"])
def test_an_older_layout_is_not_a_card_and_parses_as_none(name: str) -> None:
    """REFERENCE §5.3/§5.6: a "user profile + self-model" archive (or v2/v1) is never read as a
    card — not even when a hand edit adds a heading the card test looks for — so nothing is
    half-read; the live-card path migrates it whole instead."""
    text = _legacy_documents()[name]
    assert cardmod.is_card(text) is False and cardmod.read_card(text, NOW) is None
    assert mig.is_legacy(text)
    if name == "v3":
        edited = text + "\n## Past\n\nA paragraph someone added.\n"
        assert cardmod.is_card(edited) is False and cardmod.read_card(edited, NOW) is None
        assert mig.to_current_card(edited, slice_id="x", now=NOW).identity == ["用户是 AI 全栈工程师"]
    whole = mig.to_current_card(text, slice_id="x", now=NOW)
    assert cardmod.render_card(whole) == cardmod.render_card(mig.migrate_to_card(text, slice_id="x", now=NOW))


@pytest.mark.parametrize("case", V.cases("migrate.detect", shape("detect", "name isV2 isV3 isCard")))
def test_detect(case: Case) -> None:
    text = _detect_text(case["name"])
    got = {"isV2": mig.is_v2(text), "isV3": mig.is_v3(text), "isCard": cardmod.is_card(text)}
    assert got == {k: case[k] for k in ("isV2", "isV3", "isCard")}
    # Not a card, but a format the migration knows: it is migrated, never parsed as a card.
    legacy = not case["isCard"] and (case["isV2"] or case["isV3"] or mig.is_v1(text))
    assert mig.is_legacy(text) is legacy


@pytest.mark.parametrize("m", V.cases("migrate", MIGRATE))
def test_migration_outputs_are_detected_as_what_they_are(m: Case) -> None:
    """A migration's v3 output is an archive and not a card; its card output is a card."""
    for key in ("v2_to_v3", "v1_to_v3"):
        assert mig.is_v3(m[key]) and not cardmod.is_card(m[key]) and cardmod.read_card(m[key], NOW) is None
    for key in ("v2_to_card", "v3_to_card"):
        assert cardmod.is_card(m[key]) and not mig.is_legacy(m[key])
        card = cardmod.read_card(m[key], NOW)
        assert card is not None and cardmod.render_card(card) == m[key]
