"""The FastAPI application: `create_app(deps)` wires routers, the request guard, auth, errors and limits.

The same app runs under uvicorn (`previously serve`, with the web UI at `/`) and behind Mangum
on Lambda (functions/handlers/api.py). Every route is described by the OpenAPI schema at
`/openapi.json` (browsable at `/docs`), shown only to signed-in callers when sign-in is required.
"""

from __future__ import annotations

import importlib.metadata
from pathlib import Path

from fastapi import FastAPI
from fastapi.middleware.cors import CORSMiddleware

from functions.api import (
    errors,
    routes_auth,
    routes_card,
    routes_demo,
    routes_evolution,
    routes_import,
    routes_memory,
    routes_settings,
    routes_slices,
    routes_turns,
    routes_ws,
    site,
)
from functions.api.guard import GuardMiddleware
from functions.api.limits import BodyLimit, Preflight, SecurityHeaders
from functions.api.schemas import ErrorBody
from functions.compose.deps import Deps
from functions.mcp import http as mcp_http

MAX_BODY_BYTES = 2 * 1024 * 1024
MAX_TURN_BODY_BYTES = 5 * 1024 * 1024  # a message may carry pictures (base64, core/media/images.py)


def version() -> str:
    """The installed package version."""
    try:
        return importlib.metadata.version("previously")
    except importlib.metadata.PackageNotFoundError:
        return "0.0.0"


def _describe(app: FastAPI) -> None:
    """`/openapi.json`, `/docs` and `/redoc`, behind the same sign-in as the data routes."""
    from fastapi import Depends
    from fastapi.openapi.docs import get_redoc_html, get_swagger_ui_html
    from fastapi.responses import HTMLResponse, JSONResponse

    from functions.api.common import authenticate

    guarded = [Depends(authenticate)]

    @app.get("/openapi.json", include_in_schema=False, dependencies=guarded)
    def openapi() -> JSONResponse:
        return JSONResponse(app.openapi())

    @app.get("/docs", include_in_schema=False, dependencies=guarded)
    def docs() -> HTMLResponse:
        return get_swagger_ui_html(openapi_url="/openapi.json", title="Previously — API")

    @app.get("/redoc", include_in_schema=False, dependencies=guarded)
    def redoc() -> HTMLResponse:
        return get_redoc_html(openapi_url="/openapi.json", title="Previously — API")


def create_app(deps: Deps, *, web_dir: Path | None = None, lifespan: object = None) -> FastAPI:
    """The API over `deps`; `web_dir` serves the static UI at `/` (local server only)."""
    app = FastAPI(
        title="Previously",
        version=version(),
        description="A personal AI agent with episodic memory. See docs/API.md.",
        responses={"4XX": {"model": ErrorBody, "description": "Refused; `message` says what to change"}},
        lifespan=lifespan,  # type: ignore[arg-type]
        docs_url=None,
        redoc_url=None,
        openapi_url=None,
    )
    app.state.deps = deps
    errors.install(app)
    _describe(app)
    routers = (
        routes_auth,
        routes_turns,
        routes_memory,
        routes_slices,
        routes_card,
        routes_settings,
        routes_import,
        routes_evolution,
        routes_demo,
    )
    for module in routers:
        app.include_router(module.router)
    app.include_router(routes_ws.router)
    mcp_http.mount(app, deps, version())
    site.mount(app, web_dir)
    app.add_middleware(Preflight, routes=app.router.routes)
    visitors = deps.visitors
    seconds = None if visitors is None else int(visitors.lifetime.total_seconds())
    app.add_middleware(GuardMiddleware, guard=deps.security.request_guard, visitor_seconds=seconds)
    app.add_middleware(SecurityHeaders)
    if deps.security.cors_origins:
        app.add_middleware(
            CORSMiddleware,
            allow_origins=list(deps.security.cors_origins),
            allow_credentials=False,
            allow_methods=["GET", "POST", "PATCH", "DELETE"],
            allow_headers=["content-type", "x-access-key"],
        )
    app.add_middleware(
        BodyLimit,
        max_bytes=MAX_BODY_BYTES,
        streamed={"/api/import/": routes_import.MAX_UPLOAD_BYTES},
        larger={"/api/turns": MAX_TURN_BODY_BYTES},
    )
    return app
