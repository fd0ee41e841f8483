"""Recovery: no accepted message is lost and no turn stays `running` after its process died.

Run when the local server starts, at every maintenance pass (locally and on AWS), and at the
start of every turn's save step, before its own message is committed (`recover_before`), so a
message a crashed turn accepted lands on disk before the next one. For each turn in the run
store:

- left `running` by a process that is gone (its owner record names this host and a pid that no
  longer runs), or — where no owner can be asked (a Step Functions execution) — still `running`
  past its deadline (`DEADLINE_KEY`, written when its save step starts: `deps.turn_timeout`
  later, the longest its execution can run, so never before it could have ended) → it ends
  `turn.done` `interrupted`, with a reason the page shows;
- accepted (its request is recorded) but never saved — it ended, or died, before `turn.started`
  and its user message is not in memory → the message is saved now, with no model call.

A turn that announced `turn.started` had its message in memory then, and is never saved again
(the person may have forgotten that slice since). A turn still running somewhere is left alone.

Cheap when there is nothing to recover: a turn found finished with its message in memory gets
a `settled` marker in the run store (and is remembered by this process), so the pass before a
turn is one run-store listing plus reads of the turns not settled yet, and reads memory (GitHub)
only for a turn that really lost its message.
"""

from __future__ import annotations

import os
import socket
import threading
import weakref
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from core.clock import iso, parse_iso
from core.turn.deps import TurnDeps
from core.turn.events import Event, turn_done
from core.turn.runstore import status_of
from core.turn.runtime import REQUEST_KEY, ending_event
from core.turn.steps.save import commit_user_message, saved_record

OWNER_KEY = "owner"
ACCEPTED_KEY = "accepted_at"  # when the save step first ran (orders recovered messages)
DEADLINE_KEY = "deadline"  # after it, a turn nobody can vouch for is dead
SETTLED_KEY = "settled"  # the turn ended and its message is in memory: nothing to recover
LOST_REASON = (
    "The server stopped before this turn finished. Your message is kept in memory; "
    "send it again for an answer."
)


def this_process() -> dict[str, Any]:
    """Who runs a turn: this host and process."""
    return {"host": socket.gethostname(), "pid": os.getpid()}


def process_alive(owner: Any) -> bool | None:
    """Whether the owner process still runs (None: another host, or no owner recorded — unknown)."""
    if not isinstance(owner, dict) or owner.get("host") != socket.gethostname():
        return None
    try:
        os.kill(int(owner["pid"]), 0)
    except ProcessLookupError:
        return False
    except (PermissionError, ValueError, KeyError, TypeError):
        return True  # the pid belongs to another user's process, or the record is odd: assume alive
    return True


def interrupted_ending(turn_id: str, events: list[Event]) -> Event:
    """The end recorded for a turn nobody will finish: `turn.done` interrupted, with the reason."""
    fields = {**turn_done("interrupted", None, {}), "reason": LOST_REASON}
    return ending_event(turn_id, events, "turn.done", fields)


@dataclass
class RecoveryReport:
    """What a recovery pass did."""

    ended: list[str] = field(default_factory=list)  # turns ended `interrupted`
    saved: list[str] = field(default_factory=list)  # turns whose message was saved now
    failed: list[str] = field(default_factory=list)  # saving failed (tried again next pass)


def recover_turns(deps: TurnDeps) -> RecoveryReport:
    """One pass over the run store (see the module docstring)."""
    return _pass(deps, deps.run_store.turn_ids(), skip=None)


def recover_before(deps: TurnDeps, turn_id: str) -> RecoveryReport:
    """The pass a turn's save step makes first: every other unsettled turn, oldest accepted
    first, so a crashed turn's message is committed before this one's. Never raises (the
    current message must be saved whatever happened to the earlier ones)."""
    try:
        mark_accepted(deps, turn_id)
        known = _settled_here(deps)
        ids = [t for t in deps.run_store.turn_ids() if t != turn_id and t not in known]
        return _pass(deps, ids, skip=turn_id)
    except Exception as exc:
        deps.log.error("recovery before turn %s failed", turn_id, exc_info=exc, extra={"turn_id": turn_id})
        return RecoveryReport()


