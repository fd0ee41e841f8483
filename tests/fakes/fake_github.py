"""A fake GitHub REST server for the Git Data API calls the GitHub backend makes.

A stdlib `ThreadingHTTPServer` on a free port, backed by a real bare git repository
(`fake_git.BareRepo`), so the real PyGithub code path runs and a test can inspect real git
history afterwards. It checks the token, answers 404 for any other repository, refuses
non-fast-forward ref updates with GitHub's 422, counts requests (per route) and bytes, keeps
a primary rate budget (`X-RateLimit-*` headers, 403 once spent, 304s free), answers conditional
requests with ETags, redirects `/tarball/{ref}` to a codeload-like archive URL, and can inject
faults (5xx, rate limits, slow answers) and a concurrent writer just before the next ref update.
"""

from __future__ import annotations

import contextlib
import json
import random
import re
import secrets
import threading
import time
from collections import Counter, deque
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from core.storage.github import GitHubStorage
from core.storage.github_errors import GitHubRetry
from tests.fakes.fake_git import TREE_MODE, BareRepo, CommitInfo, FileChange, GitDataError
from tests.fakes.fake_github_archive import tarball
from tests.fakes.fake_github_limits import RateBudget, exceeded_message
from tests.fakes.fake_github_routes import ROUTES, Handler, Response


@dataclass
class Fault:
    """What the next matching request gets instead of its answer."""

    kind: str  # "500" | "502" | "403" | "rate_limit" | "secondary" | "429" | "delay"
    route: str | None = None
    retry_after: int | None = None
    reset_in: int = 3600
    delay: float = 0.0


