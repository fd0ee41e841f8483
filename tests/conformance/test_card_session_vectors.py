"""card_session.json: the card-mutation tools over scripted sequences (REFERENCE §6.1–§6.4).

The result strings are the original's prompt wording; ours say the same in our own words, so a
step is compared by its outcome class (OK, OK — FORCED, REJECTED, LOOP BRAKE) and the card it
leaves: the final document, its file text and the mutation log (tool names in our spelling).
Deliberate difference: a base that is not a card (a legacy or free-text document) is migrated or
kept whole where the original started an empty card, so only the outcome classes are compared
for such a sequence.

The file is not vendored (tests/conformance/vectors.py HELD_BACK): these tests run in full with
`$PREVIOUSLY_VECTORS_DIR` holding the measured set.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from core.agent.evolution.card_tools import TOOL_NAMES, CardSession
from core.clock import parse_iso, try_parse_iso
from core.memory.card import model as cardmod
from core.memory.card import rules
from tests.conformance.test_card_format import card_from_dict
from tests.conformance.vectors import Case, shape, vectors

pytestmark = pytest.mark.conformance

V = vectors("card_session.json")
SEQUENCE = shape("sequence", "base_card steps", "final_doc log serialized *")
FALLBACK_NOW = "2026-08-17T06:00:00.000Z"


def snake(op: str) -> str:
    """`addPastAnchor` → `add_past_anchor` (the original's tool names in our spelling)."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", op).lower()


OUTCOMES = (("OK — FORCED", "forced"), ("OK", "ok"), ("LOOP BRAKE", "brake"), ("REJECTED", "rejected"))


def outcome(result: str) -> str:
    """The class of a tool result, from its first words."""
    head = result.lstrip()
    for prefix, kind in (
        ("OK — FORCED", "forced"),
        ("OK", "ok"),
        ("LOOP BRAKE", "brake"),
        ("REJECTED", "rejected"),
    ):
        if head.startswith(prefix):
            return kind
    return "other"


def _stamps(case: Case) -> tuple[str, str]:
    doc = case.get("final_doc") or {}
    sid = doc.get("sliceId") if isinstance(doc, dict) else None
    updated = doc.get("updated") if isinstance(doc, dict) else None
    return sid or "2026-08-17-0515", updated if try_parse_iso(updated) else FALLBACK_NOW


def _run(session: CardSession, op: str, args: dict[str, Any]) -> str | None:
    tools = {t.spec.name: t for t in session.as_tools()}
    name = snake(op)
    if name not in TOOL_NAMES:
        return None  # a read or report tool: not a mutation of the card
    try:
        return str(tools[name].invoke(args))
    except Exception as exc:  # a schema refusal is a rejection too
        return f"REJECTED: {exc}"


@pytest.mark.parametrize("case", V.cases("sequences", SEQUENCE))
def test_sequence(case: Case) -> None:
    base = case["base_card"]
    sid, updated = _stamps(case)
    session = CardSession(base, slice_id=sid, now=parse_iso(updated), slice_exists=lambda _: True)
    for i, step in enumerate(case["steps"]):
        ours = _run(session, step["op"], dict(step.get("args") or {}))
        if ours is None:
            continue
        assert outcome(ours) == outcome(step["result"]), (
            f"step {i} {step['op']}: {ours!r} vs {step['result']!r}"
        )
    if base is not None and str(base).strip() and not cardmod.is_card(str(base)):
        return
    if "final_doc" in case and case["final_doc"] is not None:
        assert session.card.to_dict() == card_from_dict(case["final_doc"]).to_dict()
    if "serialized" in case:
        assert session.render() == case["serialized"]
    if "log" in case:
        assert session.log == [_our_log_line(line) for line in case["log"]]


def _our_log_line(line: str) -> str:
    forced = line.startswith("forced: ")
    body = line[len("forced: ") :] if forced else line
    tool, sep, rest = body.partition(":")
    return ("forced: " if forced else "") + snake(tool) + sep + rest


# Refs the write tools see: both forms, with and without a turn id, and near misses.
SAMPLE_REFS = (
    "2026/08/07/0709",
    "2026/08/07/0709-abc123",
    "2026-08-07-0709",
    "2026-08-07-0709-abc123",
    "2026/8/07/0709",
    "2026-08-07",
    "2026/08/07/0709-",
    "slice 2026/08/07/0709",
    "",
)


@pytest.mark.parametrize("regexes", V.value("ref_regexes"))
def test_every_ref_the_original_accepts_is_accepted(regexes: Case) -> None:
    """Each measured ref pattern: a ref it accepts is accepted (and put in slash form) by ours."""
    patterns = regexes.data.values() if isinstance(regexes.data, dict) else regexes.data
    patterns = [p for p in patterns if isinstance(p, str)]
    assert patterns, f"{regexes.where}: no pattern"
    for pattern in patterns:
        for ref in SAMPLE_REFS:
            if re.search(pattern, ref):
                normal = rules.normalize_ref(ref)
                assert normal is not None and re.fullmatch(r"\d{4}/\d{2}/\d{2}/\d{4}(-\S+)?", normal), ref


def _doc(value: Any) -> cardmod.Card | None:
    if value is None:
        return None
    if isinstance(value, str):
        return cardmod.parse_card(value, parse_iso(FALLBACK_NOW))
    full = {"sliceId": "", "updated": "", "identity": [], "past": {"profile": "", "anchors": []}}
    return card_from_dict({**full, "now": [], "horizon": [], "selfModel": [], **value})


@pytest.mark.parametrize("case", V.cases("same_card_substance", shape("pair", "", "*")))
def test_same_card_substance(case: Case) -> None:
    """Two documents (null ≡ empty) and whether they are the same card but for the stamps."""
    verdicts = [k for k, v in case.items() if isinstance(v, bool)]
    docs = [k for k in case if k not in verdicts and k not in ("name", "description", "note")]
    assert len(verdicts) == 1 and len(docs) == 2, f"{case.where}: expected two documents and a verdict"
    a, b = (_doc(case[k]) for k in docs)
    assert cardmod.same_substance(a, b) is case[verdicts[0]]
