"""Documents that are not cards — another format, or an older card format — are not parsed as cards.

An older format is migrated (REFERENCE §5.6); any other document is kept whole, every line
under Unsorted, with the text it replaces kept as the undo copy. Nothing in it is taken for
card furniture (a title, a stamp line) and dropped.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.clock import FixedClock, parse_iso
from core.memory.card.migrate import foreign_to_card, is_legacy, to_current_card
from core.memory.card.model import UNSORTED_HEADING, is_card, parse_card, render_card
from core.memory.card.snapshot import ensure_snapshot
from core.memory.card.store import to_card
from core.memory.paths import CARD
from core.storage.base import WriteBatch
from core.text import js_trim
from tests.fakes.evolution import CURRENT, memory
from tests.unit.card_samples import previous_card

pytestmark = pytest.mark.unit
NOW = parse_iso("2026-08-17T06:00:00.000Z")

NOTES = (
    "# My own notes about me\n\n_written in May_\n\nI like tea.\n\n## Travel\n"
    "- Lyon in May\n  with my sister\n\n> a quote\n---\nFinal line"
)
V1 = "# Previously On\n\n## User identity\n\n- Mara, a curator\n"
V3 = "# Previously On\n\n_Active slice: 2026-07-26-1226 | Format: user profile + self-model | Updated: x_\n"


def _words(text: str) -> list[str]:
    return [w for line in text.split("\n") for w in line.split()]


@pytest.mark.parametrize("text", [NOTES, "just one line", "## Identity\n- only an identity, no past"])
def test_other_documents_are_not_cards_and_keep_every_word(text: str) -> None:
    assert not is_card(text) and not is_legacy(text)
    card = to_current_card(text, slice_id=CURRENT, now=NOW)
    rendered = render_card(card)
    for word in _words(text):
        assert word in rendered, word
    # The converted card is a card, and reading and writing it again keeps every word (a known
    # section heading in the document, like `## Identity`, then takes the lines under it).
    assert is_card(rendered)
    again = render_card(parse_card(rendered, NOW))
    for word in _words(text):
        assert word in again, word


def test_the_card_parser_would_have_dropped_the_title() -> None:
    """Why the foreign path exists: as a card, `# …` and `_…_` lines above the sections are furniture."""
    assert "# My own notes about me" not in parse_card(NOTES, NOW).unplaced
    assert foreign_to_card(NOTES, slice_id="", now=NOW).unplaced[:2] == [
        "# My own notes about me",
        "_written in May_",
    ]


@pytest.mark.parametrize("text", [V1, V3])
def test_older_formats_are_migrated_not_parsed(text: str) -> None:
    assert is_legacy(text) and not is_card(text)
    card = to_current_card(text, slice_id=CURRENT, now=NOW)
    assert UNSORTED_HEADING not in render_card(card)
    assert to_card(text, NOW) == to_current_card(text, slice_id="", now=NOW)


def test_the_live_foreign_document_is_converted_with_an_undo_copy(clock: FixedClock) -> None:
    storage = memory(NOTES)
    batch = WriteBatch.open(storage)
    text = ensure_snapshot(batch, CURRENT, clock)
    batch.commit("turn")
    assert previous_card(storage.snapshot()) == NOTES and storage.files[CARD] == text
    assert "# My own notes about me" in text and "with my sister" in text


LINE = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\r<"), max_size=30)


@given(st.lists(LINE, max_size=8))
@settings(max_examples=200, deadline=None)
def test_any_foreign_text_keeps_its_lines(lines: list[str]) -> None:
    text = "\n".join(lines)
    if not text.strip() or is_card(text) or is_legacy(text):
        return
    card = to_current_card(text, slice_id=CURRENT, now=NOW)
    assert card.unplaced == [js_trim(x) for x in text.split("\n") if js_trim(x)]
