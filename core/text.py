"""JavaScript-compatible text helpers.

The original counts string lengths in UTF-16 code units, rounds .5 up and treats a wider set
of characters as whitespace than Python's `str.split()`. Caps and truncations must match it.
"""

from __future__ import annotations

import math
import re

# JS `\s`: ECMAScript WhiteSpace + LineTerminator.
JS_SPACE_CHARS = (
    "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000\ufeff"
)
JS_SPACE = f"[{re.escape(JS_SPACE_CHARS)}]"
JS_SPACES_RE = re.compile(f"{JS_SPACE}+")


def utf16_len(s: str) -> int:
    """Length in UTF-16 code units (what JS `.length` returns)."""
    return len(s) + sum(1 for ch in s if ord(ch) > 0xFFFF)


def utf16_slice(s: str, start: int, end: int | None = None) -> str:
    """`s.slice(start, end)` with JS semantics on UTF-16 units.

    A cut through a surrogate pair drops the half character, so the result is valid text and
    never longer than asked (JS would keep a lone surrogate).
    """
    units = s.encode("utf-16-le")
    n = len(units) // 2
    if start < 0:
        start = max(0, n + start)
    if end is None:
        end = n
    elif end < 0:
        end = max(0, n + end)
    start, end = min(start, n), min(end, n)
    if end <= start:
        return ""
    return units[start * 2 : end * 2].decode("utf-16-le", errors="ignore")


def js_trim(s: str) -> str:
    """`String.prototype.trim` (strips the JS whitespace set)."""
    return s.strip(JS_SPACE_CHARS)


def js_trim_end(s: str) -> str:
    return s.rstrip(JS_SPACE_CHARS)


def collapse_ws(s: str) -> str:
    """Collapse every run of JS whitespace to one space and trim."""
    return JS_SPACES_RE.sub(" ", s).strip(" ")


def js_round(x: float) -> int:
    """`Math.round`: halves round up (towards +∞), unlike Python's banker's rounding."""
    return math.floor(x + 0.5)
