"""Frontmatter framing as gray-matter 4 reads and writes it (`---` YAML `---` then the body).

Reading: frontmatter exists only when the file starts with `---` (not `----`); it ends at the
first `\\n---`; exactly one line break after that is dropped. Writing: `---\\n<yaml>\\n---\\n`
then the body, plus a final `\\n` only when the body does not already end with one.

One deliberate difference, so a value that ends in line breaks (or is only one) comes back
whole when it is the last one (docs/FORMAT.md): gray-matter trims the dumped YAML and hands
js-yaml the text without the line break before the closing `---`, which loses a last value's
trailing line breaks. We keep the dump's trailing blank space and read the YAML with that
line break; for every other file both sides are the same bytes and the same values.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from core.errors import SliceFormatError
from core.memory.formats.yaml_emit import dump
from core.memory.formats.yaml_load import load_yaml, load_yaml_node
from core.text import js_trim

OPEN = "---"
CLOSE = "\n---"
_BOM = "\ufeff"
_COMMENT_LINE_RE = re.compile(r"^\s*#[^\n]+", re.M)
_LINE_BREAK_RE = re.compile(r"\r?\n")


@dataclass(frozen=True)
class Matter:
    """A file split into its frontmatter text and body, with where each starts in the file."""

    has_frontmatter: bool
    yaml_text: str  # from just after the opening `---` up to the closing delimiter
    yaml_offset: int  # index in the file where yaml_text starts (line 1 of the file)
    body: str
    body_offset: int  # index in the file where body starts
    closed: bool = True  # False: the frontmatter never ends (gray-matter then reads no body)

    @property
    def yaml_is_blank(self) -> bool:
        """gray-matter treats frontmatter holding only comments or whitespace as empty."""
        return js_trim(_COMMENT_LINE_RE.sub("", self.yaml_text)) == ""


def split(text: str) -> Matter:
    """Split a file the way gray-matter does (a leading BOM is ignored)."""
    start = 1 if text.startswith(_BOM) else 0
    if not text.startswith(OPEN, start) or text.startswith(OPEN + "-", start):
        return Matter(False, "", start, text[start:], start)
    pos = start + len(OPEN)
    rest = text[pos:]
    brk = _LINE_BREAK_RE.search(rest)
    language = rest[: brk.start()] if brk else rest[:-1]
    if language.strip():
        pos += len(language)
        rest = rest[len(language) :]
    close = rest.find(CLOSE)
    if close == -1:
        return Matter(True, rest, pos, "", len(text), closed=False)
    body_at = close + len(CLOSE)
    if rest.startswith("\r", body_at):
        body_at += 1
    if rest.startswith("\n", body_at):
        body_at += 1
    return Matter(True, rest[:close], pos, rest[body_at:], pos + body_at)


def load(matter: Matter, source: str = "frontmatter") -> dict[str, Any]:
    """The frontmatter as a dict (empty when there is none); SliceFormatError when it does not parse.

    Without the node tree, plain frontmatter takes `load_yaml`'s fast reader.
    """
    if not _has_yaml(matter, source):
        return {}
    return _mapping_or_error(load_yaml(matter.yaml_text + "\n", first_line=1, source=source), source)


def load_with_nodes(matter: Matter, source: str = "frontmatter") -> tuple[dict[str, Any], Any]:
    """Like `load`, also returning the YAML node tree (None when there is no YAML).

    Frontmatter without its closing `---` is an error too: read as gray-matter does, the whole
    file would be frontmatter and every turn would silently disappear.
    """
    if not _has_yaml(matter, source):
        return {}, None
    data, node = load_yaml_node(matter.yaml_text + "\n", first_line=1, source=source)
    return _mapping_or_error(data, source), node


def _has_yaml(matter: Matter, source: str) -> bool:
    """Whether there is frontmatter YAML to read; SliceFormatError when it never closes.

    The YAML is read with the line break before the closing `---`, which ends its last line
    (a `|` value's too).
    """
    if not matter.closed:
        raise SliceFormatError(
            f"{source} has no closing `---` line (it opens at line 1), so no turn can be read; "
            "add a line `---` after the last frontmatter key — the file is left untouched until then."
        )
    return matter.has_frontmatter and not matter.yaml_is_blank


def _mapping_or_error(data: Any, source: str) -> dict[str, Any]:
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise SliceFormatError(
            f"{source} is not a mapping of keys to values (found {type(data).__name__}); "
            "fix it by hand — the file is left untouched until then."
        )
    return data


def load_text(text: str, source: str = "frontmatter") -> dict[str, Any]:
    """Frontmatter of a whole file's text."""
    return load(split(text), source)


def with_final_newline(text: str) -> str:
    """gray-matter's `newline()`: add `\\n` unless the text already ends with one."""
    return text if text.endswith("\n") else text + "\n"


def stringify(data: dict[str, Any], body: str) -> str:
    """`matter.stringify(body, data)`: frontmatter (omitted when empty) then the body."""
    dumped = dump(data)
    yaml_text = js_trim(dumped)
    if yaml_text == "{}":
        return with_final_newline(body)
    # gray-matter's trim, except blank space that belongs to the last value (`|+`, `|2` blocks).
    kept = dumped if dumped.startswith(yaml_text) else with_final_newline(yaml_text)
    return f"{OPEN}\n{kept}{OPEN}\n" + with_final_newline(body)
