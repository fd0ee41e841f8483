"""Page text (the original's `extract_text` vector, trafilatura's main text) and search results as text."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from core.memory.slice.agent_md import CitedSource, render_sources
from core.web.fetch import MAX_CHARS, FetchRange, Page, fetch_text
from core.web.page_text import page_text, strip_html
from core.web.search import SearchResult, parse_sources, results_text
from tests.conftest import load_vectors
from tests.fakes.fake_web import ARTICLE

pytestmark = pytest.mark.unit


@pytest.mark.parametrize("case", load_vectors("recall_filters.json")["extract_text"])
def test_strip_html_matches_the_vector(case: dict[str, str]) -> None:
    assert strip_html(case["html"]) == case["text"]


def test_page_text_keeps_the_article_and_drops_the_chrome() -> None:
    page = page_text(ARTICLE)
    assert page.title == "Growing Tomatoes on a Balcony"
    assert "six hours of direct sun" in page.text and "feed them every two weeks" in page.text
    assert "track()" not in page.text and "font:serif" not in page.text


def test_a_page_without_a_main_part_falls_back_to_the_plain_strip() -> None:
    assert page_text("<p>Hi</p>").text == "Hi"


def test_fetch_text_heads_with_url_and_title_and_caps_the_length() -> None:
    page = Page("https://example.org/a", "A", "x" * (MAX_CHARS + 10))
    text = fetch_text(page)
    assert text.startswith("URL: https://example.org/a\nTitle: A\n\n")
    assert text.endswith(f"\n\n(Truncated at {MAX_CHARS} characters)")


def test_fetch_text_ranges_work_like_read_slice() -> None:
    page = Page("https://example.org/g", "G", "intro\n\nabout tomatoes\n\nabout basil\n\noutro")
    found = fetch_text(page, FetchRange(type="search", keywords=["BASIL"], context=0))
    assert found.endswith("Matched 1 segment for [BASIL] in example.org/g:\n\nabout basil")
    lines = fetch_text(page, FetchRange(type="lines", start=3, end=3))
    assert lines.endswith("Lines 3-3 of https://example.org/g:\n\nabout tomatoes")


def test_no_results_says_so() -> None:
    assert "No web results" in results_text("q", [])
    assert parse_sources(results_text("q", [])) == []


_line = st.text(st.characters(blacklist_categories=("Cs", "Cc", "Zl", "Zp")), min_size=1, max_size=40)
_title = _line.map(lambda s: " ".join(s.split())).filter(bool)
_url = st.from_regex(r"https://[a-z]{1,12}\.example/[A-Za-z0-9_~%-]{0,20}", fullmatch=True)


@given(st.lists(st.tuples(_title, _url, _line), max_size=6))
def test_every_result_title_and_url_reads_back(rows: list[tuple[str, str, str]]) -> None:
    results = [SearchResult(t, u, " ".join(s.split())) for t, u, s in rows]
    sources = parse_sources(results_text("query", results))
    assert sources == [CitedSource(r.title, r.url) for r in results]


def test_sources_in_agent_md_are_one_line_per_url() -> None:
    text = render_sources([CitedSource("A", "https://a.example/"), CitedSource("A again", "https://a.example/"),
                           CitedSource("", "https://b.example/x")])  # fmt: skip
    assert text == "\n### Sources\n- <https://a.example/> — A\n- <https://b.example/x>\n"
    assert render_sources([]) == ""
