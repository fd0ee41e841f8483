"""A demo visitor's id: 32 random hex digits, the only form a cookie or a turn may name one by."""

from __future__ import annotations

import re

VISITOR_ID_RE = re.compile(r"^[0-9a-f]{32}\Z")


def visitor_id(value: object) -> str | None:
    """`value` when it is a well-formed visitor id, else None (a malformed one counts as none)."""
    return value if isinstance(value, str) and VISITOR_ID_RE.fullmatch(value) else None