class FakeGitHub:
    """One repository `owner/name` served over HTTP; use as a context manager or the fixture."""

    def __init__(
        self,
        path: Path,
        *,
        owner: str = "octo",
        name: str = "memory",
        branch: str = "main",
        token: str = "test-token",
        seed: Mapping[str, str] | None = None,
    ) -> None:
        self.owner, self.name, self.token = owner, name, token
        self.git = BareRepo(path, branch)
        self.counts: Counter[str] = Counter()
        self.requests: list[str] = []
        self.server_seconds = 0.0  # time spent answering, so benchmarks can report the client's share
        self.bytes_sent = 0  # response payloads, so benchmarks can report bytes per operation
        self.bytes_received = 0  # request bodies (uploads)
        self.transfers: list[tuple[str, int, int]] = []  # (request, bytes sent, bytes received)
        self.budget = RateBudget()
        self._archives: dict[str, bytes] = {}
        self._archive_token = secrets.token_hex(8)
        self.truncate_over: int | None = None
        self.echoing: str | None = None  # `echo_credentials`
        self._faults: deque[Fault] = deque()
        self._races: deque[Callable[[FakeGitHub], None]] = deque()
        self._sizes: dict[str, int] = {}
        self._meta = threading.Lock()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        if seed is None:
            seed = {"README.md": "# memory\n"}
        if seed:
            self.git.commit_files(dict(seed), "Initial commit")

    # ---------------------------------------------------------------- lifecycle

    def start(self) -> FakeGitHub:
        """Serve on a free port in a background thread."""
        handler = type("BoundHandler", (_Handler,), {"fake": self})
        self._server = _QuietServer(("127.0.0.1", 0), handler)
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.05,), daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving (open connections are dropped)."""
        if self._server:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> FakeGitHub:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def url(self) -> str:
        assert self._server, "the fake is not running"
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    @property
    def repo_url(self) -> str:
        return f"{self.url}/repos/{self.owner}/{self.name}"

    def client(self, **kwargs: Any) -> GitHubStorage:
        """A GitHubStorage pointed at this fake; never sleeps unless given a retry that does."""
        kwargs.setdefault("retry", GitHubRetry(sleep=lambda s: None, rng=random.Random(7)))
        kwargs.setdefault("api_url", self.url)
        return GitHubStorage(
            kwargs.pop("repo", f"{self.owner}/{self.name}"), kwargs.pop("token", self.token), **kwargs
        )

    # ---------------------------------------------------------------- test controls

    def fail_next(self, n: int = 1, kind: str = "500", **options: Any) -> None:
        """The next `n` requests (matching `route=`, e.g. "PATCH /git/refs/heads/{b}") fail."""
        with self._meta:
            self._faults.extend(Fault(kind, **options) for _ in range(n))

    def echo_credentials(self, answer: str | None) -> None:
        """From now on every request fails with `answer` ("401", "403", "429", "500", or "garbage":
        a 200 that is not JSON), its body repeating the request's credentials as a careless proxy
        or gateway would; None serves normally again."""
        self.echoing = answer

    def race_next_patch(self, fn: Callable[[FakeGitHub], None], times: int = 1) -> None:
        """Run `fn(fake)` (typically `commit_files`) just before each of the next ref updates."""
        with self._meta:
            self._races.extend([fn] * times)

    def reset_counts(self) -> None:
        with self._meta:
            self.counts.clear()
            self.requests.clear()
            self.server_seconds = 0.0
            self.bytes_sent = self.bytes_received = 0
            self.transfers.clear()

    def sent(self, nbytes: int, received: int = 0, request: str = "") -> None:
        with self._meta:
            self.bytes_sent += nbytes
            self.bytes_received += received
            self.transfers.append((request, nbytes, received))

    def codeload_url(self, sha: str) -> str:
        """Where `/tarball/{ref}` redirects: a download URL carrying its own short-lived token."""
        return (
            f"{self.url}/_codeload/{self.owner}/{self.name}/legacy.tar.gz/{sha}?token={self._archive_token}"
        )

    def commit_files(self, changes: Mapping[str, FileChange], message: str = "Concurrent commit") -> str:
        """Commit on the branch directly, as another writer would."""
        return self.git.commit_files(changes, message)

    def read_bytes(self, path: str, ref: str | None = None) -> bytes | None:
        """A file's exact bytes on the branch (or at `ref`), as git holds them."""
        return self.git.read_bytes(path, ref)

    def read(self, path: str, ref: str | None = None) -> str | None:
        return self.git.read(path, ref)

    def files(self, ref: str | None = None) -> dict[str, str]:
        return self.git.files(ref)

    def log(self) -> list[CommitInfo]:
        return self.git.log()

    def head(self) -> str | None:
        return self.git.head()

    # ---------------------------------------------------------------- dispatch

    def handle(self, method: str, raw: str, headers: dict[str, str], body: bytes) -> Response:
        """Answer one request: count it, check the token and repository, apply faults, route it."""
        start = time.perf_counter()
        try:
            return self._handle(method, raw, headers, body)
        finally:
            with self._meta:
                self.server_seconds += time.perf_counter() - start

    def _handle(self, method: str, raw: str, headers: dict[str, str], body: bytes) -> Response:
        split = urlsplit(raw)
        if self.echoing:
            return _echo_response(self.echoing, method, raw, headers)
        if split.path.startswith("/_codeload/"):
            return self._codeload(split.path, parse_qs(split.query))
        m = re.match(r"^/repos/([^/]+)/([^/]+)(/.*)?$", split.path)
        rest = (m.group(3) or "") if m else split.path
        route, handler, params = _route(method, rest) if m else ("unknown", None, {})
        with self._meta:
            self.counts[route] += 1
            self.requests.append(f"{method} {split.path}")
        auth = headers.get("authorization", "")
        if auth not in (f"token {self.token}", f"Bearer {self.token}"):
            return Response(
                401, {"message": "Bad credentials", "documentation_url": "https://docs.github.com"}
            )
        if self.budget.spent():
            return Response(403, {"message": exceeded_message()}, self.budget.headers())
        resp = self._answer(method, rest, split.query, route, handler, params, m, headers, body)
        self.budget.charge(resp.status)
        resp.headers.update({k: v for k, v in self.budget.headers().items() if k not in resp.headers})
        return resp

    def _answer(
        self,
        method: str,
        rest: str,
        query: str,
        route: str,
        handler: Handler | None,
        params: dict[str, str],
        m: re.Match[str] | None,
        headers: dict[str, str],
        body: bytes,
    ) -> Response:
        if not m or (m.group(1), m.group(2)) != (self.owner, self.name) or handler is None:
            return Response(404, {"message": "Not Found"})
        fault = self._take_fault(route)
        if fault and fault.kind != "delay":
            return _fault_response(fault)
        if fault:
            time.sleep(fault.delay)
        if rest.startswith("/git/") and not self.git.repo.refs.allkeys() - {b"HEAD"}:
            return Response(409, {"message": "Git Repository is empty."})
        try:
            data = json.loads(body) if body else None
            return handler(self, params, parse_qs(query), data, headers)
        except json.JSONDecodeError:
            return Response(400, {"message": "Problems parsing JSON"})
        except GitDataError as exc:
            return Response(404 if exc.missing else 422, {"message": str(exc)})

    def _codeload(self, path: str, query: dict[str, list[str]]) -> Response:
        """The archive download: no API budget is spent, the URL's token is the credential."""
        with self._meta:
            self.counts["GET codeload"] += 1
            self.requests.append(f"GET {path}")
        m = re.match(r"^/_codeload/([^/]+)/([^/]+)/legacy\.tar\.gz/([0-9a-f]{40})$", path)
        if not m or query.get("token") != [self._archive_token] or (m[1], m[2]) != (self.owner, self.name):
            return Response(404, {"message": "Not Found"})
        sha = m[3]
        if sha not in self._archives:
            self._archives[sha] = tarball(self.git, self.owner, self.name, sha)
        return Response(200, self._archives[sha], {"Content-Type": "application/x-gzip"})

    def _take_fault(self, route: str) -> Fault | None:
        with self._meta:
            for i, fault in enumerate(self._faults):
                if fault.route in (None, route):
                    del self._faults[i]
                    return fault
        return None

    def pop_race(self) -> Callable[[FakeGitHub], None] | None:
        with self._meta:
            return self._races.popleft() if self._races else None

    # ---------------------------------------------------------------- JSON shapes

    def blob_size(self, sha: str) -> int:
        if sha not in self._sizes:
            obj = self.git.get(sha)
            self._sizes[sha] = obj.raw_length() if obj is not None else 0
        return self._sizes[sha]

    def entry_json(self, path: str, mode: int, sha: str) -> dict[str, Any]:
        kind = "tree" if mode == TREE_MODE else "commit" if mode == 0o160000 else "blob"
        out: dict[str, Any] = {"path": path, "mode": f"{mode:06o}", "type": kind, "sha": sha}
        if kind == "blob":
            out["size"] = self.blob_size(sha)
            out["url"] = f"{self.repo_url}/git/blobs/{sha}"
        elif kind == "tree":
            out["url"] = f"{self.repo_url}/git/trees/{sha}"
        return out

    def tree_json(self, sha: str, entries: list[tuple[str, int, str]], truncated: bool) -> dict[str, Any]:
        return {
            "sha": sha,
            "url": f"{self.repo_url}/git/trees/{sha}",
            "tree": [self.entry_json(*e) for e in entries],
            "truncated": truncated,
        }

    def commit_json(self, sha: str) -> dict[str, Any]:
        info = self.git.get(sha)
        assert info is not None
        when = datetime.fromtimestamp(info.commit_time, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")  # type: ignore[attr-defined]
        person = {"name": "Fake GitHub", "email": "noreply@fake-github.test", "date": when}
        return {
            "sha": sha,
            "node_id": f"C_{sha[:12]}",
            "url": f"{self.repo_url}/git/commits/{sha}",
            "html_url": f"{self.url}/{self.owner}/{self.name}/commit/{sha}",
            "author": person,
            "committer": person,
            "message": info.message.decode("utf-8"),  # type: ignore[attr-defined]
            "tree": {"sha": info.tree.decode(), "url": f"{self.repo_url}/git/trees/{info.tree.decode()}"},  # type: ignore[attr-defined]
            "parents": [
                {"sha": p.decode(), "url": f"{self.repo_url}/git/commits/{p.decode()}"}
                for p in info.parents  # type: ignore[attr-defined]
            ],
        }

    def ref_json(self, branch: str, sha: str) -> dict[str, Any]:
        return {
            "ref": f"refs/heads/{branch}",
            "node_id": f"REF_{branch}",
            "url": f"{self.repo_url}/git/refs/heads/{branch}",
            "object": {"type": "commit", "sha": sha, "url": f"{self.repo_url}/git/commits/{sha}"},
        }


def _fault_response(fault: Fault) -> Response:
    if fault.kind in ("500", "502"):
        return Response(int(fault.kind), {"message": "Server Error"})
    if fault.kind == "403":
        return Response(403, {"message": "Resource not accessible by personal access token"})
    headers: dict[str, str] = {}
    if fault.retry_after is not None:
        headers["Retry-After"] = str(fault.retry_after)
    if fault.kind == "rate_limit":
        headers.update(
            {
                "X-RateLimit-Limit": "5000",
                "X-RateLimit-Remaining": "0",
                "X-RateLimit-Used": "5000",
                "X-RateLimit-Reset": str(int(time.time()) + fault.reset_in),
                "X-RateLimit-Resource": "core",
            }
        )
        return Response(403, {"message": "API rate limit exceeded for user ID 1."}, headers)
    if fault.kind == "secondary":
        message = "You have exceeded a secondary rate limit. Please wait a few minutes before you try again."
        return Response(403, {"message": message}, headers)
    if fault.kind == "429":
        headers.setdefault("Retry-After", "1")
        return Response(429, {"message": "Too many requests"}, headers)
    raise ValueError(f"unknown fault kind {fault.kind}")


def _echo_response(answer: str, method: str, raw: str, headers: dict[str, str]) -> Response:
    said = f"{method} {raw} with Authorization: {headers.get('authorization', '')}"
    if answer == "garbage":
        return Response(200, f"<html><body>upstream said: {said}".encode(), {"Content-Type": "text/html"})
    return Response(int(answer), {"message": f"Request refused: {said}", "request": headers})


def _route(method: str, rest: str) -> tuple[str, Handler | None, dict[str, str]]:
    for verb, pattern, name, handler in ROUTES:
        match = pattern.match(rest)
        if verb == method and match:
            return name, handler, match.groupdict()
    return f"{method} {rest or '/'} (unsupported)", None, {}


class _QuietServer(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that timed out and hung up is expected in fault tests; stay quiet."""


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body go out as separate writes
    fake: FakeGitHub

    def _serve(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        headers = {k.lower(): v for k, v in self.headers.items()}
        resp = self.fake.handle(self.command, self.path, headers, body)
        if isinstance(resp.body, bytes):
            payload = resp.body
        else:
            payload = b"" if resp.body is None else json.dumps(resp.body).encode("utf-8")
        self.fake.sent(len(payload), len(body), f"{self.command} {self.path}")
        self.send_response(resp.status)
        resp.headers.setdefault("Content-Type", "application/json; charset=utf-8")
        for key, value in resp.headers.items():
            self.send_header(key, value)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            self.wfile.write(payload)

    do_GET = do_POST = do_PATCH = do_DELETE = _serve

    def log_message(self, format: str, *args: Any) -> None:
        """No access log on the test output."""


@pytest.fixture
def fake_github(tmp_path: Path) -> Iterator[FakeGitHub]:
    """A running fake GitHub with `octo/memory` on `main` holding one README commit."""
    with FakeGitHub(tmp_path / "fake-github.git") as fake:
        yield fake
