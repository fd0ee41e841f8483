"""Browser tests: Playwright (Python) driving Debian's chromium against `previously serve`.

Servers are started once per session on free ports: the demo persona (the bundled sample), an
empty memory, and a writable copy of the sample. Every page collects console messages, page
errors, failed requests and HTTP errors; a test fails if any appear that it did not expect.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, ConsoleMessage, Page, Playwright, sync_playwright

from tests.fakes.fake_model_server import FakeModelServer, echo_responder

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "sample"
CHROMIUM = os.environ.get("PREVIOUSLY_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
# The demo's "today": the sample memory's newest slice is four days earlier.
DEMO_NOW = "2026-11-30T12:00:00Z"
PHONE = {"device_scale_factor": 3, "is_mobile": True, "has_touch": True}
SIZES = {
    # The most common Android width, where the tightest rows show first.
    "phone360": {"viewport": {"width": 360, "height": 800}, **PHONE},
    "phone": {
        "viewport": {"width": 390, "height": 844},
        "device_scale_factor": 3,
        "is_mobile": True,
        "has_touch": True,
    },
    "desktop": {"viewport": {"width": 1440, "height": 900}},
}
SCREENSHOTS = REPO / "docs" / "screenshots"


def previously_bin() -> str:
    """The CLI to start: $PREVIOUSLY_BIN, else the project's virtual environment."""
    return os.environ.get("PREVIOUSLY_BIN") or str(Path(sys.executable).with_name("previously"))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Server:
    """A running `previously serve`."""

    url: str
    proc: subprocess.Popen[bytes]
    log: Path

    def get(self, path: str) -> Any:
        """GET a JSON route (what the test compares the page against)."""
        import json

        with urllib.request.urlopen(self.url + path, timeout=10) as res:
            return json.loads(res.read())


# A developer's own settings must not leak into the test servers (a GITHUB_TOKEN would send them
# to GitHub; a real model key would reach a real provider).
ISOLATE: dict[str, str | None] = dict.fromkeys(
    (
        "STORAGE",
        "GITHUB_TOKEN",
        "GITHUB_REPO",
        "PREVIOUSLY_MEMORY",
        "PREVIOUSLY_ACCESS_KEY",
        "PREVIOUSLY_ACCESS_KEY_SHA256",
        "OPENAI_API_KEY",
        "OPENAI_BASE_URL",
        "ANTHROPIC_API_KEY",
        "ANTHROPIC_BASE_URL",
        "DEEPSEEK_API_KEY",
    )
)


def launch_server(args: list[str], log: Path, env: dict[str, str | None] | None = None) -> Server:
    """Start `previously serve` on a free port (without waiting for it); `env` adds variables
    (None removes one)."""
    port = free_port()
    out = log.open("wb")
    merged = {**os.environ}
    for key, value in {**ISOLATE, **(env or {})}.items():
        if value is None:
            merged.pop(key, None)
        else:
            merged[key] = value
    proc = subprocess.Popen(
        [previously_bin(), "serve", "--host", "127.0.0.1", "--port", str(port), *args],
        stdout=out,
        stderr=subprocess.STDOUT,
        cwd=log.parent,
        env=merged,
    )
    return Server(f"http://127.0.0.1:{port}", proc, log)


