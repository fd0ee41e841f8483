"""Asking an OpenAI-compatible server which models it has, and saying truthfully what happened.

A listing is a suggestion, never a gate: a server that answers 404 (many gateways and test
servers do) is merely one that "lists no models", and a model named by the user is still tried.
"""

from __future__ import annotations

import json
import socket
import ssl
import urllib.error
import urllib.request
from dataclasses import dataclass
from typing import Literal

from core.llm.presets import OPENAI

ListingState = Literal["listed", "empty", "no_listing", "refused", "unreachable"]


@dataclass(frozen=True)
class Listing:
    """What `GET {base}/models` gave: the ids, or why there are none (`detail` in words)."""

    state: ListingState
    ids: tuple[str, ...] = ()
    detail: str = ""

    def describe(self, base_url: str) -> str:
        """One sentence a person can act on."""
        if self.state == "listed":
            return f"the server at {base_url} lists {len(self.ids)} model(s)"
        if self.state == "unreachable":
            return f"cannot reach {base_url} ({self.detail})"
        if self.state == "refused":
            return f"the server at {base_url} refused the key ({self.detail}): check {OPENAI.env_var}"
        return f"the server at {base_url} lists no models"


def fetch_model_ids(base_url: str, api_key: str, timeout: float) -> list[str]:
    """The ids an OpenAI-compatible server lists at `GET {base}/models` (raises on any failure)."""
    req = urllib.request.Request(
        base_url.rstrip("/") + "/models",
        headers={"Authorization": f"Bearer {api_key}", "Accept": "application/json"},
    )
    with urllib.request.urlopen(req, timeout=timeout) as resp:
        body = json.loads(resp.read().decode("utf-8"))
    if not isinstance(body, dict) or not isinstance(body.get("data", []), list):
        raise ValueError("the answer is not a model list")
    return [str(m["id"]) for m in body.get("data", []) if isinstance(m, dict) and m.get("id")]


def listing_from(ids: list[str]) -> Listing:
    """A successful answer."""
    unique = tuple(dict.fromkeys(ids))
    return Listing("listed" if unique else "empty", unique)


def listing_failure(exc: BaseException) -> Listing:
    """A failed listing, classified: refused key, no listing route, or no server at all."""
    if isinstance(exc, urllib.error.HTTPError):
        if exc.code in (401, 403):
            return Listing("refused", detail=str(exc.code))
        return Listing("no_listing", detail=f"HTTP {exc.code}")
    if isinstance(exc, ValueError):
        return Listing("no_listing", detail="the answer is not a model list")
    return Listing("unreachable", detail=unreachable_reason(exc))


def unreachable_reason(exc: BaseException) -> str:
    """Why a connection failed, in a few plain words ("connection refused")."""
    inner: object = exc
    while isinstance(inner, urllib.error.URLError) and not isinstance(inner, urllib.error.HTTPError):
        inner = inner.reason
    if isinstance(inner, ConnectionRefusedError):
        return "connection refused"
    if isinstance(inner, socket.gaierror):
        return "the host name does not resolve"
    if isinstance(inner, TimeoutError | socket.timeout):
        return "no answer in time"
    if isinstance(inner, ssl.SSLError):
        return f"TLS failed: {inner}"
    text = " ".join(str(inner).split())
    lowered = text.lower()
    for needle, words in (
        ("refused", "connection refused"),
        ("name or service not known", "the host name does not resolve"),
        ("nodename nor servname", "the host name does not resolve"),
        ("timed out", "no answer in time"),
    ):
        if needle in lowered:
            return words
    return text[:200] or type(inner).__name__
