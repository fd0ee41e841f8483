"""The static side of the local server: the web UI at `/` and the sign-in page at `/sign-in`.

What it serves is compressed (`compress`: gzip for text; pictures, fonts, zips and streams as
they are) and says how long a browser may keep it (`cache_control`): a file whose name carries
its content hash never changes, so it is kept a year; everything else, the pages and the service
worker first, is revalidated on every load (`no-cache`: a 304 when the ETag still matches).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from fastapi import FastAPI
from fastapi.responses import FileResponse, HTMLResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.middleware.gzip import DEFAULT_EXCLUDED_CONTENT_TYPES, GZipMiddleware
from starlette.types import Scope

from functions.api.pages import NO_UI_HTML, SIGN_IN_HTML

IMMUTABLE = "public, max-age=31536000, immutable"
REVALIDATE = "no-cache"
# `name.3f9a1c2e.js`, `chunk-3f9a1c2e5b.css`: a content hash of eight or more hex digits.
_HASHED = re.compile(r"[.-][0-9a-f]{8,}\.[A-Za-z0-9]+$")
# Already compressed (pictures, fonts, archives) or streamed a line at a time (the MCP event
# stream, import progress): sent as they are. The turn's events travel on the WebSocket, which
# the middleware never touches.
UNCOMPRESSED = (
    *DEFAULT_EXCLUDED_CONTENT_TYPES,
    "font/*",
    "application/octet-stream",
    "application/pdf",
    "application/x-ndjson",
)
MIN_COMPRESSED_BYTES = 500
COMPRESS_LEVEL = 6  # nearly level 9's size at a fraction of its time


def cache_control(path: str) -> str:
    """The Cache-Control of a static file by its path under web/."""
    return IMMUTABLE if _HASHED.search(path.rsplit("/", 1)[-1]) else REVALIDATE


class _CachedFiles(StaticFiles):
    def file_response(
        self,
        full_path: str | os.PathLike[str],
        stat_result: os.stat_result,
        scope: Scope,
        status_code: int = 200,
    ) -> Response:
        response = super().file_response(full_path, stat_result, scope, status_code)
        response.headers["Cache-Control"] = cache_control(Path(full_path).name)
        return response


def compress(app: FastAPI) -> None:
    """gzip every text response a client accepts it for (pages, scripts, styles, JSON)."""
    app.add_middleware(
        GZipMiddleware,
        minimum_size=MIN_COMPRESSED_BYTES,
        compresslevel=COMPRESS_LEVEL,
        exclude_content_types=UNCOMPRESSED,
    )


def mount(app: FastAPI, web_dir: Path | None) -> None:
    """Serve `/sign-in` always, and `web_dir` at `/` when given (the UI's own sign-in page wins)."""
    page = web_dir / "sign-in.html" if web_dir else None

    @app.get("/sign-in", include_in_schema=False)
    def sign_in_page() -> Response:
        headers = {"Cache-Control": REVALIDATE}
        if page is not None and page.is_file():
            return FileResponse(page, media_type="text/html", headers=headers)
        return HTMLResponse(SIGN_IN_HTML, headers=headers)

    if web_dir is None:
        return
    if not (web_dir / "index.html").is_file():

        @app.get("/", include_in_schema=False)
        def no_ui() -> HTMLResponse:
            return HTMLResponse(NO_UI_HTML)

    if web_dir.is_dir():
        app.mount("/", _CachedFiles(directory=web_dir, html=True), name="web")