def wait_ready(server: Server, timeout: float = 90) -> Server:
    """Wait until /api/health answers (or fail with the server's log)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if server.proc.poll() is not None:
            raise RuntimeError(
                f"previously serve exited ({server.proc.returncode}):\n{server.log.read_text()[-3000:]}"
            )
        try:
            with urllib.request.urlopen(server.url + "/api/health", timeout=2) as res:
                if res.status == 200:
                    return server
        except OSError:
            time.sleep(0.2)
    server.proc.kill()
    raise RuntimeError(f"previously serve did not answer on {server.url}:\n{server.log.read_text()[-3000:]}")


def stop_server(server: Server) -> None:
    server.proc.terminate()
    try:
        server.proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        server.proc.kill()


@pytest.fixture(scope="session")
def fake_model() -> Iterator[FakeModelServer]:
    """The fake model provider (OpenAI and Anthropic wire formats) that answers every request."""
    server = FakeModelServer(responder=echo_responder).start()
    yield server
    server.stop()
    assert not server.schema_errors, f"requests outside OpenAI's schema: {server.schema_errors}"


def model_env(fake: FakeModelServer) -> dict[str, str | None]:
    """Point both providers at the fake (never a real one)."""
    return {
        "OPENAI_API_KEY": "sk-test-fake",
        "OPENAI_BASE_URL": fake.openai_base_url,
        "ANTHROPIC_API_KEY": "sk-ant-test-fake",
        "ANTHROPIC_BASE_URL": fake.anthropic_base_url,
    }


@pytest.fixture(scope="session")
def servers(
    tmp_path_factory: pytest.TempPathFactory, fake_model: FakeModelServer
) -> Iterator[dict[str, Server]]:
    """The three servers, started together: the sample persona read-only (F1), an empty memory
    (F2), and a writable copy of the sample with the fake model provider (chat, settings and card
    edits persist there)."""
    demo = tmp_path_factory.mktemp("demo")
    empty = tmp_path_factory.mktemp("empty")
    own = tmp_path_factory.mktemp("own")
    shutil.copytree(SAMPLE / "memory", own / "memory-root" / "memory")
    started = {
        "demo": launch_server(["--demo"], demo / "serve.log"),
        "empty": launch_server(["--memory", str(empty / "memory-root")], empty / "serve.log"),
        "own": launch_server(
            ["--memory", str(own / "memory-root")], own / "serve.log", model_env(fake_model)
        ),
    }
    try:
        yield {name: wait_ready(server) for name, server in started.items()}
    finally:
        for server in started.values():
            stop_server(server)


@pytest.fixture(scope="session")
def demo_server(servers: dict[str, Server]) -> Server:
    return servers["demo"]


@pytest.fixture(scope="session")
def empty_server(servers: dict[str, Server]) -> Server:
    return servers["empty"]


@pytest.fixture(scope="session")
def own_server(servers: dict[str, Server]) -> Server:
    return servers["own"]


@pytest.fixture
def fresh_own_server(tmp_path: Path, fake_model: FakeModelServer) -> Iterator[Server]:
    """A writable copy of the sample with the fake model, for this test alone: no slice another
    test left open, and a rerun starts again from the sample."""
    shutil.copytree(SAMPLE / "memory", tmp_path / "memory-root" / "memory")
    args = ["--memory", str(tmp_path / "memory-root")]
    server = wait_ready(launch_server(args, tmp_path / "serve.log", model_env(fake_model)))
    yield server
    stop_server(server)


ACCESS_KEY = "browser-test-key-4f2a"


@pytest.fixture(scope="session")
def auth_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """The demo behind sign-in (`--require-auth` with an access key)."""
    root = tmp_path_factory.mktemp("auth")
    server = wait_ready(
        launch_server(["--demo", "--require-auth"], root / "serve.log", {"PREVIOUSLY_ACCESS_KEY": ACCESS_KEY})
    )
    yield server
    stop_server(server)


@pytest.fixture(scope="session")
def playwright_session() -> Iterator[Playwright]:
    with sync_playwright() as pw:
        yield pw


@pytest.fixture(scope="session")
def browser(playwright_session: Playwright) -> Iterator[Browser]:
    """Debian's chromium (never a downloaded browser), headless, with a fresh profile."""
    assert Path(CHROMIUM).exists(), (
        f"{CHROMIUM} not found: install Debian's chromium (scripts/install-system-deps)"
    )
    b = playwright_session.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
    yield b
    b.close()


@dataclass
class Problems:
    """What went wrong on a page: console errors/warnings, page errors, failed or refused requests."""

    items: list[str] = field(default_factory=list)
    allowed: list[str] = field(default_factory=list)

    def add(self, text: str) -> None:
        if not any(a in text for a in self.allowed):
            self.items.append(text)

    def allow(self, fragment: str) -> None:
        """Expect problems mentioning `fragment` (e.g. the 404 of a deliberately missing slice)."""
        self.allowed.append(fragment)
        self.items = [i for i in self.items if fragment not in i]


def _watch(page: Page, problems: Problems) -> None:
    def on_console(msg: ConsoleMessage) -> None:
        if msg.type in ("error", "warning"):
            problems.add(f"console {msg.type}: {msg.text} @ {msg.location.get('url', '')}")

    page.on("console", on_console)
    page.on("pageerror", lambda err: problems.add(f"page error: {err}"))
    # A request cut off because the test navigated away (reload, goto) is not the app's fault;
    # the app itself never aborts requests.
    page.on(
        "requestfailed",
        lambda req: (
            req.failure != "net::ERR_ABORTED" and problems.add(f"request failed: {req.url} {req.failure}")
        ),
    )
    page.on("response", lambda res: res.status >= 400 and problems.add(f"HTTP {res.status}: {res.url}"))


