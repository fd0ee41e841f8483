"""A fast reader for the plain frontmatter the product writes, or None to use the full loader.

The full js-yaml-compatible loader (`yaml_load`) builds a node tree and runs PyYAML's
constructors for every value, which is most of the catalog weave's cost. What `yaml_emit.dump`
writes for a slice is far simpler: a flat mapping of `key: value` lines whose values are plain
or quoted one-line scalars, `[]`/`{}`, block lists of such scalars, and `|`/`>` blocks of
equally indented lines. This module reads exactly that shape and answers None on anything
else (comments, tabs, blank lines inside, nesting, anchors, tags, escapes, flow collections,
a duplicated key, an unusual character...), so the caller falls back to the full loader,
which also reports the errors. On every input it accepts it returns the same values as the
full loader (tests/unit/test_yaml_fast.py checks this property with generated inputs).
"""

from __future__ import annotations

import functools
import re
from typing import Any

from core.memory.formats import yaml_types as yt

# `key:` at column 0, followed by spaces and a value or by the end of the line.
_KEY_LINE_RE = re.compile(r"([A-Za-z_][A-Za-z0-9_-]*):(?: +(.*)| *)")
# Anything that makes a file not plain: tabs, CR, YAML 1.1 line breaks, a BOM, and every
# character outside what the YAML reader accepts as printable.
_UNUSUAL_RE = re.compile(
    "[^\n\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd\U00010000-\U0010ffff]"
)
# A plain scalar may not start with an indicator (a `-`, `?` or `:` followed by a space or
# the end is one too); inside, `: ` and ` #` end it, and a final `:` makes it a key.
_INDICATORS = frozenset("-?:,[]{}#&*!|>'\"%@`")
# A plain scalar starting with none of these is a string unless `: `, ` #` or a final `:` or
# space is in it (the common case, checked first).
_SPECIAL_START = _INDICATORS | yt.MAYBE_TYPED | frozenset(" ")
_BLOCK_HEADERS = {"|": ("\n", "\n"), "|-": ("\n", ""), ">": (" ", "\n"), ">-": (" ", "")}


class _NotPlain(Exception):
    """The text is not in the plain shape; the full loader reads it."""


def load_plain_mapping(text: str) -> dict[str, Any] | None:
    """The mapping `text` holds when it is plain frontmatter, else None (use the full loader)."""
    if _UNUSUAL_RE.search(text):
        return None
    lines = text.strip("\n").split("\n")
    try:
        return _mapping(lines)
    except (_NotPlain, ValueError, OverflowError):
        return None


def _mapping(lines: list[str]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    i, count = 0, len(lines)
    while i < count:
        match = _KEY_LINE_RE.fullmatch(lines[i])
        if match is None:
            raise _NotPlain
        key, rest = match.groups("")
        if key in result or not _plain_key(key):
            raise _NotPlain
        i += 1
        if rest in _BLOCK_HEADERS:
            result[key], i = _block(lines, i, *_BLOCK_HEADERS[rest])
        elif rest:
            result[key] = _one_line(rest)
        elif i < count and lines[i].lstrip(" ").startswith("- "):
            result[key], i = _sequence(lines, i)
        elif i < count and lines[i][:1] == " ":
            raise _NotPlain  # a nested mapping or a continued scalar
        else:
            result[key] = None
    if not result:
        raise _NotPlain
    return result


@functools.lru_cache(maxsize=1024)
def _plain_key(key: str) -> bool:
    """A key that reads as the string it spells (not `true`, `null`, `Y2`...; cached: keys repeat)."""
    return yt.implicit_tag(key) is None


def _sequence(lines: list[str], i: int) -> tuple[list[Any], int]:
    """Block list items `- value`, all at the indentation of the first one."""
    indent = len(lines[i]) - len(lines[i].lstrip(" "))
    prefix = " " * indent + "- "
    items: list[Any] = []
    while i < len(lines) and lines[i].startswith(prefix):
        items.append(_one_line(lines[i][len(prefix) :]))
        i += 1
    if i < len(lines) and lines[i][:1] == " ":
        raise _NotPlain  # an item continued on the next line, or a nested list
    return items, i


def _block(lines: list[str], i: int, joiner: str, ending: str) -> tuple[str, int]:
    """A `|` / `>` block of non-empty lines at one indentation (none more indented)."""
    first = lines[i] if i < len(lines) else ""
    indent = len(first) - len(first.lstrip(" "))
    if indent == 0 or indent == len(first):
        raise _NotPlain
    pad = " " * indent
    parts: list[str] = []
    while i < len(lines) and lines[i][:1] == " ":
        line = lines[i]
        if not line.startswith(pad) or line.endswith(" ") or line[indent] == " ":
            raise _NotPlain
        parts.append(line[indent:])
        i += 1
    return joiner.join(parts) + ending, i


def _one_line(text: str) -> Any:
    """A one-line value: `[]`, `{}`, a quoted string or a plain scalar, with nothing after it."""
    if not text or text[-1] == " ":
        raise _NotPlain
    if text[0] not in _SPECIAL_START:
        if ": " in text or " #" in text or text[-1] == ":":
            raise _NotPlain
        return text
    if text[0] == " ":
        raise _NotPlain
    if text == "[]":
        return []
    if text == "{}":
        return {}
    first = text[0]
    if first == "'":
        inner = text[1:-1]
        if len(text) < 2 or text[-1] != "'" or "'" in inner.replace("''", ""):
            raise _NotPlain
        return inner.replace("''", "'")
    if first == '"':
        inner = text[1:-1]
        if len(text) < 2 or text[-1] != '"' or '"' in inner or "\\" in inner:
            raise _NotPlain
        return inner
    return _plain(text)


def _plain(text: str) -> Any:
    if text[0] in _INDICATORS and (text[0] not in "-?:" or len(text) == 1 or text[1] == " "):
        raise _NotPlain
    if ": " in text or " #" in text or text.endswith(":"):
        raise _NotPlain
    if text[0] not in yt.MAYBE_TYPED:
        return text
    tag = yt.implicit_tag(text)
    if tag is None:
        return text
    if tag == yt.NULL:
        return None
    if tag == yt.BOOL:
        return text in ("true", "True", "TRUE")
    if tag == yt.INT:
        return yt.construct_int(text)
    if tag == yt.FLOAT:
        return yt.construct_float(text)
    if tag == yt.TIMESTAMP:
        return yt.YamlDate(text)
    raise _NotPlain  # `<<`
