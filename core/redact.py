"""Secrets never leave in error text or logs: known values and key-shaped strings become `[redacted]`.

A model provider may echo the request's Authorization header (or the key itself) in an error
body, and that text would otherwise flow into `turn.error`, the run store, HTTP error bodies and
the server log. Every domain error's message passes through `redact` (core/errors.py), and the
composition root installs it on log records (functions/logs.py).

The values to hide are registered once by the composition root (`register_secrets`); the shapes
below catch keys nobody registered (a provider's own key formats, bearer tokens).
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterable

MASK = "[redacted]"
# Shorter values would hide ordinary words; real keys are far longer.
_MIN_SECRET = 8

_SHAPES = re.compile(
    r"(?i:bearer|token|basic)\s+[A-Za-z0-9._~+/=-]{12,}"  # Authorization header values
    r"|(?i:x-api-key|api[-_]?key|access[-_]key|authorization)([\"']?\s*[:=]\s*[\"']?)[^\s\"',;}]{8,}"
    r"|\bsk-[A-Za-z0-9_-]{12,}"  # OpenAI / Anthropic / DeepSeek / Moonshot style keys
    r"|\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{20,}|\bgithub_pat_[A-Za-z0-9_]{20,}"
    r"|\bAKIA[0-9A-Z]{16}\b|\bAIza[0-9A-Za-z_-]{30,}|\bgsk_[A-Za-z0-9]{20,}|\bxai-[A-Za-z0-9]{20,}"
)

_known: set[str] = set()
_lock = threading.Lock()


def register_secrets(values: Iterable[str | None]) -> None:
    """Remember these values (keys, tokens, session secrets) so `redact` hides them wherever they appear."""
    with _lock:
        _known.update(v.strip() for v in values if v and len(v.strip()) >= _MIN_SECRET)


def _shape(match: re.Match[str]) -> str:
    text = match.group(0)
    sep = match.group(1)
    if sep is not None:  # keep the field name and separator: "x-api-key: [redacted]"
        return text[: match.start(1) - match.start(0)] + sep + MASK
    first = text.split(None, 1)
    return f"{first[0]} {MASK}" if len(first) == 2 else MASK


def redact(text: str) -> str:
    """`text` with every registered secret and every key-shaped string replaced by `[redacted]`."""
    if not text:
        return text
    with _lock:
        known = sorted(_known, key=len, reverse=True)
    for value in known:
        if value in text:
            text = text.replace(value, MASK)
    return _SHAPES.sub(_shape, text)
