"""The part of js-yaml 3.15 `safeDump` the sample needs: plain, single-quoted and folded strings.

REFERENCE §2.3 describes the emitter; `yaml_scalars.json` pins it. Strings that js-yaml would
write double-quoted (tabs, emoji, other non-printable units) or as literal blocks (line breaks)
are refused with `UnsupportedScalar` instead of being approximated: the sample keeps its
frontmatter values inside the supported subset.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

# YAML 1.1 booleans js-yaml still quotes for compatibility, though it reads them as strings.
DEPRECATED_BOOLEANS = frozenset(
    ("y", "Y", "yes", "Yes", "YES", "on", "On", "ON", "n", "N", "no", "No", "NO", "off", "Off", "OFF")
)
_PLAIN_UNSAFE_FIRST = frozenset("-?:,[]{}#&*!|=>'\"%@`")
_PLAIN_UNSAFE_ANY = frozenset(",[]{}:")
_NULL_RE = re.compile(r"^(?:~|null|Null|NULL)$")
_BOOL_RE = re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$")
_FLOAT_RE = re.compile(
    r"^(?:[-+]?(?:0|[1-9][0-9_]*)(?:\.[0-9_]*)?(?:[eE][-+]?[0-9]+)?"
    r"|\.[0-9_]+(?:[eE][-+]?[0-9]+)?"
    r"|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*"
    r"|[-+]?\.(?:inf|Inf|INF)"
    r"|\.(?:nan|NaN|NAN))$"
)
_DATE_RE = re.compile(r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$")
_TIMESTAMP_RE = re.compile(
    r"^[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(?:[Tt]|[ \t]+)[0-9]{1,2}:[0-9]{2}:[0-9]{2}"
    r"(?:\.[0-9]*)?(?:[ \t]*(?:Z|[-+][0-9]{1,2}(?::[0-9]{2})?))?$"
)
_BASE60_TAIL_RE = re.compile(r"^(?::[0-5]?[0-9])+$")


class UnsupportedScalar(ValueError):
    """A string this subset cannot render the way js-yaml would."""


def _utf16_units(s: str) -> list[int]:
    data = s.encode("utf-16-le")
    return [int.from_bytes(data[i : i + 2], "little") for i in range(0, len(data), 2)]


def _printable(u: int) -> bool:
    # Judged per UTF-16 unit, as js-yaml 3 does: surrogate halves are "non-printable".
    return (
        0x20 <= u <= 0x7E
        or (0xA1 <= u <= 0xD7FF and u not in (0x2028, 0x2029))
        or (0xE000 <= u <= 0xFFFD and u != 0xFEFF)
    )


def _is_ns_char(u: int) -> bool:
    return _printable(u) and u not in (0x20, 0x09, 0xFEFF, 0x0D, 0x0A)


def _plain_safe(u: int, prev: int | None) -> bool:
    if not _printable(u) or u == 0xFEFF or chr(u) in _PLAIN_UNSAFE_ANY:
        return False
    return u != ord("#") or (prev is not None and _is_ns_char(prev))


def _resolves_as_int(s: str) -> bool:
    """js-yaml's `resolveYamlInteger` (decimal with `_`, 0b/0x/leading-0 octal, base 60)."""
    body = s[1:] if s[0] in "+-" else s
    if body.startswith("0"):
        if body == "0":
            return True
        if body[1] in "bx":
            digits, allowed = body[2:], "01" if body[1] == "b" else "0123456789abcdefABCDEF"
        else:
            digits, allowed = body[1:], "01234567"
        core = digits.replace("_", "")
        return bool(core) and all(c in allowed for c in core) and not digits.endswith("_")
    if body.startswith("_"):
        return False
    head, sep, tail = body.partition(":")
    core = head.replace("_", "")
    if not core or not core.isascii() or not core.isdigit():
        return False
    if not sep:
        return not head.endswith("_")
    return bool(_BASE60_TAIL_RE.match(sep + tail))


def resolves_as_other_type(s: str) -> bool:
    """Whether js-yaml's implicit resolvers would read `s` as null, bool, number, date or merge."""
    if _NULL_RE.match(s) or _BOOL_RE.match(s) or s == "<<":
        return True
    if _DATE_RE.match(s) or _TIMESTAMP_RE.match(s):
        return True
    if _FLOAT_RE.match(s) and not s.endswith("_"):
        return True
    return _resolves_as_int(s)


def fold_line(line: str, width: int) -> str:
    """js-yaml's `foldLine`: break greedily at single spaces so lines stay within `width`."""
    if line == "" or line[0] == " ":
        return line
    start = curr = 0
    result = ""
    for match in re.finditer(r" [^ ]", line):
        nxt = match.start()
        if nxt - start > width:
            end = curr if curr > start else nxt
            result += "\n" + line[start:end]
            start = end + 1
        curr = nxt
    result += "\n"
    if len(line) - start > width and curr > start:
        result += line[start:curr] + "\n" + line[curr + 1 :]
    else:
        result += line[start:]
    return result[1:]


def render_scalar(s: str, level: int) -> str:
    """`s` as js-yaml writes it at `level` (1 = top-level mapping value, 2 = sequence item)."""
    if s == "":
        return "''"
    if s in DEPRECATED_BOOLEANS:
        return f"'{s}'"
    indent = 2 * level
    width = max(40, 80 - indent)
    units = _utf16_units(s)
    if "\n" in s or not all(_printable(u) for u in units):
        raise UnsupportedScalar(f"{s!r}: line breaks, tabs and emoji are outside the sample's YAML subset")
    plain = chr(units[0]) not in _PLAIN_UNSAFE_FIRST and units[0] not in (0x20, 0x09)
    plain = plain and units[-1] not in (0x20, 0x09)
    prev: int | None = None
    for u in units:
        plain = plain and _plain_safe(u, prev)
        prev = u
    if len(units) > width and s[0] != " ":
        lines = fold_line(s, width).split("\n")
        return ">-\n" + "\n".join(" " * indent + ln if ln else "" for ln in lines)
    if plain and not resolves_as_other_type(s):
        return s
    return "'" + s.replace("'", "''") + "'"


def dump_mapping(items: Sequence[tuple[str, str | Sequence[str]]]) -> str:
    """A top-level block mapping of strings and string lists, without a trailing newline."""
    out: list[str] = []
    for name, value in items:
        key = render_scalar(name, 1)
        if isinstance(value, str):
            out.append(f"{key}: {render_scalar(value, 1)}")
        elif not value:
            out.append(f"{key}: []")
        else:
            out.append(f"{key}:")
            out.extend(f"  - {render_scalar(item, 2)}" for item in value)
    return "\n".join(out)
