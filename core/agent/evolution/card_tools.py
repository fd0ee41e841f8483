"""The card pass's session: an in-memory card edited only through validated mutation tools.

Every tool validates inside itself and answers `OK — …` or `REJECTED: …` (never raises on bad
input), so the model decides what survives a cap. Entries a tool does not target are never
touched, and the final text is `render()` of the edited card. A loop brake stops a model from
repeating the same rejected call: the second time it is told exactly what to cut, the third
time an over-length text is saved truncated (other checks still apply) and anything else is
skipped with an instruction to finish (mutation_session.py).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import BeforeValidator, Field

from core.agent.evolution.mutation_session import MutationSession, Outcome, quote
from core.clock import iso
from core.memory.card import model as c
from core.memory.card import rules as r
from core.memory.card.migrate import is_legacy, to_current_card
from core.memory.card.model import Anchor, HorizonItem, NowItem
from core.reltime import local_date_key
from core.text import js_trim

IdentityField = Literal["name", "address_as", "pronouns", "alias"]
IDENTITY_LABELS: dict[str, str] = {
    "name": "Name",
    "address_as": "Address them as",
    "pronouns": "Pronouns",
    "alias": "Alias",
}


def _as_list(value: Any) -> Any:
    """Models often send one ref as a bare string; accept it as a one-item list."""
    return [value] if isinstance(value, str) else value


Refs = Annotated[
    list[str],
    BeforeValidator(_as_list),
    Field(description="Slices that evidence the entry: YYYY/MM/DD/HHMM or YYYY-MM-DD-HHMM, optional -turnId"),
]
Text = Annotated[str, Field(description="One line of text")]
Match = Annotated[str, Field(description="A few words copied from the entry to act on")]
Day = Annotated[str, Field(description="A date, YYYY-MM-DD")]
Note = Annotated[str, Field(description="How it turned out, in a few words")]
FieldName = Annotated[IdentityField, Field(description="Which Identity field to set")]


TOOL_NAMES = (
    "set_identity",
    "update_past_profile",
    "add_past_anchor",
    "remove_past_anchor",
    "add_now",
    "remove_now",
    "promote_now_to_past",
    "add_horizon",
    "resolve_horizon",
    "add_self_model",
    "remove_self_model",
)


class CardSession(MutationSession):
    """One evolution pass over a card: the tools, the mutation log and the resulting text."""

    tool_names = TOOL_NAMES

    def __init__(
        self,
        base_text: str | None,
        *,
        slice_id: str,
        now: datetime,
        slice_exists: Callable[[str], bool],
        timezone: str = "UTC",
    ) -> None:
        text = base_text or ""
        legacy = is_legacy(text)
        start = to_current_card(text, slice_id=slice_id, now=now) if text.strip() else c.parse_card(text, now)
        self.base = start.copy()
        self.card = start
        self.card.slice_id, self.card.updated = slice_id, iso(now)
        self.migrated = legacy
        self.today = local_date_key(now, timezone) or now.date().isoformat()
        self._slice_exists = slice_exists
        self._begin()

    # ------------------------------------------------------------ results

    @property
    def changed(self) -> bool:
        """Whether the card's substance differs from where the session started."""
        return not c.same_substance(self.base, self.card)

    def render(self) -> str:
        """The card's file text as it stands now."""
        return c.render_card(self.card)

    def aged_now(self) -> list[NowItem]:
        """Now items at least 7 days old on the user's today (for the agent's prompt)."""
        return c.aged_now_items(self.card, self.today)

    def overdue(self) -> list[HorizonItem]:
        """Horizon items past their `by` date on the user's today."""
        return c.overdue_horizon(self.card.horizon, self.today)

    # ------------------------------------------------------------ Identity

    def set_identity(self, field: FieldName, value: Text) -> str:
        """Set one Identity field (name, address_as, pronouns or alias), replacing its existing line."""
        return self._run("set_identity", {"field": field, "value": value}, self._set_identity, "value")

    def _set_identity(self, field: str, value: str, forced: bool = False) -> Outcome:
        label = IDENTITY_LABELS.get(field)
        if label is None:
            return r.reject("argument", f"field must be one of {', '.join(IDENTITY_LABELS)} (got {field!r}).")
        problem = r.check_text(f"Identity {field}", value, c.IDENTITY_VALUE_MAX_CHARS)
        if problem:
            return problem
        line = f"{label}: {js_trim(value)}"
        prefix = f"{label.lower()}:"
        idx = next((i for i, x in enumerate(self.card.identity) if x.lower().startswith(prefix)), -1)
        if idx < 0:
            cap = r.check_cap("identity", len(self.card.identity))
            if cap:
                return cap
            self.card.identity.append(line)
        else:
            self.card.identity[idx] = line
        return self._ok("set_identity", line, f"Identity now reads {quote(line)}.", forced=forced)

    # ------------------------------------------------------------ Past

    def update_past_profile(self, text: Text) -> str:
        """Replace the Past profile paragraph (third person, one line, at most 2400 chars)."""
        return self._run("update_past_profile", {"text": text}, self._update_profile, "text")

    def _update_profile(self, text: str, forced: bool = False) -> Outcome:
        if not js_trim(text or ""):
            return r.reject(
                "empty",
                "the Past profile cannot be emptied. To change it, send the whole rewritten paragraph.",
            )
        problem = r.check_text("The Past profile", text, c.CARD_PROFILE_MAX_CHARS)
        if problem:
            return problem
        self.card.past.profile = js_trim(text)
        n = len(self.card.past.profile)
        return self._ok("update_past_profile", text, f"Past profile replaced ({n} chars).", forced=forced)

    def add_past_anchor(self, text: Text, refs: Refs) -> str:
        """Add a durable fact to Past (still true in years: dates, decisions, red lines)."""
        return self._run("add_past_anchor", {"text": text, "refs": refs}, self._add_anchor, "text")

    def _add_anchor(self, text: str, refs: list[str], forced: bool = False) -> Outcome:
        problem = r.check_text("A Past anchor", text, c.PAST_ANCHOR_MAX_CHARS)
        norm, problem = (None, problem) if problem else r.check_refs(refs, self._slice_exists)
        anchors = self.card.past.anchors
        problem = problem or r.check_duplicate("Past", text, [a.text for a in anchors])
        problem = problem or r.check_cap("past", len(anchors))
        if problem:
            return problem
        anchors.append(Anchor(js_trim(text), norm or []))
        return self._ok(
            "add_past_anchor",
            text,
            f"anchor added to Past ({len(anchors)}/{c.PAST_ANCHORS_MAX}).",
            forced=forced,
        )

    def remove_past_anchor(self, match: Match) -> str:
        """Remove the first Past anchor containing `match`."""
        return self._run("remove_past_anchor", {"match": match}, self._remove_anchor)

    def _remove_anchor(self, match: str) -> Outcome:
        anchors = self.card.past.anchors
        idx, problem = r.find_match("Past anchor", match, [a.text for a in anchors])
        if problem:
            return problem
        gone = anchors.pop(idx)
        return self._ok(
            "remove_past_anchor", gone.text, f"removed from Past: {quote(gone.text)}.", forced=False
        )

    # ------------------------------------------------------------ Now

    def add_now(self, text: Text, refs: Refs, since: Day | None = None) -> str:
        """Add a current-state hook to the top of Now; `since` defaults to the user's today."""
        args = {"text": text, "refs": refs, "since": since}
        return self._run("add_now", args, self._add_now, "text")

    def _add_now(self, text: str, refs: list[str], since: str | None, forced: bool = False) -> Outcome:
        day = js_trim(since) if since else self.today
        problem = r.check_text("A Now item", text, c.NOW_ITEM_MAX_CHARS)
        norm, problem = (None, problem) if problem else r.check_refs(refs, self._slice_exists)
        problem = problem or r.check_duplicate("Now", text, [n.text for n in self.card.now])
        problem = problem or r.check_date("since", day)
        problem = problem or r.check_cap("now", len(self.card.now))
        if problem:
            return problem
        self.card.now.insert(0, NowItem(js_trim(text), norm or [], day))
        return self._ok("add_now", text, f"added to the top of Now (since {day}).", forced=forced)

    def remove_now(self, match: Match) -> str:
        """Remove the first Now item containing `match`."""
        return self._run("remove_now", {"match": match}, self._remove_now)

    def _remove_now(self, match: str) -> Outcome:
        idx, problem = r.find_match("Now", match, [n.text for n in self.card.now])
        if problem:
            return problem
        gone = self.card.now.pop(idx)
        return self._ok("remove_now", gone.text, f"removed from Now: {quote(gone.text)}.")

    def promote_now_to_past(self, match: Match) -> str:
        """Move the first Now item containing `match` to the end of the Past anchors, refs kept."""
        return self._run("promote_now_to_past", {"match": match}, self._promote)

    def _promote(self, match: str) -> Outcome:
        idx, problem = r.find_match("Now", match, [n.text for n in self.card.now])
        if problem:
            return problem
        item = self.card.now[idx]
        anchors = self.card.past.anchors
        same = next((a for a in anchors if a.text.lower() == item.text.lower()), None)
        if same is None:
            cap = r.check_cap("promote", len(anchors))
            if cap:
                return cap
            anchors.append(Anchor(item.text, list(item.refs)))
        else:  # already an anchor: keep one entry, with the evidence of both
            same.refs += [ref for ref in item.refs if ref not in same.refs]
        self.card.now.pop(idx)
        msg = f"moved from Now to Past: {quote(item.text)}."
        return self._ok("promote_now_to_past", item.text, msg)

    # ------------------------------------------------------------ Horizon

    def add_horizon(self, text: Text, by: Day, refs: Refs) -> str:
        """Add a commitment or deadline to Horizon, due `by` (YYYY-MM-DD)."""
        args = {"text": text, "by": by, "refs": refs}
        return self._run("add_horizon", args, self._add_horizon, "text")

    def _add_horizon(self, text: str, by: str, refs: list[str], forced: bool = False) -> Outcome:
        problem = r.check_text("A Horizon item", text, c.HORIZON_ITEM_MAX_CHARS)
        norm, problem = (None, problem) if problem else r.check_refs(refs, self._slice_exists)
        problem = problem or r.check_duplicate("Horizon", text, [h.text for h in self.card.horizon])
        problem = problem or r.check_date("by", js_trim(by or ""))
        problem = problem or r.check_cap("horizon", len(self.card.horizon))
        if problem:
            return problem
        self.card.horizon.append(HorizonItem(js_trim(text), js_trim(by), norm or []))
        return self._ok("add_horizon", text, f"added to Horizon, due {js_trim(by)}.", forced=forced)

    def resolve_horizon(self, match: Match, note: Note | None = None) -> str:
        """Remove the first Horizon item containing `match` because it is done or dropped; `note` says how."""
        return self._run("resolve_horizon", {"match": match, "note": note}, self._resolve)

    def _resolve(self, match: str, note: str | None) -> Outcome:
        idx, problem = r.find_match("Horizon", match, [h.text for h in self.card.horizon])
        if problem:
            return problem
        gone = self.card.horizon.pop(idx)
        how = js_trim(note or "")
        if how:
            msg = f"resolved and removed from Horizon: {quote(gone.text)} ({how})."
        else:
            msg = (
                f"resolved and removed from Horizon: {quote(gone.text)}. If how it turned out still "
                "matters, record the outcome (add_now, or add_past_anchor for a lasting fact) with refs."
            )
        return self._ok("resolve_horizon", gone.text, msg, note=how)

    # ------------------------------------------------------------ Self-model

    def add_self_model(self, text: Text) -> str:
        """Add an operating lesson about working with this user (a delta from the standing rules)."""
        return self._run("add_self_model", {"text": text}, self._add_self_model, "text")

    def _add_self_model(self, text: str, forced: bool = False) -> Outcome:
        problem = r.check_text("A Self-model line", text, c.SELF_MODEL_LINE_MAX_CHARS)
        problem = problem or r.check_duplicate("Self-model", text, self.card.self_model)
        problem = problem or r.check_self_model_rules(text)
        problem = problem or r.check_cap("self_model", len(self.card.self_model))
        if problem:
            return problem
        self.card.self_model.append(js_trim(text))
        n = len(self.card.self_model)
        return self._ok(
            "add_self_model",
            text,
            f"lesson added to Self-model ({n}/{c.CARD_SELF_MODEL_MAX}).",
            forced=forced,
        )

    def remove_self_model(self, match: Match) -> str:
        """Remove the first Self-model line containing `match`."""
        return self._run("remove_self_model", {"match": match}, self._remove_self_model)

    def _remove_self_model(self, match: str) -> Outcome:
        idx, problem = r.find_match("Self-model", match, self.card.self_model)
        if problem:
            return problem
        gone = self.card.self_model.pop(idx)
        return self._ok("remove_self_model", gone, f"removed from Self-model: {quote(gone)}.")
