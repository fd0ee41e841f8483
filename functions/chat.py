"""The scripted client behind `previously chat --url`: send one message, print the reply as it streams.

It posts the message (`POST /api/turns`) and long-polls `GET /api/turns/{id}?after=N&wait=…`,
which works the same against the local server and on AWS. The events are printed by
`functions/turn_printer.py` (`Streams`): step and tool labels to stderr, the reply to stdout.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol, TextIO

from core.reltime import zone
from functions.turn_printer import Streams, TurnPrinter

POLL_WAIT = 20.0


class ChatError(Exception):
    """The turn could not be sent or followed; the message says why."""


class TurnClient(Protocol):
    """Start a turn and read it back (the API's `TurnView` shape)."""

    def start(self, body: dict[str, Any]) -> str: ...

    def poll(self, turn_id: str, after: int, wait: float) -> dict[str, Any]: ...


def local_timezone() -> str:
    """This machine's IANA zone ($TZ, else /etc/localtime's target), else UTC."""
    candidates = [os.environ.get("TZ", "").lstrip(":")]
    link = Path("/etc/localtime")
    if link.is_symlink():
        target = str(link.resolve())
        candidates.append(target.split("zoneinfo/", 1)[-1] if "zoneinfo/" in target else "")
    for name in candidates:
        found = zone(name) if name else None
        if found is not None:
            return found.key
    return "UTC"


class HttpTurnClient:
    """The API over HTTP with the access key."""

    def __init__(self, url: str, key: str | None, timeout: float = POLL_WAIT + 15) -> None:
        import httpx

        headers = {"x-access-key": key} if key else {}
        self._sent_key = bool(key)
        self._http = httpx.Client(base_url=url.rstrip("/"), headers=headers, timeout=timeout)
        self._errors = (httpx.HTTPError,)

    def _call(self, method: str, path: str, **kwargs: Any) -> dict[str, Any]:
        try:
            r = self._http.request(method, path, **kwargs)
        except self._errors as exc:
            raise ChatError(f"Could not reach {self._http.base_url}: {exc}") from exc
        try:
            data = r.json()
        except ValueError:
            data = {}
        if r.status_code == 401 and self._sent_key:  # the server's text speaks to browsers; this is the CLI
            raise ChatError("the key was refused (401): check --key or PREVIOUSLY_ACCESS_KEY")
        if r.status_code == 401:
            raise ChatError("401: the server wants its access key: pass --key or set PREVIOUSLY_ACCESS_KEY")
        if r.status_code >= 400:
            message = data.get("message") if isinstance(data, dict) else None
            raise ChatError(f"{r.status_code}: {message or r.reason_phrase}")
        return data if isinstance(data, dict) else {}

    def start(self, body: dict[str, Any]) -> str:
        return str(self._call("POST", "/api/turns", json=body)["turn_id"])

    def poll(self, turn_id: str, after: int, wait: float) -> dict[str, Any]:
        return self._call("GET", f"/api/turns/{turn_id}", params={"after": after, "wait": wait})


def follow(client: TurnClient, turn_id: str, on_event: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
    """Poll until the turn ends, handing every event over once, in order; returns the last view."""
    after = 0
    while True:
        view = client.poll(turn_id, after, POLL_WAIT)
        for e in view.get("events", []):
            if e["seq"] > after:
                after = e["seq"]
                on_event(e)
        if view.get("status") != "running":
            return view


def model_calls(events: list[dict[str, Any]]) -> dict[str, int]:
    """How many model requests a turn made, from its `model.call` events (total and per role)."""
    roles = [str(e.get("role")) for e in events if e.get("type") == "model.call"]
    return {"count": len(roles), "main": roles.count("main"), "worker": roles.count("worker")}


def chat(
    client: TurnClient,
    message: str,
    timezone: str,
    out: TextIO,
    err: TextIO,
    as_json: bool,
    model: str | None = None,
    attachments: list[dict[str, str]] | None = None,
) -> int:
    """Send `message` (with `attachments`: {name, data base64}), stream (or, with `as_json`,
    collect) the reply; 0 when the turn ended well."""
    body: dict[str, Any] = {"message": message, "timezone": timezone, **({"model": model} if model else {})}
    if attachments:
        body["attachments"] = attachments
    turn_id = client.start(body)
    printer = TurnPrinter(Streams(out, err))
    final = follow(client, turn_id, (lambda e: None) if as_json else printer.event)
    if as_json:
        full = client.poll(turn_id, 0, 0)
        events = full.get("events", [])
        error = next((e for e in reversed(events) if e.get("type") == "turn.error"), None)
        # The in-process `chat --json` fields, then the events (only a server keeps them for us).
        shaped = {
            "turn_id": turn_id,
            "status": full.get("status"),
            "slice_id": full.get("slice_id"),
            "reply": full.get("reply"),
            "error": {"code": error.get("code"), "message": error.get("message")} if error else None,
            "model_calls": model_calls(events),
            "events": events,
        }
        out.write(json.dumps(shaped, ensure_ascii=False, indent=2) + "\n")
    else:
        printer.finish()
    return 0 if final.get("status") in ("done", "interrupted") else 1
