"""Tokenizer: stems, stopwords, contractions, CJK bigrams, Unicode forms."""

from __future__ import annotations

import pytest

from core.search.tokenize import tokenize, words

pytestmark = pytest.mark.unit


def test_english_words_are_stemmed_and_stopwords_dropped() -> None:
    assert tokenize("The dogs were running to the painting classes") == ["dog", "run", "paint", "class"]


def test_inflections_meet_on_one_stem() -> None:
    assert tokenize("adoption")[0] == tokenize("adopted")[0] == tokenize("adopting")[0]


def test_possessives_and_contractions_lose_their_tails() -> None:
    assert tokenize("Caroline's plan, I'm sure it won't fail") == ["carolin", "plan", "sure", "fail"]


def test_numbers_are_kept_verbatim() -> None:
    assert tokenize("In 2023 I ran 10 km on the 18th") == ["2023", "run", "10", "km", "18th"]


def test_number_words_meet_digits() -> None:
    assert tokenize("three dogs and twelve cats") == ["3", "dog", "12", "cat"]
    assert tokenize("one") == ["one"]


def test_irregular_forms_meet_their_base_word() -> None:
    assert tokenize("bought") == tokenize("buy") == tokenize("buying")
    assert tokenize("children") == tokenize("child")
    assert tokenize("went") == tokenize("go")
    assert tokenize("grandchildren") == tokenize("grandchild")
    # A form of a stopword is a stopword.
    assert tokenize("what have you done") == []


def test_cjk_runs_become_character_bigrams() -> None:
    assert tokenize("我们去爬山") == ["我们", "们去", "去爬", "爬山"]
    assert tokenize("山") == ["山"]
    assert tokenize("東京タワー") == ["東京", "京タ", "タワ", "ワー"]


def test_mixed_scripts_and_full_width_forms() -> None:
    assert tokenize("Ｐｉｘｅｌ去海边") == ["pixel", "去海", "海边"]


def test_empty_and_punctuation_only() -> None:
    assert tokenize("") == []
    assert tokenize("?!… — ###") == []


def test_words_keeps_surface_forms() -> None:
    assert words("Adopted a Dog!") == ["adopted", "a", "dog"]


@pytest.mark.parametrize(
    ("british", "american"),
    [
        ("colour", "color"),
        ("colourful", "colorful"),
        ("favourites", "favorites"),
        ("organised", "organized"),
        ("organisation", "organization"),
        ("theatres", "theaters"),
        ("centre", "center"),
        ("catalogue", "catalog"),
        ("defence", "defense"),
        ("jewellery", "jewelry"),
        ("grey", "gray"),
        ("mum", "mom"),
    ],
)
def test_british_spellings_meet_american_ones(british: str, american: str) -> None:
    assert tokenize(british) == tokenize(american)


def test_spelling_rules_leave_lookalikes_alone() -> None:
    assert tokenize("promise hour tour premise") == ["promis", "hour", "tour", "premis"]
