"""A YAML emitter that writes what js-yaml 3.15 `safeDump` writes (indent 2, line width 80).

Only the subset memory files use: block mappings and sequences, strings, numbers, booleans,
null, and `[]` / `{}` for empty collections. Byte-compatibility matters because the original
reads and diffs these files; `yaml_scalars.json` pins the scalar styles (docs/FORMAT.md, "YAML").
Every rule below mirrors js-yaml's dumper: style choice per string, folding at the line width,
double-quoted escapes counted in UTF-16 units (so any emoji forces double quotes).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from core.errors import SliceFormatError
from core.memory.formats.yaml_types import TIMESTAMP, implicit_tag, js_number, js_to_string

INDENT = 2
LINE_WIDTH = 80

# Booleans in YAML 1.1: quoted so older loaders do not read them as true/false.
_COMPAT_QUOTED = frozenset(
    ["y", "Y", "yes", "Yes", "YES", "on", "On", "ON", "n", "N", "no", "No", "NO", "off", "Off", "OFF"]
)
_ESCAPES = {
    0x00: "\\0",
    0x07: "\\a",
    0x08: "\\b",
    0x09: "\\t",
    0x0A: "\\n",
    0x0B: "\\v",
    0x0C: "\\f",
    0x0D: "\\r",
    0x1B: "\\e",
    0x22: '\\"',
    0x5C: "\\\\",
    0x85: "\\N",
    0xA0: "\\_",
    0x2028: "\\L",
    0x2029: "\\P",
}
_NOT_PLAIN_FIRST = frozenset("-?:,[]{}#&*!|=>'\"%@`")
_NOT_PLAIN = frozenset(",[]{}:")
_PLAIN, _SINGLE, _LITERAL, _FOLDED, _DOUBLE = range(5)
_LEADING_SPACE_RE = re.compile(r"\n* ")
_BREAK_RE = re.compile(r" [^ ]")
_LINE_RE = re.compile(r"(\n+)([^\n]*)")
_LINES_RE = re.compile(r"[^\n]*\n|[^\n]+")


def _printable(code: int) -> bool:
    # Per UTF-16 unit in js-yaml, so an astral character (a surrogate pair) is never printable.
    return (
        0x20 <= code <= 0x7E
        or (0xA1 <= code <= 0xD7FF and code not in (0x2028, 0x2029))
        or (0xE000 <= code <= 0xFFFD and code != 0xFEFF)
    )


def _ns_char(code: int) -> bool:
    return _printable(code) and code not in (0x20, 0x09)


def _plain_safe(ch: str, prev: str | None) -> bool:
    if ch in _NOT_PLAIN:
        return False
    return ch != "#" or (prev is not None and _ns_char(ord(prev)))


def _choose_style(s: str, single_line: bool, width: int) -> int:
    """js-yaml `chooseScalarStyle` (printability is checked per character, see `_printable`)."""
    plain = s[0] not in _NOT_PLAIN_FIRST and s[0] not in " \t" and s[-1] not in " \t"
    has_break = foldable = False
    line_start = 0
    prev: str | None = None
    for i, ch in enumerate(s):
        if ch == "\n" and not single_line:
            has_break = True
            foldable = foldable or (i - line_start > width and s[line_start] != " ")
            line_start = i + 1
        elif not _printable(ord(ch)):
            return _DOUBLE
        plain = plain and _plain_safe(ch, prev)
        prev = ch
    if not single_line:
        tail_len = len(s) - line_start
        foldable = foldable or (tail_len > width and s[line_start : line_start + 1] != " ")
    if not has_break and not foldable:
        return _PLAIN if plain and implicit_tag(s) is None else _SINGLE
    return _FOLDED if foldable else _LITERAL


def _escape(s: str) -> str:
    out = []
    for ch in s:
        code = ord(ch)
        if code > 0xFFFF:
            out.append(f"\\U{code:08X}")
        elif code in _ESCAPES:
            out.append(_ESCAPES[code])
        elif _printable(code):
            out.append(ch)
        elif code <= 0xFF:
            out.append(f"\\x{code:02X}")
        else:
            out.append(f"\\u{code:04X}")
    return "".join(out)


def _block_header(s: str) -> str:
    indicator = str(INDENT) if _LEADING_SPACE_RE.match(s) else ""
    clip = s.endswith("\n")
    keep = clip and (s.endswith("\n\n") or s == "\n")
    return indicator + ("+" if keep else "" if clip else "-") + "\n"


def _indent_lines(s: str, spaces: int) -> str:
    pad = " " * spaces
    return "".join(pad + line if line != "\n" else line for line in _LINES_RE.findall(s))


def _drop_final_newline(s: str) -> str:
    return s[:-1] if s.endswith("\n") else s


def _fold_line(line: str, width: int) -> str:
    """Break one line greedily at single spaces so pieces stay within `width` where possible."""
    if line == "" or line[0] == " ":
        return line
    start = curr = 0
    pieces = []
    for m in _BREAK_RE.finditer(line):
        nxt = m.start()
        if nxt - start > width:
            end = curr if curr > start else nxt
            pieces.append(line[start:end])
            start = end + 1
        curr = nxt
    if len(line) - start > width and curr > start:
        pieces.append(line[start:curr])
        pieces.append(line[curr + 1 :])
    else:
        pieces.append(line[start:])
    return "\n".join(pieces)


def _fold(s: str, width: int) -> str:
    first_break = s.find("\n")
    first_break = len(s) if first_break == -1 else first_break
    result = _fold_line(s[:first_break], width)
    prev_more_indented = s[:1] in ("\n", " ")
    for m in _LINE_RE.finditer(s, first_break):
        prefix, line = m.group(1), m.group(2)
        more_indented = line[:1] == " "
        joiner = "\n" if not prev_more_indented and not more_indented and line != "" else ""
        result += prefix + joiner + _fold_line(line, width)
        prev_more_indented = more_indented
    return result


def scalar(s: str, level: int, is_key: bool = False) -> str:
    """One string as js-yaml writes it at nesting `level` (1 = a top-level mapping value)."""
    if s == "":
        return "''"
    if s in _COMPAT_QUOTED:
        return f"'{s}'"
    indent = INDENT * max(1, level)
    width = max(min(LINE_WIDTH, 40), LINE_WIDTH - indent)
    style = _choose_style(s, is_key, width)
    if style == _PLAIN:
        return s
    if style == _SINGLE:
        return "'" + s.replace("'", "''") + "'"
    if style == _LITERAL:
        return "|" + _block_header(s) + _drop_final_newline(_indent_lines(s, indent))
    if style == _FOLDED:
        return ">" + _block_header(s) + _drop_final_newline(_indent_lines(_fold(s, width), indent))
    return '"' + _escape(s) + '"'


def _node(value: Any, level: int, compact: bool, is_key: bool = False) -> str:
    if isinstance(value, str):
        # A value that was an unquoted date in the source is written back the same way.
        if getattr(value, "is_yaml_timestamp", False) and implicit_tag(value) == TIMESTAMP:
            return str(value)
        return scalar(value, level, is_key)
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return js_number(value)
    if isinstance(value, Mapping):
        return _block_mapping(value, level, compact) if value else "{}"
    if isinstance(value, Sequence):
        return _block_sequence(value, level, compact) if value else "[]"
    raise SliceFormatError(f"Cannot write a YAML value of type {type(value).__name__}.")


def _block_sequence(items: Sequence[Any], level: int, compact: bool) -> str:
    out = []
    for i, item in enumerate(items):
        dumped = _node(item, level + 1, compact=True)
        lead = "" if compact and i == 0 else "\n" + " " * (INDENT * level)
        out.append(lead + ("-" if dumped.startswith("\n") else "- ") + dumped)
    return "".join(out)


def _block_mapping(data: Mapping[Any, Any], level: int, compact: bool) -> str:
    out = []
    for i, (key, value) in enumerate(data.items()):
        lead = "" if compact and i == 0 else "\n" + " " * (INDENT * level)
        dumped_key = _node(_key_text(key), level + 1, compact=True, is_key=True)
        dumped = _node(value, level + 1, compact=False)
        out.append(lead + dumped_key + (":" if dumped.startswith("\n") else ": ") + dumped)
    return "".join(out)


def _key_text(key: Any) -> str:
    """Mapping keys are strings in JS; a non-string key read from YAML becomes its JS text."""
    if isinstance(key, str):
        return str(key)
    if key is None:
        return "null"
    if isinstance(key, bool):
        return "true" if key else "false"
    if isinstance(key, int | float):
        return js_to_string(key)
    return str(key)


def dump(data: Any) -> str:
    """`safeDump(data)`: the document text with a trailing newline."""
    return _node(data, 0, compact=True) + "\n"
