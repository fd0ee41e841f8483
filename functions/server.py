"""The local server (`previously serve`): the API and the web UI under uvicorn, maintenance on a timer.

Memory is a local folder by default (created on first run); `--demo` serves the bundled sample
persona with nothing saved. Turns run in-process. The server refuses to listen beyond this
machine unless an access key is set, and then asks for it on every data route.
"""

from __future__ import annotations

import contextlib
import logging
import socket
import threading
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path

import anyio
from fastapi import FastAPI

from core.errors import InvalidInput
from core.llm.registry import ModelPrefs
from core.memory.config_store import read_config
from functions.api import site
from functions.api.app import create_app
from functions.api.security import generate_key, is_loopback, key_weakness
from functions.compose.deps import REPO_ROOT, Deps
from functions.compose.local import build_deps
from functions.settings import Settings

log = logging.getLogger("previously.server")
WEB_DIR = REPO_ROOT / "web"
MAINTENANCE_MINUTES = 15.0
WS_MAX_BYTES = 2 * 1024 * 1024
WORKER_THREADS = 200


@dataclass(frozen=True)
class ServeOptions:
    """What `previously serve` was asked for."""

    host: str = "127.0.0.1"
    port: int = 8000
    memory: Path | None = None
    demo: bool = False
    require_auth: bool = False
    maintenance_minutes: float = MAINTENANCE_MINUTES

    @property
    def auth_required(self) -> bool:
        return self.require_auth or not is_loopback(self.host)


class MaintenanceTimer:
    """Calls `run` every `interval` seconds on a daemon thread; a failure is logged, never fatal."""

    def __init__(self, run: Callable[[], object], interval: float, first_delay: float | None = None) -> None:
        self._run = run
        self.interval = interval
        self.first_delay = interval if first_delay is None else first_delay
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="maintenance", daemon=True)
        self.runs = 0
        self.failures = 0

    def start(self) -> None:
        self._thread.start()

    def stop(self, timeout: float = 5.0) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout)

    def _loop(self) -> None:
        delay = self.first_delay
        while not self._stop.wait(delay):
            delay = self.interval
            try:
                self._run()
                self.runs += 1
            except Exception:  # the next tick tries again; the server must keep serving
                self.failures += 1
                log.exception("maintenance pass failed; retrying at the next tick")


def check_options(options: ServeOptions, settings: Settings) -> None:
    """Refuse a configuration that would expose memory: a non-loopback host without an access key."""
    where = f"host {options.host}" if not is_loopback(options.host) else "--require-auth"
    if options.auth_required and not settings.has_access_key:
        raise InvalidInput(
            f"Refusing to start: {where} needs an access key. Set PREVIOUSLY_ACCESS_KEY "
            f"(a long random secret, e.g. {generate_key()}) and start again."
        )
    plain = settings.access_key.get_secret_value().strip() if settings.access_key else ""
    weakness = key_weakness(plain) if plain and not is_loopback(options.host) else None
    if weakness:
        raise InvalidInput(
            f"Refusing to start: PREVIOUSLY_ACCESS_KEY is too weak to guard {where} ({weakness}). "
            f"Use a long random secret, e.g. {generate_key()}"
        )


_ANY_ADDRESS = frozenset({"0.0.0.0", "::", "[::]", ""})


def answered_hosts(options: ServeOptions, settings: Settings) -> Settings:
    """The settings with the address the server binds to among the public hosts (beside loopback
    and PREVIOUSLY_PUBLIC_HOSTS): a request naming any other host is refused (DNS rebinding)."""
    host = options.host.strip()
    if is_loopback(host) or host in _ANY_ADDRESS or host in settings.public_host_list:
        return settings
    return settings.model_copy(update={"public_hosts": ",".join((*settings.public_host_list, host))})