def mark_accepted(deps: TurnDeps, turn_id: str) -> None:
    """Record when the turn's save first ran and the deadline after which it counts as dead."""
    if deps.run_store.get(turn_id, ACCEPTED_KEY) is None:
        now = deps.clock.now()
        deps.run_store.put(turn_id, DEADLINE_KEY, iso(now + deps.turn_timeout))
        deps.run_store.put(turn_id, ACCEPTED_KEY, iso(now))


def _pass(deps: TurnDeps, turn_ids: list[str], skip: str | None) -> RecoveryReport:
    report = RecoveryReport()
    known = _settled_here(deps)
    pending = []
    for turn_id in turn_ids:
        if turn_id == skip or turn_id in known:
            continue
        if deps.run_store.get(turn_id, SETTLED_KEY) is True:
            known.add(turn_id)
            continue
        pending.append(turn_id)
    for turn_id in sorted(pending, key=lambda t: (_accepted(deps, t), t)):
        try:
            if _recover(deps, turn_id, report):
                _settle(deps, turn_id, known)
        except Exception as exc:  # one broken run (unreadable files) must not stop the others
            deps.log.error(
                "recovery: could not recover turn %s", turn_id, exc_info=exc, extra={"turn_id": turn_id}
            )
            report.failed.append(turn_id)
    return report


def _recover(deps: TurnDeps, turn_id: str, report: RecoveryReport) -> bool:
    """Recover one turn; whether it is settled now (nothing will ever need doing for it)."""
    request = deps.run_store.get(turn_id, REQUEST_KEY)
    if not isinstance(request, dict):
        return False  # not a turn (the slice-level entries) or not accepted yet: look again later
    events = deps.run_store.events(turn_id)
    if status_of(events) == "running":
        if not _dead(deps, turn_id):
            return False
        deps.run_store.append(turn_id, [interrupted_ending(turn_id, events)])
        report.ended.append(turn_id)
    if any(e["type"] == "turn.started" for e in events) or saved_record(deps, turn_id):
        return True
    # The next pass tries again if this fails (the error is logged by the caller).
    commit_user_message(deps, turn_id)
    report.saved.append(turn_id)
    return True


def _dead(deps: TurnDeps, turn_id: str) -> bool:
    """Whether a `running` turn will never end by itself: its process is gone, or — when no
    process can be asked — its deadline passed."""
    alive = process_alive(deps.run_store.get(turn_id, OWNER_KEY))
    if alive is not None:
        return not alive
    deadline = _instant(deps.run_store.get(turn_id, DEADLINE_KEY))
    return deadline is not None and deps.clock.now() > deadline


def _accepted(deps: TurnDeps, turn_id: str) -> str:
    value = deps.run_store.get(turn_id, ACCEPTED_KEY)
    return value if isinstance(value, str) else ""


def _instant(value: Any) -> datetime | None:
    try:
        return parse_iso(value) if isinstance(value, str) else None
    except ValueError:
        return None


def _settle(deps: TurnDeps, turn_id: str, known: set[str]) -> None:
    deps.run_store.put(turn_id, SETTLED_KEY, True)
    known.add(turn_id)


# Settled turns this process has seen, per run store (by identity, dropped with the store):
# the pass before a turn skips them without a read.
_SETTLED: dict[int, set[str]] = {}
_SETTLED_LOCK = threading.Lock()


def _settled_here(deps: TurnDeps) -> set[str]:
    key = id(deps.run_store)
    with _SETTLED_LOCK:
        if key not in _SETTLED:
            try:
                weakref.finalize(deps.run_store, _SETTLED.pop, key, None)
            except TypeError:  # a run store that cannot be weakly referenced: no process memory
                return set()
            _SETTLED[key] = set()
        return _SETTLED[key]
