"""The typed state a turn's steps pass along, and what the save step recorded.

`StepState` is the small JSON document every step receives and returns (on AWS it is the
state machine's payload): parsed once at the top of a step, written once at its end. Keys the
state machine adds for itself (its loop counter, a caught error) are kept untouched in `extra`.
`Prepared` is what save decided (which slice, whether one opened or closed), kept in the run
store under `PREPARED_KEY` for the later steps.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields, replace
from typing import Any

_FIELDS = ("turn_id", "next", "round", "slice_id", "closed_slice_id", "connection_id", "failed", "calls")


@dataclass(frozen=True)
class StepState:
    """Where a turn is: which step runs next, the tool round, the slices it touched."""

    turn_id: str
    next: str = ""
    round: int = 0
    slice_id: str | None = None
    closed_slice_id: str | None = None
    connection_id: str | None = None
    failed: str | None = None
    calls: tuple[int, ...] = ()  # positions of the round's tool calls the tools state runs
    attempt: int = 1  # of the step now running; never written out
    item: int | None = None  # the one call a run of the tools state handles; never written out
    extra: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> StepState:
        """Parse a step's input; a state without a turn id is a caller's bug (ValueError)."""
        turn_id = data.get("turn_id")
        if not isinstance(turn_id, str) or not turn_id:
            raise ValueError(f"A step state needs a turn_id, got {data!r:.200}")
        known = {k: data[k] for k in _FIELDS if k in data and data[k] is not None}
        known["round"] = int(data.get("round") or 0)
        known["calls"] = tuple(int(i) for i in data.get("calls") or ())
        item = data.get("item")
        extra = {k: v for k, v in data.items() if k not in (*_FIELDS, "attempt", "item", "more_tools")}
        return cls(
            **known,
            attempt=int(data.get("attempt") or 1),
            item=int(item) if item is not None else None,
            extra=extra,
        )

    def to_json(self) -> dict[str, Any]:
        """The state as JSON (the attempt number belongs to one run of a step, not to the turn)."""
        out = {**self.extra, **{k: getattr(self, k) for k in _FIELDS}}
        out["calls"] = list(self.calls)
        # Kept for a Choice state that tests a boolean: it mirrors next == "tools".
        out["more_tools"] = self.next == "tools"
        return out

    def then(self, next: str, **changes: Any) -> StepState:
        """The state handed on: `next` set, the given fields changed."""
        return replace(self, next=next, **changes)


@dataclass(frozen=True)
class Prepared:
    """What the save step decided for this turn (the user's turn is committed in `slice_id`)."""

    slice_id: str
    slice_opened: bool
    slice_closed: str | None
    user_turn_id: str
    no_model: bool
    timezone: str = "UTC"
    locale: str = "en"
    card_note: str | None = None  # set by analyze when an explicit "remember this" changed the card

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: Any) -> Prepared | None:
        """The record, or None when there is none (or it is not a record)."""
        if not isinstance(data, dict) or not isinstance(data.get("slice_id"), str):
            return None
        names = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in names})
