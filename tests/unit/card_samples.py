"""A small card used by the card store, route and CLI tests."""

CARD_TEXT = """# Previously On

_Active slice: 2026-08-10-0900 | Format: user card v2 | Updated: 2026-08-10T09:10:00.000Z_

## Identity

- Name: Alex

## Past

Alex is an engineer who likes evidence.

- Changed jobs in May 2024 — refs: [2026/07/26/1539]

## Now

- Training for a 5K — refs: [2026/08/09/1426] | since: 2026-08-09

- Moving flat in September — refs: [2026/08/01/1000] | since: 2026-08-01

## Horizon

- Draft the wedding speech — by: 2026-08-21 — refs: [2026/08/05/2030]

- Renew the passport — by: 2026-08-01

## Self-model

- Lead with empathy when they are venting
"""


def previous_card(view) -> str | None:  # type: ignore[no-untyped-def]
    """The newest earlier version of the card (what an undo right after a change brings back)."""
    from core.memory.card import history

    found = history.versions(view)
    return history.version_text(view, found[-1]) if found else None
