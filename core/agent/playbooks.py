"""A sub-agent's playbook, read at call time and added to its user prompt (never the frozen system prompt).

A missing or blank playbook is the normal state: nothing is added. A playbook longer than the
cap (a hand edit) is cut to it, so a brief can never crowd out the question.
"""

from __future__ import annotations

from core.errors import PreviouslyError
from core.memory.evolution.paths import playbook_md
from core.memory.evolution.store import PLAYBOOK_MAX_CHARS
from core.storage.base import Reader
from core.text import js_trim, utf16_slice


def playbook_note(view: Reader, agent: str) -> str:
    """The block to append to `agent`'s user prompt ("" when there is no playbook)."""
    try:
        text = view.read(playbook_md(agent))
    except PreviouslyError:  # an unreadable playbook must not cost the call
        return ""
    body = js_trim(utf16_slice(js_trim(text or ""), 0, PLAYBOOK_MAX_CHARS))
    if not body:
        return ""
    return f"\n\n## Playbook: how to serve this user\n{body}"