def prepare(options: ServeOptions, settings: Settings) -> Deps:
    """Validate the options and build the dependencies (the memory folder is created if missing)."""
    check_options(options, settings)
    settings = answered_hosts(options, settings)
    if options.demo:
        settings = settings.model_copy(update={"storage": "demo"})
        memory = options.memory
    elif options.memory is not None or settings.storage == "local":
        memory = options.memory or settings.memory_root
        (memory / "memory").mkdir(parents=True, exist_ok=True)
    else:
        memory = None
    return build_deps(settings, memory_override=memory, require_auth=options.auth_required)


def build_app(deps: Deps, options: ServeOptions, web_dir: Path = WEB_DIR) -> FastAPI:
    """The app with the maintenance timer tied to its lifespan, its responses compressed (as the
    Lambda handler's are; functions/api/site.py)."""
    interval = options.maintenance_minutes * 60

    @contextlib.asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        # Followers of running turns block a worker thread for up to a second at a time.
        anyio.to_thread.current_default_thread_limiter().total_tokens = WORKER_THREADS
        if deps.recovery is not None:
            try:
                deps.recovery()
            except Exception:  # never a reason not to serve: the next maintenance pass tries again
                log.exception("recovery at start failed")
        timer = None
        if deps.maintenance is not None and interval > 0 and not deps.storage.demo:
            timer = MaintenanceTimer(deps.maintenance, interval)
            timer.start()
        try:
            yield
        finally:
            if timer is not None:
                timer.stop()

    app = create_app(deps, web_dir=web_dir, lifespan=lifespan)
    site.compress(app)
    return app


def describe(deps: Deps, options: ServeOptions) -> list[str]:
    """The start-up lines: where to browse, which memory, whether auth and a model are set."""
    where = f"http://{options.host}:{options.port}/"
    storage = getattr(deps.storage, "root", None) or getattr(deps.storage, "base", None)
    memory = (
        "the sample persona (demo: nothing is saved)"
        if deps.storage.demo
        else f"{deps.storage_kind} {storage or ''}"
    )
    lines = [f"Previously is running at {where}", f"memory: {memory.strip()}"]
    lines.append(
        "sign-in: required (access key)" if options.auth_required else "sign-in: off (this machine only)"
    )
    guard = deps.security.request_guard
    if options.host.strip() in _ANY_ADDRESS and not guard.public_hosts:
        lines.append(
            "hosts: only 127.0.0.1, localhost and [::1] are answered; name the others in "
            "PREVIOUSLY_PUBLIC_HOSTS"
        )
    lines.append(_model_line(deps))
    return lines


def _model_line(deps: Deps) -> str:
    """Which model answers and where it came from, or exactly what to set."""
    if not deps.models.configured:
        return "model: none configured — chat will explain how to set one up (see docs/MODELS.md)"
    prefs = ModelPrefs.from_config(read_config(deps.storage.snapshot())[0].data)
    overview = deps.models.models_overview(prefs)
    main, worker = overview.main, overview.worker
    if not main or not worker:
        return f"model: none — {overview.setup}"
    return (
        f"model: {main.model.info.id} (from {main.source}), "
        f"worker {worker.model.info.id} (from {worker.source})"
    )


def check_port_free(host: str, port: int) -> None:
    """InvalidInput when something already listens on host:port (before saying we are running)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn binds
        try:
            probe.bind((host, port))
        except OSError as exc:
            raise InvalidInput(
                f"cannot listen on {host}:{port} ({exc.strerror}): is Previously already running there? "
                "Stop it or pick another --port."
            ) from exc


def run(options: ServeOptions, settings: Settings) -> None:
    """Start uvicorn and serve until interrupted."""
    import uvicorn

    check_port_free(options.host, options.port)
    deps = prepare(options, settings)
    app = build_app(deps, options)
    for line in describe(deps, options):
        print(line, flush=True)
    # proxy_headers off: X-Forwarded-For from a loopback peer must not choose the throttle bucket.
    uvicorn.run(
        app,
        host=options.host,
        port=options.port,
        ws_max_size=WS_MAX_BYTES,
        log_level="info",
        proxy_headers=False,
    )
