"""`JSON.stringify(value, null, 2)` for the memory's JSON files, fast.

The standard library only has a C encoder for compact JSON; with an indent it falls back to a
generator-based Python encoder, which dominated the weave of a large catalog. This writes the
same bytes as `json.dumps(value, ensure_ascii=False, indent=2)` (tests compare the two) for the
JSON types, with strings escaped by the C escaper.
"""

from __future__ import annotations

import json
from typing import Any

_escape = json.encoder.encode_basestring  # C-accelerated; keeps non-ASCII as it is


def dumps(value: Any) -> str:
    """2-space indented JSON, no trailing newline."""
    out: list[str] = []
    _write(value, "\n", out)
    return "".join(out)


def _write(value: Any, newline: str, out: list[str]) -> None:
    if isinstance(value, str):
        out.append(_escape(value))
    elif isinstance(value, dict):
        _write_dict(value, newline, out)
    elif isinstance(value, list | tuple):
        _write_list(value, newline, out)
    else:
        out.append(json.dumps(value))


def _write_dict(value: dict[Any, Any], newline: str, out: list[str]) -> None:
    if not value:
        out.append("{}")
        return
    inner = newline + "  "
    sep = "{" + inner
    for key, item in value.items():
        out.append(sep)
        out.append(_escape(key if isinstance(key, str) else json.dumps(key).strip('"')))
        out.append(": ")
        if type(item) is str:
            out.append(_escape(item))
        elif type(item) is list and item and all(type(x) is str for x in item):
            # Lists of text (tags, paths, loops) are most of a catalog: join them in one go.
            deeper = inner + "  "
            out.append("[" + deeper + ("," + deeper).join(map(_escape, item)) + inner + "]")
        else:
            _write(item, inner, out)
        sep = "," + inner
    out.append(newline + "}")


def _write_list(value: list[Any] | tuple[Any, ...], newline: str, out: list[str]) -> None:
    if not value:
        out.append("[]")
        return
    inner = newline + "  "
    sep = "[" + inner
    for item in value:
        out.append(sep)
        if isinstance(item, str):
            out.append(_escape(item))
        else:
            _write(item, inner, out)
        sep = "," + inner
    out.append(newline + "]")
