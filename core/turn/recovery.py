"""Recovery: no accepted message is lost and no turn stays `running` after its process died.

Run when the local server starts and at every maintenance pass (locally and on AWS). For each
turn in the run store:

- left `running` by a process that is gone (its owner record names this host and a pid that no
  longer runs) → it ends `turn.done` `interrupted`, with a reason the page shows;
- accepted (its request is recorded) but never saved — it ended, or died, before `turn.started`
  and its user message is not in memory → the message is saved now, with no model call.

A turn that announced `turn.started` had its message in memory then, and is never saved again
(the person may have forgotten that slice since). A turn still running somewhere is left alone.
"""

from __future__ import annotations

import os
import socket
from dataclasses import dataclass, field
from typing import Any

from core.turn.deps import TurnDeps
from core.turn.events import Event, turn_done
from core.turn.runstore import status_of
from core.turn.runtime import REQUEST_KEY, ending_event
from core.turn.steps.save import commit_user_message, saved_record

OWNER_KEY = "owner"
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
    report = RecoveryReport()
    for turn_id in deps.run_store.turn_ids():
        try:
            _recover(deps, turn_id, report)
        except Exception as exc:  # one broken run (unreadable files) must not stop the others
            deps.log.error(
                "recovery: could not recover turn %s", turn_id, exc_info=exc, extra={"turn_id": turn_id}
            )
            report.failed.append(turn_id)
    return report


def _recover(deps: TurnDeps, turn_id: str, report: RecoveryReport) -> None:
    if not isinstance(deps.run_store.get(turn_id, REQUEST_KEY), dict):
        return  # not a turn (the slice-level entries) or never accepted
    events = deps.run_store.events(turn_id)
    if status_of(events) == "running":
        if process_alive(deps.run_store.get(turn_id, OWNER_KEY)) is not False:
            return
        deps.run_store.append(turn_id, [interrupted_ending(turn_id, events)])
        report.ended.append(turn_id)
    if any(e["type"] == "turn.started" for e in events) or saved_record(deps, turn_id):
        return
    # The next pass tries again if this fails (the error is logged by the caller).
    commit_user_message(deps, turn_id)
    report.saved.append(turn_id)
