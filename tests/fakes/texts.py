"""The one strategy of texts every writer and reader must keep byte for byte (issue 29, the text policy).

A message, a reply, a note, an edit: whatever the user or a model writes comes back exactly,
ends included, and never shows the file's escape (docs/FORMAT.md "Escaped turn text"). `TEXTS`
draws texts built to trip a Markdown file format: lines that look like the format's own
structure (`## Turn …`, `## Cognition …`, `---` frontmatter fences, code fences, escape
backslashes), blank space and line breaks at either end (U+2028, U+2029, a BOM, a no-break
space, CR LF), CJK, emoji with joiners and combining marks, and now and then a line of
100,000 characters. `SAMPLES` are fixed cases to pin with `@example` or a parametrize, so the
hardest ones run every time rather than when hypothesis happens to draw them.

    @given(text=TEXTS)
    @example(text=PADDED_REPLY)
    def test_reply_kept(text: str) -> None: ...

`one_line(TEXTS)` gives texts without any line break, for fields that hold one line;
`SHORT_TEXTS` glues the same pieces (`FRAGMENTS`) anywhere, mid-line too, cheap enough for
unit tests of the codecs that run hundreds of examples.
"""

from __future__ import annotations

from hypothesis import strategies as st

from core.text import js_trim

TURN_HEADER = "## Turn abcDEF — 2026-01-01T00:00:00.000Z (agent)"
COGNITION_HEADER = "## Cognition abcDEF — 2026-01-01T00:00:00.000Z"
PADDED_REPLY = "  \n padded reply \n\n"
# One line of 99,980 characters: with the longest ends drawn, a text stays within the
# 100,000 characters a message may have.
LONG_LINE = "long line " + "ü" * 40_000 + "界" * 30_000 + "x" * 29_970

# Lines shaped like the memory's own files: core.md turns and frontmatter, agent.md entries,
# the escape's marks and guards, Markdown fences and comments.
FORMAT_LINES = (
    TURN_HEADER,
    "## Turn ",
    "## Turn 3 — 2026-01-01T00:00:00.000Z (user)",
    "#\\# Turn abcDEF",
    "#\\\\# Turn ",
    COGNITION_HEADER,
    "## Cognition abcDEF — 2026-01-01T00:00:00.000Z (replaced)",
    "#\\# Cognition ",
    "### Thinking",
    "### Replaced reply",
    "---",
    "----",
    "slice_id: 2026-01-01-0000",
    "turn_escape: v1",
    "```",
    "````markdown",
    "~~~",
    "<!-- a comment -->",
    "- [ ] a loop",
    "# Heading",
    "\\",
    "\\\\",
    "[remembered via MCP]",
)
# Blank space a parser's trimming would eat: what must survive at a text's ends.
BLANKS = ("", " ", "  ", "\t", "\n", "\n\n", "\r\n", "\u2028", "\u2029", "\u00a0", "\u3000", "  \n \n\n")
WORDS = (
    "padded reply",
    "你好，世界。今天的天气很好",
    "日本語のテキスト",
    "한국어 문장",
    "🌱🍅 garden",
    "👩‍👩‍👧 family",
    "🇵🇹 flag",
    "e\u0301 combining",
    "\ufeffa BOM inside",
    "zero\u200bwidth",
    "tab\there",
    "back\\slash",
    "$x^2$ and \\frac{a}{b}",
)
_CHARS = st.characters(codec="utf-8", blacklist_categories=("Cs",), blacklist_characters="\x00")
_LINE = st.one_of(
    st.sampled_from(FORMAT_LINES),
    st.sampled_from(WORDS),
    st.sampled_from(BLANKS),
    st.text(_CHARS, max_size=24),
)
_BODY = st.lists(_LINE, min_size=1, max_size=8).flatmap(
    lambda lines: st.sampled_from(("\n", "\n\n", "\r\n", "\u2028")).map(lambda sep: sep.join(lines))
)
_LEAD = st.one_of(st.sampled_from(BLANKS), st.just("\ufeff"), st.sampled_from(("---\n", "## Turn ", "\\")))
_TAIL = st.one_of(st.sampled_from(BLANKS), st.sampled_from(("\n---", "\n```", "\\")))


def _join(lead: str, body: str, tail: str) -> str:
    text = lead + body + tail
    return text if js_trim(text) else f"{text}words{text}"  # a writer may refuse a blank text


TEXTS: st.SearchStrategy[str] = st.one_of(
    st.builds(_join, _LEAD, _BODY, _TAIL),
    st.builds(_join, _LEAD, st.just(LONG_LINE), _TAIL),
)

SAMPLES: tuple[str, ...] = (
    PADDED_REPLY,
    "\ufeffstarts with a BOM",
    f"{TURN_HEADER}\n\nnot a turn",
    f"---\nslice_id: 2026-01-01-0000\n---\n{COGNITION_HEADER}\n",
    "```\n## Turn \n```\n",
    "line\u2028separator\u2029paragraph\u2028",
    "\\\nguard lookalikes\n\\",
    "你好 🌱 \n\n",
    f"\n{LONG_LINE}\n",
)

# Pieces for short texts glued together anywhere, mid-line too (the codecs' unit tests).
FRAGMENTS: tuple[str, ...] = (
    *FORMAT_LINES,
    *BLANKS,
    *WORDS,
    f"\n{TURN_HEADER}\n",
    f"{COGNITION_HEADER}\n",
    "\n---\n",
    "#",
    "\r",
    "\ufeff",
    "Turn",
)
# Cheap texts for many examples: fragments and a little random text, no 100k line.
SHORT_TEXTS: st.SearchStrategy[str] = st.lists(
    st.one_of(st.sampled_from(FRAGMENTS), st.text(max_size=4)), max_size=12
).map("".join)

_LINE_BREAKS = ("\r\n", "\n", "\r", "\u2028", "\u2029", "\x85", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e")


def one_line(texts: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    """The same texts with every line break (as Python, JS and YAML see them) made a space."""

    def flatten(text: str) -> str:
        for brk in _LINE_BREAKS:
            text = text.replace(brk, " ")
        return text

    return texts.map(flatten)
