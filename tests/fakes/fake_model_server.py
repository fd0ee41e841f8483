"""A local model server speaking the OpenAI and Anthropic HTTP APIs, replaying scripted replies.

    fake = FakeModelServer().start()
    fake.enqueue(Reply(text="Hello!", reasoning="The user greets me."))
    # point an SDK at fake.openai_base_url or fake.anthropic_base_url …
    fake.requests[-1].json["messages"]

Replies are served first-in first-out across both wire formats; when the queue is empty the
optional `responder(request)` decides, else the server answers 418 saying nothing was scripted.
Routes: `POST /v1/chat/completions`, `POST /v1/messages`, `GET /v1/models` (OpenAI's shape,
or Anthropic's when the request carries `anthropic-version`; 404 with `list_models=False`, as
many gateways answer). Every chat-completions body is checked against OpenAI's published
`CreateChatCompletionRequest` schema (`validate`, on by default): a body that does not fit is
answered 400 and kept in `schema_errors`, so the test that sent it fails.

Standalone, for manual and browser testing:
    python -m tests.fakes.fake_model_server --port 9999 --script replies.json [--echo]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import socket
import sys
import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from tests.fakes import fake_model_wire as wire
from tests.fakes.fake_model_wire import Reply, ToolCall, Usage
from tests.fakes.openai_schema import request_problems

__all__ = ["FakeModelServer", "RecordedRequest", "Reply", "ToolCall", "Usage", "echo_responder"]


@dataclass
class RecordedRequest:
    """One request as the server saw it."""

    method: str
    path: str
    headers: dict[str, str]
    json: Any = None

    @property
    def wire(self) -> str:
        """`anthropic` for /v1/messages, else `openai`."""
        return "anthropic" if self.path.rstrip("/").endswith("/messages") else "openai"

    @property
    def body(self) -> dict[str, Any]:
        return self.json if isinstance(self.json, dict) else {}

    @property
    def model(self) -> str:
        return str(self.body.get("model", ""))

    @property
    def tool_names(self) -> list[str]:
        tools = self.body.get("tools") or []
        return [t.get("name") or t.get("function", {}).get("name", "") for t in tools]

    @property
    def forced_tool(self) -> str | None:
        """The tool the request obliges the model to call, if it names one."""
        choice = self.body.get("tool_choice")
        if not isinstance(choice, dict):
            return None
        return choice.get("name") or choice.get("function", {}).get("name")

    @property
    def last_user_text(self) -> str:
        """The text of the last user message (either wire format)."""
        for message in reversed(self.body.get("messages") or []):
            if message.get("role") != "user":
                continue
            content = message.get("content")
            if isinstance(content, str):
                return content
            texts = [c.get("text", "") for c in content or [] if c.get("type") == "text"]
            if texts:
                return "".join(texts)
        return ""


Responder = Callable[[RecordedRequest], Reply | None]


def echo_responder(request: RecordedRequest) -> Reply:
    """Answer anything: call a forced tool with empty arguments, else echo the user's words."""
    if request.forced_tool:
        return Reply(tool_calls=[ToolCall(request.forced_tool, {})])
    return Reply(text=f"(fake model) You said: {request.last_user_text}")


@dataclass
class FakeModelServer:
    """The server, its reply queue and its request log (thread-safe)."""

    host: str = "127.0.0.1"
    port: int = 0
    models: list[str] = field(default_factory=lambda: ["fake-large", "fake-small"])
    list_models: bool = True
    validate: bool = True
    schema_errors: list[str] = field(default_factory=list)
    responder: Responder | None = None
    requests: list[RecordedRequest] = field(default_factory=list)
    _queue: deque[Reply] = field(default_factory=deque)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _stopping: threading.Event = field(default_factory=threading.Event)
    _httpd: ThreadingHTTPServer | None = None
    _counter: int = 0

    def start(self) -> FakeModelServer:
        """Bind (a free port unless one was given) and serve in a background thread."""
        self._httpd = _QuietServer((self.host, self.port), _handler_for(self))
        self.port = self._httpd.server_address[1]
        threading.Thread(
            target=self._httpd.serve_forever,
            kwargs={"poll_interval": 0.05},
            name="fake-model-server",
            daemon=True,
        ).start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    def __enter__(self) -> FakeModelServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    @property
    def openai_base_url(self) -> str:
        """What to put in OPENAI_BASE_URL (the SDK appends /chat/completions)."""
        return f"{self.url}/v1"

    @property
    def anthropic_base_url(self) -> str:
        """What to put in ANTHROPIC_BASE_URL (the SDK appends /v1/messages)."""
        return self.url

    def enqueue(self, *replies: Reply | str) -> FakeModelServer:
        """Queue replies; a plain string is a text reply."""
        with self._lock:
            self._queue.extend(Reply(text=r) if isinstance(r, str) else r for r in replies)
        return self

    @property
    def pending(self) -> int:
        """Scripted replies not served yet."""
        with self._lock:
            return len(self._queue)

    def model_requests(self) -> list[RecordedRequest]:
        """The recorded chat / messages calls (model listings left out)."""
        with self._lock:
            return [r for r in self.requests if r.method == "POST"]

    def reset(self) -> None:
        """Forget the queue, the log and the responder."""
        with self._lock:
            self._queue.clear()
            self.requests.clear()
            self.responder = None

    def _record(self, request: RecordedRequest) -> None:
        with self._lock:
            self.requests.append(request)

    def _next_reply(self, request: RecordedRequest) -> Reply | None:
        with self._lock:
            self._counter += 1
            if self._queue:
                return self._queue.popleft()
        return self.responder(request) if self.responder else None

    def _next_id(self) -> int:
        with self._lock:
            return self._counter