@dataclass
class App:
    """A page on the app, with the problems seen so far."""

    page: Page
    context: BrowserContext
    server: Server
    problems: Problems
    size: str

    def open(self, path: str = "/", wait: str = "[data-testid=wheel], [data-testid=wheel-error]") -> Page:
        self.page.goto(self.server.url + path)
        self.page.wait_for_selector(wait)
        return self.page


@pytest.fixture
def make_app(browser: Browser) -> Iterator[Callable[..., App]]:
    """Open app pages: `make_app(server, size=…, scheme=…, reduced=…, now=…, **context_options)`."""
    opened: list[App] = []

    def make(
        server: Server,
        size: str = "desktop",
        scheme: str = "light",
        reduced: bool = False,
        now: str | None = DEMO_NOW,
        **options: Any,
    ) -> App:
        context = browser.new_context(
            **SIZES[size],
            color_scheme=scheme,  # type: ignore[arg-type]
            reduced_motion="reduce" if reduced else "no-preference",
            timezone_id=options.pop("timezone_id", "Europe/London"),
            locale=options.pop("locale", "en-GB"),
            **options,
        )
        page = context.new_page()
        if now:
            # The browser's clock, so "today" and relative labels are fixed; timers still run.
            page.clock.install(time=now)
        problems = Problems()
        _watch(page, problems)
        app = App(page, context, server, problems, size)
        opened.append(app)
        return app

    yield make
    failures = []
    for app in opened:
        # A test that blocks the service worker (so page.route sees every fetch) is told so.
        items = [p for p in app.problems.items if SW_BLOCKED not in p]
        if items:
            failures.append("\n".join(items))
        app.context.close()
    assert not failures, "problems on the page:\n" + "\n---\n".join(failures)


SW_BLOCKED = "Service Worker registration blocked by Playwright"  # make_app(…, service_workers="block")

NO_OVERFLOW = """() => {
  const d = document.documentElement;
  return {wide: d.scrollWidth - d.clientWidth, tall: d.scrollHeight - d.clientHeight,
          bodyTall: document.body.scrollHeight - window.innerHeight};
}"""


def assert_fits(app: App) -> None:
    """No horizontal overflow, and the document itself does not scroll."""
    sizes = app.page.evaluate(NO_OVERFLOW)
    assert sizes["wide"] <= 1, sizes
    assert sizes["tall"] <= 1 and sizes["bodyTall"] <= 1, sizes


# A real turn through `previously serve` and the fake model provider: several model calls and
# writes, on a CI machine shared with other work.
REAL_TURN_MS = 60_000
# The page's own replies: those shown from before it was opened (`data-earlier`, a conversation
# another test left open on the same server) are not counted.
REPLIES = """(n) => {
  const all = [...document.querySelectorAll('[data-testid=msg-assistant]:not([data-earlier])')];
  const ended = all.find((m) => m.dataset.status === 'error' || m.dataset.status === 'interrupted');
  if (ended) return `ended ${ended.dataset.status}: ${ended.innerText.slice(0, 400)}`;
  return all.filter((m) => m.dataset.status === 'done').length === n ? 'done' : false;
}"""


def wait_for_replies(page: Page, count: int) -> None:
    """Wait until `count` of the page's own replies are done; a turn that ends otherwise fails at
    once, with its text."""
    outcome = page.wait_for_function(REPLIES, arg=count, timeout=REAL_TURN_MS).json_value()
    assert outcome == "done", outcome


SETTLED = """() => document.getAnimations().every(
  (a) => a.playState !== "running" || a.effect?.getTiming().iterations === Infinity
)"""


def settle(page: Page) -> None:
    """Wait until the page's finite animations (a dialog fading in, the travel) have ended and its
    fonts have loaded: what a screenshot or a measurement should see."""
    page.wait_for_function(SETTLED, timeout=5000)
    page.evaluate("document.fonts.ready.then(() => true)")


def eventually(page: Page, check: Callable[[], object], what: str, timeout_s: float = 15) -> None:
    """Wait for a condition on the test's side (what a route or socket handler recorded): the
    handlers run while Playwright is waiting, so the page is given time in small steps."""
    deadline = time.monotonic() + timeout_s
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"still not true after {timeout_s} s: {what}")
        page.wait_for_timeout(50)


def save_screenshot(page: Page, name: str) -> None:
    """Save a screenshot to docs/screenshots/ when SAVE_SCREENSHOTS=1."""
    if os.environ.get("SAVE_SCREENSHOTS") == "1":
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SCREENSHOTS / f"{name}.png"))
