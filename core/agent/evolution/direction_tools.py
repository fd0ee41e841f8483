"""The direction pass's session: validated edits of direction, playbooks and fitness.

Like the card pass's session, it holds in-memory copies and changes them only through tools that
validate inside themselves (caps, refs, descriptive traits, the hypotheses' TTL, verbatim
evidence) and answer `OK — …` or `REJECTED: …` with what to do instead. Nothing it was not told
to touch changes. The TTL is code: while a hypothesis is past its expiry no new one may open,
so an expired guess is confirmed or dropped, never silently kept.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Annotated

from pydantic import Field

from core.agent.evolution.card_tools import Refs
from core.agent.evolution.mutation_session import MutationSession, Outcome, quote
from core.clock import iso
from core.memory.card import rules as r
from core.memory.evolution import direction as d
from core.memory.evolution import fitness as f
from core.memory.evolution.paths import PlaybookAgent
from core.memory.evolution.store import PLAYBOOK_MAX_CHARS
from core.reltime import local_date_key
from core.text import collapse_ws, js_trim, utf16_len

Line = Annotated[str, Field(description="One line of text")]
Match = Annotated[str, Field(description="A few words copied from the trait to act on")]
HypothesisId = Annotated[str, Field(description="The hypothesis id, e.g. h2")]
Agent = Annotated[PlaybookAgent, Field(description="Which sub-agent the playbook briefs")]
BucketArg = Annotated[
    f.Bucket, Field(description="What is scored: card, recall, search, thinkdeep, interaction")
]
ScoreArg = Annotated[int, Field(description="-2 (hurt) … +1 (helped); 0 when unclear")]
Evidence = Annotated[str, Field(description="The user's own words from this slice, copied exactly")]

_IMPERATIVE = frozenset(
    {
        "always",
        "never",
        "do",
        "don't",
        "dont",
        "be",
        "use",
        "avoid",
        "ask",
        "keep",
        "make",
        "give",
        "stop",
        "start",
        "try",
        "remember",
        "lead",
        "offer",
        "tell",
        "let",
        "say",
        "answer",
        "reply",
        "write",
        "check",
        "prefer",
        "focus",
        "assume",
        "suggest",
        "mention",
        "include",
        "please",
    }
)
_SHOULD_RE = re.compile(r"\b(you|i|we) (should|must|need to)\b|\bmust\b", re.IGNORECASE)
_MARKERS = (d.REFS_SEP.strip(), d.TEST_SEP.strip(), "| opened:", "| expires:", "| rejected:")


@dataclass
class DirectionState:
    """What the session starts from: the stored direction, playbooks and ledger."""

    direction: d.Direction
    playbooks: dict[str, str | None]
    fitness: f.Fitness = field(default_factory=f.Fitness)


def _descriptive(text: str) -> r.Problem | None:
    first = js_trim(text).split(" ", 1)[0].lower().strip(",.:;!")
    if first in _IMPERATIVE or _SHOULD_RE.search(text):
        return r.reject(
            "invariant",
            "a Portrait trait describes the user; it is not an instruction. Rewrite it as an "
            '"is/does/tends to" sentence about them (e.g. "Thinks aloud before deciding"), with refs.',
        )
    return None


def _no_markers(label: str, text: str) -> r.Problem | None:
    if any(m in text for m in _MARKERS):
        return r.reject(
            "argument", f"{label} may not contain the file's separators (— refs:, — test:, | …:)."
        )
    return None


class DirectionSession(MutationSession):
    """One pass over the evolution layer: the tools, the log, and the edited values."""

    tool_names = (
        "add_trait",
        "remove_trait",
        "open_hypothesis",
        "confirm_hypothesis",
        "drop_hypothesis",
        "write_playbook",
        "score",
    )

    def __init__(
        self,
        state: DirectionState,
        *,
        slice_id: str,
        now: datetime,
        slice_exists: Callable[[str], bool],
        user_words: Sequence[str] = (),
        timezone: str = "UTC",
    ) -> None:
        self.base = state.direction.copy()
        self.direction = state.direction.copy()
        self.base_playbooks = dict(state.playbooks)
        self.playbooks = dict(state.playbooks)
        self.scores: list[f.Score] = []
        self.signals = [x for x in state.fitness.signals if x.slice == slice_id]
        self.slice_id, self.now = slice_id, now
        self.today = local_date_key(now, timezone) or now.date().isoformat()
        self._slice_exists = slice_exists
        self._user_text = collapse_ws(" ".join(user_words)).lower()
        self._begin()

    @property
    def direction_changed(self) -> bool:
        return self.base.substance() != self.direction.substance()

    def changed_playbooks(self) -> dict[str, str | None]:
        """The playbooks this pass rewrote, by agent."""
        return {a: t for a, t in self.playbooks.items() if t != self.base_playbooks.get(a)}

    @property
    def changed(self) -> bool:
        return self.direction_changed or bool(self.changed_playbooks()) or bool(self.scores)

    def expired(self) -> list[d.Hypothesis]:
        """Hypotheses past their TTL on the user's today."""
        return [h for h in self.direction.hypotheses if h.expired(self.today)]

    def render_direction(self) -> str:
        out = self.direction.copy()
        out.updated = iso(self.now)
        return d.render_direction(out)

    # ------------------------------------------------------------ Portrait

    def add_trait(self, text: Line, refs: Refs) -> str:
        """Add a confirmed trait seen across contexts to the Portrait (descriptive, with refs)."""
        return self._run("add_trait", {"text": text, "refs": refs}, self._add_trait, "text")

    def _add_trait(self, text: str, refs: list[str], forced: bool = False) -> Outcome:
        problem = r.check_text("A Portrait trait", text, d.TRAIT_MAX_CHARS) or _no_markers("A trait", text)
        problem = problem or _descriptive(text)
        norm, problem = (None, problem) if problem else r.check_refs(refs, self._slice_exists)
        portrait = self.direction.portrait
        problem = problem or r.check_duplicate("Portrait", text, [t.text for t in portrait])
        if not problem and len(portrait) >= d.PORTRAIT_MAX:
            problem = r.reject(
                "cap",
                f"the Portrait holds {d.PORTRAIT_MAX} traits (the cap). Merge or remove one "
                "(remove_trait) first.",
            )
        if problem:
            return problem
        portrait.append(d.Trait(js_trim(text), norm or []))
        return self._ok("add_trait", text, f"trait added ({len(portrait)}/{d.PORTRAIT_MAX}).", forced=forced)

    def remove_trait(self, match: Match) -> str:
        """Remove the first Portrait trait containing `match` (it no longer holds)."""
        return self._run("remove_trait", {"match": match}, self._remove_trait)

    def _remove_trait(self, match: str) -> Outcome:
        idx, problem = r.find_match("Portrait", match, [t.text for t in self.direction.portrait])
        if problem:
            return problem
        gone = self.direction.portrait.pop(idx)
        return self._ok("remove_trait", gone.text, f"removed from the Portrait: {quote(gone.text)}.")

    # ------------------------------------------------------------ Hypotheses

    def open_hypothesis(self, claim: Line, test: Line, refs: Refs, ttl_days: int = d.TTL_DAYS_DEFAULT) -> str:
        """Open a falsifiable guess about the user: the claim, what would confirm or refute it, evidence."""
        args = {"claim": claim, "test": test, "refs": refs, "ttl_days": ttl_days}
        return self._run("open_hypothesis", args, self._open)

    def _open(self, claim: str, test: str, refs: list[str], ttl_days: int) -> Outcome:
        stale = self.expired()
        if stale:
            ids = ", ".join(h.id for h in stale)
            return r.reject(
                "invariant",
                f"{ids} expired and must be resolved first: confirm_hypothesis if the evidence holds, "
                "drop_hypothesis if not. Then open new ones.",
            )
        problem = r.check_text("The claim", claim, d.CLAIM_MAX_CHARS) or r.check_text(
            "The test", test, d.TEST_MAX_CHARS
        )
        problem = problem or _no_markers("A claim", claim) or _no_markers("A test", test)
        norm, problem = (None, problem) if problem else r.check_refs(refs, self._slice_exists)
        pool = self.direction.hypotheses
        known = [h.claim for h in pool] + [x.claim for x in self.direction.rejected]
        problem = problem or r.check_duplicate("Hypotheses (or Rejected)", claim, known)
        if not problem and len(pool) >= d.HYPOTHESES_MAX:
            problem = r.reject(
                "cap",
                f"the pool holds {d.HYPOTHESES_MAX} hypotheses (the cap). Confirm or drop one first.",
            )
        if problem:
            return problem
        h = d.Hypothesis(
            self.direction.next_id(), js_trim(claim), js_trim(test), norm or [], self.today,
            d.expiry(self.today, ttl_days),
        )  # fmt: skip
        pool.append(h)
        return self._ok("open_hypothesis", claim, f"{h.id} opened; it expires {h.expires}.")

    def _find(self, hypothesis_id: str) -> tuple[d.Hypothesis | None, r.Problem | None]:
        key = js_trim(hypothesis_id).lower()
        found = next((h for h in self.direction.hypotheses if h.id == key), None)
        if found is None:
            ids = ", ".join(h.id for h in self.direction.hypotheses) or "none"
            return None, r.reject("match", f"there is no hypothesis {hypothesis_id!r} (open: {ids}).")
        return found, None

    def confirm_hypothesis(self, hypothesis_id: HypothesisId, trait: Line, refs: Refs) -> str:
        """The evidence now holds across contexts: the hypothesis becomes a Portrait trait (refs merged)."""
        args = {"hypothesis_id": hypothesis_id, "trait": trait, "refs": refs}
        return self._run("confirm_hypothesis", args, self._confirm)

    def _confirm(self, hypothesis_id: str, trait: str, refs: list[str]) -> Outcome:
        h, problem = self._find(hypothesis_id)
        if problem or h is None:
            return problem or r.reject("match", "no such hypothesis.")
        merged = [*h.refs, *[x for x in refs if x not in h.refs]]
        added = self._add_trait(trait, merged)
        if not isinstance(added, str):
            return added
        self.log.pop()  # one log line for the whole confirmation
        self.direction.hypotheses.remove(h)
        return self._ok("confirm_hypothesis", h.id, f"{h.id} confirmed into the Portrait: {quote(trait)}.")

    def drop_hypothesis(self, hypothesis_id: HypothesisId, reason: Line) -> str:
        """The evidence does not hold, or the TTL ran out unconfirmed: drop it (remembered as ruled out)."""
        return self._run("drop_hypothesis", {"hypothesis_id": hypothesis_id, "reason": reason}, self._drop)

    def _drop(self, hypothesis_id: str, reason: str) -> Outcome:
        h, problem = self._find(hypothesis_id)
        if problem or h is None:
            return problem or r.reject("match", "no such hypothesis.")
        self.direction.hypotheses.remove(h)
        self.direction.rejected = [*self.direction.rejected, d.Rejected(h.claim, self.today)][
            -d.REJECTED_MAX :
        ]
        return self._ok("drop_hypothesis", h.id, f"{h.id} dropped.", note=js_trim(reason))

    # ------------------------------------------------------------ playbooks and fitness

    def write_playbook(self, agent: Agent, text: str) -> str:
        """Replace one sub-agent's brief (recall, search, thinkdeep): short, practical, for this user."""
        return self._run("write_playbook", {"agent": agent, "text": text}, self._write_playbook, "text")

    def _write_playbook(self, agent: str, text: str, forced: bool = False) -> Outcome:
        body = js_trim(text or "")
        if not body:
            return r.reject("empty", "a playbook cannot be empty. Send the whole brief.")
        n = utf16_len(body)
        if n > PLAYBOOK_MAX_CHARS:
            return r.reject(
                "too_long",
                f"the playbook is {n} chars; the limit is {PLAYBOOK_MAX_CHARS}. Keep only what changes how "
                "the sub-agent works for this user, and retry.",
                length=n,
                limit=PLAYBOOK_MAX_CHARS,
            )
        self.playbooks[agent] = body + "\n"
        return self._ok("write_playbook", agent, f"the {agent} playbook now has {n} chars.", forced=forced)

    def score(self, bucket: BucketArg, score: ScoreArg, evidence: Evidence = "") -> str:
        """Score how one part served the user in this slice, quoting their own words as evidence."""
        return self._run("score", {"bucket": bucket, "score": score, "evidence": evidence}, self._score)

    def _score(self, bucket: str, score: int, evidence: str) -> Outcome:
        if not f.SCORE_MIN <= score <= f.SCORE_MAX:
            return r.reject(
                "argument", f"score must be between {f.SCORE_MIN} and {f.SCORE_MAX} (got {score})."
            )
        quote_text = collapse_ws(evidence or "")
        if utf16_len(quote_text) > f.EVIDENCE_MAX_CHARS:
            return r.reject(
                "too_long",
                f"the evidence is {utf16_len(quote_text)} chars; the limit is {f.EVIDENCE_MAX_CHARS}. Quote "
                "the shortest part of the user's words that shows it.",
            )
        if quote_text and quote_text.lower() not in self._user_text:
            return r.reject(
                "refs",
                "evidence must be the user's own words from this slice, copied exactly. Quote them, or "
                "send no evidence (the score is then recorded as 0).",
            )
        entry = f.Score(self.slice_id, bucket, score if quote_text else 0, quote_text, iso(self.now))
        self.scores = [s for s in self.scores if s.bucket != bucket] + [entry]
        note = "" if quote_text else "no evidence, so it counts as 0"
        return self._ok(
            "score", f"{bucket} {entry.score:+d}", f"{bucket} scored {entry.score:+d}.", note=note
        )