class _QuietServer(ThreadingHTTPServer):
    """Clients that gave up (a timeout test) close their socket mid-answer: not worth a traceback."""

    daemon_threads = True
    # Many turns call at once in the concurrency tests and bench: the default backlog of 5 drops
    # connections, which the client then retries a second later.
    request_queue_size = 128

    def handle_error(self, request: Any, client_address: Any) -> None:
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


def _handler_for(server: FakeModelServer) -> type[BaseHTTPRequestHandler]:
    class Handler(_Handler):
        fake = server

    return Handler


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    fake: FakeModelServer

    def log_message(self, format: str, *args: Any) -> None:  # keep test output quiet
        pass

    def do_GET(self) -> None:
        self.fake._record(RecordedRequest("GET", self.path, self._headers()))
        if self.path.rstrip("/").split("?")[0].endswith("/models") and self.fake.list_models:
            self._send_json(200, self._models_body())
        else:
            self._send_json(404, {"error": {"message": f"no route GET {self.path}", "type": "not_found"}})

    def do_POST(self) -> None:
        raw = self.rfile.read(int(self.headers.get("content-length") or 0))
        try:
            body: Any = json.loads(raw or b"null")
        except json.JSONDecodeError:
            body = raw.decode("utf-8", "replace")
        request = RecordedRequest("POST", self.path, self._headers(), body)
        self.fake._record(request)
        path = self.path.split("?")[0].rstrip("/")
        if not path.endswith(("/chat/completions", "/messages")):
            self._send_json(404, {"error": {"message": f"no route POST {self.path}", "type": "not_found"}})
            return
        problems = self._schema_problems(request)
        if problems:
            self._send_error_reply(
                request, Reply.error(400, "not a valid chat-completions request: " + "; ".join(problems))
            )
            return
        reply = self.fake._next_reply(request)
        if reply is None:
            message = f"fake model server: no scripted reply for POST {path} (enqueue one or set a responder)"
            self._send_error_reply(request, Reply.error(418, message))
            return
        self._answer(request, reply)

    def _schema_problems(self, request: RecordedRequest) -> list[str]:
        if request.wire != "openai" or not self.fake.validate:
            return []
        problems = request_problems(request.json)
        with self.fake._lock:
            self.fake.schema_errors += problems
        return problems

    def _answer(self, request: RecordedRequest, reply: Reply) -> None:
        if reply.delay and self.fake._stopping.wait(reply.delay):
            return
        in_stream = reply.error_after is not None and request.body.get("stream")
        if reply.status >= 400 and not in_stream:
            self._send_error_reply(request, reply)
        elif reply.malformed and request.body.get("stream"):
            event = b"event: message_start\n" if request.wire == "anthropic" else b""
            self._send_raw(200, event + b'data: {"id": "broken", [ not json\n\n', "text/event-stream")
        elif reply.malformed:
            self._send_raw(200, b'{"id": "broken", "choices": [ this is not json', "application/json")
        elif request.body.get("stream"):
            self._stream(request, reply)
        else:
            self._send_body(request, reply)

    def _send_body(self, request: RecordedRequest, reply: Reply) -> None:
        rid, model = f"fake-{self.fake._next_id()}", request.model or "fake-model"
        body = (
            wire.anthropic_body(reply, model, rid)
            if request.wire == "anthropic"
            else wire.openai_body(reply, model, rid)
        )
        data = json.dumps(body, ensure_ascii=False).encode()
        if reply.disconnect_after is not None:
            self._send_head(200, "application/json", {"content-length": str(len(data))})
            self.wfile.write(data[: len(data) // 2])
            self._drop()
            return
        self._send_raw(200, data, "application/json")

    def _stream(self, request: RecordedRequest, reply: Reply) -> None:
        rid, model = f"fake-{self.fake._next_id()}", request.model or "fake-model"
        if request.wire == "anthropic":
            frames = [
                f"event: {name}\ndata: {json.dumps(data)}\n\n"
                for name, data in wire.anthropic_events(reply, model, rid)
            ]
        else:
            include_usage = bool((request.body.get("stream_options") or {}).get("include_usage"))
            chunks = wire.openai_chunks(reply, model, rid, include_usage)
            frames = [f"data: {json.dumps(c)}\n\n" for c in chunks] + ["data: [DONE]\n\n"]
        if reply.error_after is not None:
            frames = [*frames[: reply.error_after], self._error_frame(request, reply)]
        self._send_head(
            200, "text/event-stream", {"transfer-encoding": "chunked", "cache-control": "no-cache"}
        )
        for n, frame in enumerate(frames):
            if reply.disconnect_after is not None and n >= reply.disconnect_after:
                self._drop()
                return
            data = frame.encode()
            self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
            self.wfile.flush()
        self.wfile.write(b"0\r\n\r\n")

    def _error_frame(self, request: RecordedRequest, reply: Reply) -> str:
        if request.wire == "anthropic":
            body = wire.anthropic_error(reply.status, reply.error_message)
            return f"event: error\ndata: {json.dumps(body)}\n\n"
        return f"data: {json.dumps(wire.openai_error(reply.status, reply.error_message))}\n\n"

    def _send_error_reply(self, request: RecordedRequest, reply: Reply) -> None:
        if request.wire == "anthropic":
            body = wire.anthropic_error(reply.status, reply.error_message)
        else:
            body = wire.openai_error(reply.status, reply.error_message)
        extra = {} if reply.retry_after is None else {"retry-after": f"{reply.retry_after:g}"}
        self._send_json(reply.status, body, extra)

    def _models_body(self) -> dict[str, Any]:
        if "anthropic-version" in self._headers():
            data = [
                {"type": "model", "id": m, "display_name": m, "created_at": "2026-01-01T00:00:00Z"}
                for m in self.fake.models
            ]
            first, last = (self.fake.models[0], self.fake.models[-1]) if self.fake.models else (None, None)
            return {"data": data, "has_more": False, "first_id": first, "last_id": last}
        data = [
            {"id": m, "object": "model", "created": 1_760_000_000, "owned_by": "fake"}
            for m in self.fake.models
        ]
        return {"object": "list", "data": data}

    def _headers(self) -> dict[str, str]:
        return {k.lower(): v for k, v in self.headers.items()}

    def _send_json(self, status: int, body: Any, extra: dict[str, str] | None = None) -> None:
        self._send_raw(status, json.dumps(body).encode(), "application/json", extra)

    def _send_raw(self, status: int, data: bytes, ctype: str, extra: dict[str, str] | None = None) -> None:
        self._send_head(status, ctype, {"content-length": str(len(data)), **(extra or {})})
        self.wfile.write(data)

    def _send_head(self, status: int, ctype: str, headers: dict[str, str]) -> None:
        self.send_response(status)
        self.send_header("content-type", ctype)
        for name, value in headers.items():
            self.send_header(name, value)
        self.end_headers()

    def _drop(self) -> None:
        """Cut the connection mid-answer, as a crashed upstream or a network drop would."""
        self.wfile.flush()
        self.close_connection = True
        with contextlib.suppress(OSError):
            self.connection.shutdown(socket.SHUT_RDWR)


def main(argv: list[str] | None = None) -> None:
    """Run the fake server in the foreground."""
    parser = argparse.ArgumentParser(
        prog="python -m tests.fakes.fake_model_server", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=9999)
    parser.add_argument(
        "--script", type=Path, help="JSON list of replies (the fields of Reply) served in order"
    )
    parser.add_argument(
        "--echo", action="store_true", help="after the script, echo the user (default without --script)"
    )
    parser.add_argument(
        "--models", default="fake-large,fake-small", help="comma-separated ids for GET /v1/models"
    )
    parser.add_argument("--no-listing", action="store_true", help="answer GET /v1/models with 404")
    args = parser.parse_args(argv)
    fake = FakeModelServer(
        host=args.host,
        port=args.port,
        models=[m for m in args.models.split(",") if m],
        list_models=not args.no_listing,
    )
    if args.script:
        fake.enqueue(*[Reply.from_json(r) for r in json.loads(args.script.read_text(encoding="utf-8"))])
    if args.echo or not args.script:
        fake.responder = echo_responder
    fake.start()
    print(f"fake model server on {fake.url}", flush=True)
    print(f"  OPENAI_BASE_URL={fake.openai_base_url}  OPENAI_API_KEY=anything", flush=True)
    print(f"  ANTHROPIC_BASE_URL={fake.anthropic_base_url}  ANTHROPIC_API_KEY=anything", flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        fake.stop()


if __name__ == "__main__":
    main()
