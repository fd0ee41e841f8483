"""Lambda entry of the HTTP API: the FastAPI app behind Mangum (API Gateway HTTP API, payload v2).

Imports no model SDK: the API lists models and starts turns, the step functions call the models.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from functions.compose import aws as compose
from functions.handlers.snapshot import API_MODULES, preload

preload(*API_MODULES)


def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    """One API Gateway request → one response."""
    response: dict[str, Any] = _adapter(compose.secret_key())(event, context)
    return response


@lru_cache(maxsize=1)
def _adapter(key: compose.SecretKey) -> Any:
    from mangum import Mangum

    from functions.api import site
    from functions.api.app import create_app

    app = create_app(compose.api_deps(key))
    # CloudFront does not compress what it does not cache (the API's behaviours use CachingDisabled,
    # which forwards the viewer's Accept-Encoding): the function compresses, as the local server
    # does, and Mangum sends the gzip bytes base64-encoded.
    site.compress(app)
    return Mangum(app, lifespan="off")
