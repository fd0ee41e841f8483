"""Route parameters and body fields for the identifiers of `core/ids.py`, derived from the types
(their `PATTERN` and `MAX_LENGTH`), so no route spells an id's rule again."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import Path
from pydantic import Field

from core.ids import TextId, TurnId


def id_path(kind: type[TextId], description: str) -> Any:
    """A path parameter that accepts exactly what `kind.parse` accepts (the day's calendar aside)."""
    return Path(pattern=kind.PATTERN, max_length=kind.MAX_LENGTH, description=description)


def id_field(kind: type[TextId], **extra: Any) -> Any:
    """A body field with `kind`'s rule."""
    return Field(pattern=kind.PATTERN, max_length=kind.MAX_LENGTH, **extra)


TurnIdPath = Annotated[str, id_path(TurnId, "The exchange's turn id")]
