"""Escaping of message text so nothing a person or a model writes can be read as file structure.

core.md's slice parser ends a turn at the next `## Turn ` anywhere and trims every turn, and
agent.md starts an entry at every `## Cognition `. So, inside text:

- `#`, then any backslashes, then `# Turn ` (or `# Cognition `) gains one backslash after the
  first `#`: `## Turn ` is written `#\\# Turn `, `#\\# Turn ` is written `#\\\\# Turn `, and so on.
  Reading removes exactly one. The escaped text never contains the mark, so no parser (ours or
  the original's) can see a header in it; a Markdown viewer shows `#\\#` as `##`.
- A turn whose text starts or ends with blank space or a backslash gets a guard backslash at
  that end, so trimming keeps the blank space; reading removes the guards.

core.md files carry `turn_escape: v1` in their frontmatter when (and only when) their turns are
written this way; text in files without it is read exactly as written (docs/FORMAT.md, "Turns").
"""

from __future__ import annotations

import re

from core.text import JS_SPACE, JS_SPACE_CHARS

FLAG_KEY = "turn_escape"
FLAG_VALUE = "v1"
_GUARD = "\\"
_TURN_MARK_RE = re.compile(r"#(\\*)# Turn ")
_TURN_ESCAPED_RE = re.compile(r"#(\\+)# Turn ")
# A cognition mark is also one at the very end of a body (only blank space after it): readers
# trim an entry, and appending the next entry trims the one before, which would eat its space.
_AT_END = f"(?= |{JS_SPACE}*\\Z)"
_COGNITION_MARK_RE = re.compile(r"#(\\*)# Cognition" + _AT_END)
_COGNITION_ESCAPED_RE = re.compile(r"#(\\+)# Cognition" + _AT_END)


def _more(m: re.Match[str]) -> str:
    return m[0][0] + _GUARD + m[0][1:]


def _fewer(m: re.Match[str]) -> str:
    return m[0][0] + m[0][2:]


def _needs_guard(char: str) -> bool:
    return char == _GUARD or char in JS_SPACE_CHARS


def escape_turn(content: str) -> str:
    """A turn's text as core.md stores it in an escaped file."""
    body = _TURN_MARK_RE.sub(_more, content)
    if not body:
        return body
    lead = _GUARD if _needs_guard(body[0]) else ""
    trail = _GUARD if _needs_guard(body[-1]) else ""
    return lead + body + trail


def unescape_turn(stored: str) -> str:
    """The exact text of a turn stored by `escape_turn` (its inverse)."""
    body = stored[1:] if stored.startswith(_GUARD) else stored
    body = body[:-1] if body.endswith(_GUARD) else body
    return _TURN_ESCAPED_RE.sub(_fewer, body)


def needs_escape(content: str) -> bool:
    """Whether this text would not read back verbatim from a core.md without the flag: it holds
    a turn mark, or blank space at an end that trimming eats. (A backslash at an end, or an
    already escaped-looking mark, reads back fine there; it is escaped only in flagged files.)"""
    if "## Turn " in content:
        return True
    return bool(content) and (content[0] in JS_SPACE_CHARS or content[-1] in JS_SPACE_CHARS)


def escape_cognition(body: str) -> str:
    """An agent.md entry body with every `## Cognition ` inside it escaped."""
    return _COGNITION_MARK_RE.sub(_more, body)


def unescape_cognition(stored: str) -> str:
    """The inverse of `escape_cognition`."""
    return _COGNITION_ESCAPED_RE.sub(_fewer, stored)


def is_flagged(data: dict[str, object]) -> bool:
    """Whether loaded core.md frontmatter says its turns are escaped."""
    return data.get(FLAG_KEY) == FLAG_VALUE


_FLAG_LINE_RE = re.compile(f"^{FLAG_KEY}: *['\"]?{FLAG_VALUE}['\"]? *\r?$", re.M)


def has_flag_line(yaml_text: str) -> bool:
    """The flag looked for as a line, for frontmatter that does not parse as YAML."""
    return bool(_FLAG_LINE_RE.search(yaml_text))
