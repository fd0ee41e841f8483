"""A web page as readable text: trafilatura's main-content extraction, else a plain tag strip.

The plain strip (docs/WEB.md "webFetch") drops script, style and noscript, ends a line at each
closing block tag and `<br>`, removes the remaining tags, decodes the six common entities,
collapses runs of spaces and tabs, keeps at most one blank line, and trims.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_DROP_RE = re.compile(r"<(script|style|noscript)\b[^>]*>.*?</\1\s*>", re.I | re.S)
_BLOCK_END_RE = re.compile(
    r"</(p|div|h[1-6]|li|tr|ul|ol|table|section|article|header|footer|blockquote|pre)\s*>|<br\s*/?>", re.I
)
_TAG_RE = re.compile(r"<[^>]*>")
_SPACES_RE = re.compile(r"[ \t]+")
_BLANKS_RE = re.compile(r"\n{3,}")
_TITLE_RE = re.compile(r"<title[^>]*>(.*?)</title\s*>", re.I | re.S)
_ENTITIES = (("&nbsp;", " "), ("&lt;", "<"), ("&gt;", ">"), ("&quot;", '"'), ("&#39;", "'"), ("&amp;", "&"))


@dataclass(frozen=True)
class PageText:
    """What a page says: its title ("" when it has none) and its readable text."""

    title: str
    text: str


def strip_html(html: str) -> str:
    """The plain tag strip of a page (no main-content detection)."""
    text = _DROP_RE.sub("", html)
    text = _BLOCK_END_RE.sub("\n", text)
    text = _TAG_RE.sub("", text)
    for entity, char in _ENTITIES:
        text = text.replace(entity, char)
    text = _SPACES_RE.sub(" ", text)
    return _BLANKS_RE.sub("\n\n", text).strip()


def _title(html: str) -> str:
    import trafilatura  # heavy (lxml and friends): loaded on the first fetched page only

    meta = trafilatura.extract_metadata(html)
    if meta is not None and meta.title:
        return str(meta.title).strip()
    found = _TITLE_RE.search(html)
    return strip_html(found.group(1)) if found else ""


def page_text(html: str) -> PageText:
    """The title and main text of an HTML page (the whole stripped page when no main part is found)."""
    import trafilatura

    main = trafilatura.extract(html, include_comments=False, include_tables=True, favor_recall=True)
    text = main.strip() if main and main.strip() else strip_html(html)
    return PageText(_title(html), text)
