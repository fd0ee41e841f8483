"""`JSON.stringify(value, null, 2)` for the memory's JSON files, fast.

The standard library only has a C encoder for compact JSON; with an indent it falls back to a
generator-based Python encoder, which dominated the weave of a large catalog. This writes the
same bytes as `json.dumps(value, ensure_ascii=False, indent=2)` (tests compare the two) for the
JSON types, with strings escaped by the C escaper.
"""

from __future__ import annotations

import json
from typing import Any

escape = json.encoder.encode_basestring  # C-accelerated; keeps non-ASCII as it is


def dumps(value: Any) -> str:
    """2-space indented JSON, no trailing newline."""
    return _value(value, "\n")


def _value(value: Any, newline: str) -> str:
    kind = type(value)
    if kind is str:
        return escape(value)
    if kind is dict:
        return _dict(value, newline)
    if kind is list or kind is tuple:
        return _list(value, newline)
    return json.dumps(value)


def member(key: Any, item: Any, newline: str = "\n") -> str:
    """One `"key": value` entry of an object whose braces sit at `newline`'s indent.

    `join_members` of an object's members in order gives exactly `dumps` of the object, so a
    file can keep its members rendered and re-render only the ones that change.
    """
    return rendered_member(key, escape(item) if type(item) is str else _value(item, newline + "  "))


def rendered_member(key: Any, rendered: str) -> str:
    """`member` with its value already rendered (e.g. by `join_items`)."""
    name = escape(key if isinstance(key, str) else json.dumps(key).strip('"'))
    return f"{name}: {rendered}"


def join_members(members: list[str], newline: str = "\n") -> str:
    """An object from its rendered members (see `member`)."""
    if not members:
        return "{}"
    inner = newline + "  "
    return "{" + inner + ("," + inner).join(members) + newline + "}"


def item(value: Any, newline: str) -> str:
    """One element of a list whose brackets sit at `newline`'s indent (see `join_items`)."""
    return _value(value, newline + "  ")


def join_items(items: list[str], newline: str) -> str:
    """A list from its rendered elements: `dumps` of the list when each is `item` of one."""
    if not items:
        return "[]"
    inner = newline + "  "
    return "[" + inner + ("," + inner).join(items) + newline + "]"


def _dict(value: dict[Any, Any], newline: str) -> str:
    return join_members([member(key, val, newline) for key, val in value.items()], newline)


def _list(value: list[Any] | tuple[Any, ...], newline: str) -> str:
    if all(type(x) is str for x in value):  # tags, paths, loops: most of a catalog
        return join_items(list(map(escape, value)), newline)
    inner = newline + "  "
    return join_items([_value(x, inner) for x in value], newline)
