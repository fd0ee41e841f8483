"""The turn WebSocket's client messages, parsed one way for the local server and API Gateway."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field, TypeAdapter, ValidationError

from functions.api.schemas import WsCancel, WsFollow, WsStart

MAX_MESSAGE_CHARS = 1_000_000
WsAction = WsStart | WsFollow | WsCancel
_actions: TypeAdapter[WsAction] = TypeAdapter(Annotated[WsAction, Field(discriminator="action")])


class WsRefusal(Exception):
    """A client message the server will not act on; `code` and the text go back to the client."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


def parse_action(text: str) -> WsAction:
    """The action in one client message, or WsRefusal saying what is wrong with it."""
    if len(text) > MAX_MESSAGE_CHARS:
        raise WsRefusal("too_large", f"Messages are limited to {MAX_MESSAGE_CHARS} characters.")
    try:
        return _actions.validate_json(text)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise WsRefusal("invalid_request", f"Invalid message: {where} {first['msg']}".strip() + ".") from exc
