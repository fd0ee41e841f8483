"""The scalar types js-yaml 3 resolves implicitly, shared by our YAML loader and emitter.

js-yaml's default safe schema is YAML-1.2-like: only `true`/`false` spellings are booleans
(`yes`/`no`/`on`/`off` stay strings), integers include `0b…`, `0x…`, leading-zero octal and
sexagesimal `1:20`, and `YYYY-MM-DD[Thh:mm:ss…]` is a timestamp. A loader must read a plain
scalar with these rules, and an emitter must quote a string that would read back as another type.
"""

from __future__ import annotations

import math
import re
from decimal import Decimal

NULL = "tag:yaml.org,2002:null"
BOOL = "tag:yaml.org,2002:bool"
INT = "tag:yaml.org,2002:int"
FLOAT = "tag:yaml.org,2002:float"
TIMESTAMP = "tag:yaml.org,2002:timestamp"
MERGE = "tag:yaml.org,2002:merge"

# A plain scalar can only be a non-string if it starts with one of these.
MAYBE_TYPED = frozenset("~nNtTfF+-.0123456789<")

_NULLS = frozenset({"~", "null", "Null", "NULL"})
_TRUE = frozenset({"true", "True", "TRUE"})
_FALSE = frozenset({"false", "False", "FALSE"})
_FLOAT_RE = re.compile(
    r"(?:[-+]?(?:0|[1-9][0-9_]*)(?:\.[0-9_]*)?(?:[eE][-+]?[0-9]+)?"
    r"|\.[0-9_]+(?:[eE][-+]?[0-9]+)?"
    r"|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*"
    r"|[-+]?\.(?:inf|Inf|INF)"
    r"|\.(?:nan|NaN|NAN))\Z"
)
_DATE_RE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}\Z")
_TIMESTAMP_RE = re.compile(
    r"[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(?:[Tt]|[ \t]+)[0-9]{1,2}:[0-9]{2}:[0-9]{2}"
    r"(?:\.[0-9]*)?(?:[ \t]*(?:Z|[-+][0-9]{1,2}(?::[0-9]{2})?))?\Z"
)
_SEXAGESIMAL_TAIL_RE = re.compile(r"(?::[0-5]?[0-9])+\Z")
_DIGITS = {"b": "01", "x": "0123456789abcdefABCDEF", "o": "01234567"}


def _digits_only(body: str, allowed: str, trailing_underscore: bool = False) -> bool:
    """All chars are `allowed` or `_`, with at least one digit (and no trailing `_` unless allowed)."""
    if not body or (body[-1] == "_" and not trailing_underscore):
        return False
    seen = False
    for ch in body:
        if ch == "_":
            continue
        if ch not in allowed:
            return False
        seen = True
    return seen


def is_int(data: str) -> bool:
    """js-yaml 3 `resolveYamlInteger`."""
    if not data:
        return False
    i = 1 if data[0] in "+-" else 0
    rest = data[i:]
    if rest.startswith("0"):
        if len(rest) == 1:
            return True
        kind = rest[1]
        if kind in "bx":
            return _digits_only(rest[2:], _DIGITS[kind])
        return _digits_only(rest[1:], _DIGITS["o"])
    if rest.startswith("_"):
        return False
    head, colon, tail = rest.partition(":")
    if not _digits_only(head, "0123456789", trailing_underscore=bool(colon)):
        return False
    return not colon or bool(_SEXAGESIMAL_TAIL_RE.match(":" + tail))


def is_float(data: str) -> bool:
    """js-yaml 3 `resolveYamlFloat`."""
    return bool(_FLOAT_RE.match(data)) and not data.endswith("_")


def is_timestamp(data: str) -> bool:
    """js-yaml 3 `resolveYamlTimestamp` (a date or a date-time)."""
    return bool(_DATE_RE.match(data) or _TIMESTAMP_RE.match(data))


def implicit_tag(data: str) -> str | None:
    """The tag js-yaml gives a plain scalar other than a string, or None for a string."""
    if data == "" or data in _NULLS:
        return NULL
    if data in _TRUE or data in _FALSE:
        return BOOL
    first = data[0]
    if first in "+-.0123456789":
        if is_int(data):
            return INT
        if is_float(data):
            return FLOAT
        if is_timestamp(data):
            return TIMESTAMP
    if data == "<<":
        return MERGE
    return None


def construct_int(data: str) -> int:
    """The integer value of a scalar that `is_int` accepted."""
    value = data.replace("_", "")
    sign = -1 if value.startswith("-") else 1
    value = value.lstrip("+-")
    if value == "0":
        return 0
    if value.startswith("0b"):
        return sign * int(value[2:], 2)
    if value.startswith("0x"):
        return sign * int(value[2:], 16)
    if value.startswith("0"):
        return sign * int(value, 8)
    if ":" in value:
        return sign * int(_sexagesimal(value, int))
    return sign * int(value)


def construct_float(data: str) -> float:
    """The float value of a scalar that `is_float` accepted."""
    value = data.replace("_", "").lower()
    sign = -1.0 if value.startswith("-") else 1.0
    value = value.lstrip("+-")
    if value == ".inf":
        return sign * math.inf
    if value == ".nan":
        return math.nan
    if ":" in value:
        return sign * _sexagesimal(value, float)
    return sign * float(value)


def _sexagesimal(value: str, kind: type) -> int | float:
    total: int | float = 0
    for part in value.split(":"):
        total = total * 60 + kind(part)
    return total


def js_number(value: int | float) -> str:
    """How js-yaml writes a number: JS `Number#toString`, plus its `.nan`/`.inf`/`-0.0` forms."""
    if isinstance(value, float):
        if math.isnan(value):
            return ".nan"
        if math.isinf(value):
            return ".inf" if value > 0 else "-.inf"
        if value == 0 and math.copysign(1.0, value) < 0:
            return "-0.0"
    text = js_to_string(value)
    # js-yaml keeps a float-looking exponent form (`1.e+21`) so it does not read back as an int.
    return re.sub(r"^([-+]?[0-9]+)e", r"\1.e", text) if isinstance(value, float) else text


def js_to_string(value: int | float) -> str:
    """ECMAScript `Number#toString()` (shortest round-trip digits; exponent outside 1e-7..1e21)."""
    if isinstance(value, float) and not math.isfinite(value):
        return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    if value == 0:
        return "0"
    sign = "-" if value < 0 else ""
    dec = Decimal(repr(abs(value))) if isinstance(value, float) else Decimal(abs(value))
    _, digit_tuple, exp = dec.normalize().as_tuple()
    digits = "".join(map(str, digit_tuple))
    k = len(digits)
    n = k + int(exp)
    if k <= n <= 21:
        body = digits + "0" * (n - k)
    elif 0 < n <= 21:
        body = digits[:n] + "." + digits[n:]
    elif -6 < n <= 0:
        body = "0." + "0" * -n + digits
    else:
        e = n - 1
        mantissa = digits if k == 1 else digits[0] + "." + digits[1:]
        body = f"{mantissa}e{'+' if e >= 0 else '-'}{abs(e)}"
    return sign + body


class YamlDate(str):
    """An unquoted YAML timestamp (`2026-08-16T10:00:00.000Z`, `2024-01-01`), kept as written."""

    __slots__ = ()
    is_yaml_timestamp = True
