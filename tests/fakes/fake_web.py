"""A local web for the web tools: a page server on loopback that also answers like SearXNG and Brave.

    web = FakeWeb().start()
    web.url("/article")            # http://127.0.0.1:<port>/article
    web.searx_url                   # SEARXNG_URL for this server
    web.results["tea"] = [("Title", "https://…", "snippet")]

Routes: `/article` (an HTML article), `/plain.txt`, `/redirect?to=<url>` (302), `/loop` (redirects
to itself), `/big` (larger than any cap a test sets), `/photo.png` (not text), `/missing` (404),
`/search?q=&format=json` (SearXNG), `/brave?q=` (Brave; needs the `X-Subscription-Token` header).
Every request is recorded (path and Host header). Loopback is refused by webFetch unless the test
lists 127.0.0.1 in the guard's allowed hosts, as PREVIOUSLY_FETCH_ALLOW_HOSTS would.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

ARTICLE = """<!doctype html><html><head><title>Growing Tomatoes on a Balcony</title>
<style>body{font:serif}</style><script>track()</script></head><body>
<nav><a href="/">Home</a> · <a href="/about">About</a></nav>
<article><h1>Growing Tomatoes on a Balcony</h1>
<p>Cherry tomatoes need six hours of direct sun a day and a pot of at least twenty litres.</p>
<p>Water them deeply in the morning, and feed them every two weeks once the first flowers open.</p>
<p>Pinch out the side shoots of cordon varieties; bush varieties can be left alone.</p>
</article><footer>© Balcony Gardens</footer></body></html>"""
BRAVE_KEY = "brave-test-key"
BIG_BYTES = 3_000_000


@dataclass
class FakeWeb:
    """The server; `results` maps a query to (title, url, snippet) triples for both search APIs."""

    results: dict[str, list[tuple[str, str, str]]] = field(default_factory=dict)
    requests: list[dict[str, str]] = field(default_factory=list)
    _server: ThreadingHTTPServer | None = None

    def start(self) -> FakeWeb:
        handler = type("Handler", (_Handler,), {"web": self})
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()

    @property
    def port(self) -> int:
        assert self._server is not None
        return int(self._server.server_address[1])

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    @property
    def searx_url(self) -> str:
        return self.url("")

    @property
    def brave_url(self) -> str:
        return self.url("/brave")


class _Handler(BaseHTTPRequestHandler):
    web: FakeWeb

    def log_message(self, *_: Any) -> None:
        return None

    def _send(self, status: int, body: bytes, kind: str = "text/html; charset=utf-8", **headers: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        for name, value in headers.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:
        parts = urlsplit(self.path)
        query = {k: v[0] for k, v in parse_qs(parts.query).items()}
        self.web.requests.append({"path": parts.path, "host": self.headers.get("Host", "")})
        route = parts.path
        if route == "/article":
            self._send(200, ARTICLE.encode())
        elif route == "/plain.txt":
            self._send(200, b"line one\nline two\n\nline four", "text/plain; charset=utf-8")
        elif route == "/redirect":
            self._send(302, b"", Location=query.get("to", "/article"))
        elif route == "/loop":
            self._send(302, b"", Location="/loop")
        elif route == "/big":
            self._send(200, b"<p>" + b"x" * BIG_BYTES + b"</p>")
        elif route == "/photo.png":
            self._send(200, b"\x89PNG\r\n\x1a\n", "image/png")
        elif route == "/search" and query.get("format") == "json":
            rows = self.web.results.get(query.get("q", ""), [])
            body = {"results": [{"title": t, "url": u, "content": s} for t, u, s in rows]}
            self._send(200, json.dumps(body).encode(), "application/json")
        elif route == "/brave":
            if self.headers.get("X-Subscription-Token") != BRAVE_KEY:
                self._send(401, b'{"error":"bad key"}', "application/json")
                return
            rows = self.web.results.get(query.get("q", ""), [])
            body = {"web": {"results": [{"title": t, "url": u, "description": s} for t, u, s in rows]}}
            self._send(200, json.dumps(body).encode(), "application/json")
        else:
            self._send(404, b"<h1>Not Found</h1>")
