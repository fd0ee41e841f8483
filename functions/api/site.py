"""The static side of the local server: the web UI at `/` and the sign-in page at `/sign-in`."""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI
from fastapi.responses import FileResponse, HTMLResponse, Response
from fastapi.staticfiles import StaticFiles

from functions.api.pages import NO_UI_HTML, SIGN_IN_HTML


def mount(app: FastAPI, web_dir: Path | None) -> None:
    """Serve `/sign-in` always, and `web_dir` at `/` when given (the UI's own sign-in page wins)."""
    page = web_dir / "sign-in.html" if web_dir else None

    @app.get("/sign-in", include_in_schema=False)
    def sign_in_page() -> Response:
        if page is not None and page.is_file():
            return FileResponse(page, media_type="text/html")
        return HTMLResponse(SIGN_IN_HTML)

    if web_dir is None:
        return
    if not (web_dir / "index.html").is_file():

        @app.get("/", include_in_schema=False)
        def no_ui() -> HTMLResponse:
            return HTMLResponse(NO_UI_HTML)

    if web_dir.is_dir():
        app.mount("/", StaticFiles(directory=web_dir, html=True), name="web")
