"""`previously serve` and `previously chat` as commands; the server's set-up and maintenance timer."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from functions.cli import _load_commands, app
from functions.server import (
    MaintenanceTimer,
    ServeOptions,
    answered_hosts,
    build_app,
    check_options,
    describe,
    prepare,
)
from functions.settings import load_settings
from tests.fakes.live_server import live_server
from tests.functional.api_env import KEY, make_env

pytestmark = pytest.mark.functional
_load_commands()


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    for name in (
        "STORAGE",
        "GITHUB_TOKEN",
        "PREVIOUSLY_ACCESS_KEY",
        "PREVIOUSLY_ACCESS_KEY_SHA256",
        "PREVIOUSLY_ACCESS_KEY_HASH",
        "PREVIOUSLY_SESSION_SECRET",
        "ANTHROPIC_API_KEY",
        "OPENAI_API_KEY",
        "OPENAI_BASE_URL",
        "DEEPSEEK_API_KEY",
    ):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("PREVIOUSLY_MEMORY", str(tmp_path / "memory-data"))
    return tmp_path / "memory-data"


def test_serve_refuses_a_public_host_without_a_key(clean_env: Path) -> None:
    result = CliRunner().invoke(app, ["serve", "--host", "0.0.0.0"])
    assert result.exit_code == 2
    assert "PREVIOUSLY_ACCESS_KEY" in result.output
    assert not clean_env.exists()


@pytest.mark.parametrize("weak", ["1", "      spaces      ", "aaaaaaaaaaaaaaaaaaaa", "short-key"])
def test_serve_refuses_a_weak_key_on_a_public_host(
    clean_env: Path, monkeypatch: pytest.MonkeyPatch, weak: str
) -> None:
    monkeypatch.setenv("PREVIOUSLY_ACCESS_KEY", weak)
    with pytest.raises(Exception, match="too weak"):
        check_options(ServeOptions(host="0.0.0.0"), load_settings())
    check_options(ServeOptions(), load_settings())  # on loopback any key will do


def test_sessions_outlive_a_restart_of_the_local_server(
    clean_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PREVIOUSLY_ACCESS_KEY", KEY)
    first = prepare(ServeOptions(host="0.0.0.0"), load_settings())
    assert first.security.sessions is not None
    token = first.security.sessions.issue()
    second = prepare(ServeOptions(host="0.0.0.0"), load_settings())
    assert second.security.sessions is not None and second.security.sessions.valid(token)
    secret_file = clean_env.parent / "memory-data.runs" / "session-secret"
    assert secret_file.exists() and not list(clean_env.rglob("session-secret"))  # never inside memory


def test_require_auth_needs_a_key_too(clean_env: Path) -> None:
    with pytest.raises(Exception, match="--require-auth"):
        check_options(ServeOptions(require_auth=True), load_settings())


def test_first_run_creates_the_memory_folder_and_says_what_to_configure(clean_env: Path) -> None:
    options = ServeOptions()
    deps = prepare(options, load_settings())
    assert (clean_env / "memory").is_dir()
    lines = describe(deps, options)
    assert lines[0] == "Previously is running at http://127.0.0.1:8000/"
    assert any("sign-in: off" in line for line in lines)
    assert any("model: none configured" in line for line in lines)
    with live_server(build_app(deps, options)) as url:
        import httpx

        state = httpx.get(f"{url}/api/state").json()
        page = httpx.get(f"{url}/sign-in")
    assert state["flags"]["model_configured"] is False and state["name"] is None
    assert any("No model provider" in line for line in state["setup"])
    assert page.status_code == 200 and "Access key" in page.text


def test_public_host_with_a_key_requires_sign_in(clean_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PREVIOUSLY_ACCESS_KEY", KEY)
    options = ServeOptions(host="0.0.0.0")
    deps = prepare(options, load_settings())
    assert deps.security.required
    assert any("sign-in: required" in line for line in describe(deps, options))


def test_demo_serves_the_sample_and_writes_nothing(clean_env: Path) -> None:
    deps = prepare(ServeOptions(demo=True), load_settings())
    assert deps.storage.demo and not clean_env.exists()


def test_maintenance_timer_keeps_going_after_a_failure() -> None:
    calls: list[float] = []
    done = threading.Event()

    def run() -> None:
        calls.append(time.monotonic())
        if len(calls) == 1:
            raise RuntimeError("boom")
        if len(calls) >= 3:
            done.set()

    timer = MaintenanceTimer(run, interval=0.05, first_delay=0.0)
    timer.start()
    assert done.wait(10)
    timer.stop()
    assert timer.failures == 1 and timer.runs >= 2
    count = len(calls)
    time.sleep(0.2)
    assert len(calls) == count  # stopped means stopped


def test_maintenance_runs_on_the_server_lifespan(clean_env: Path) -> None:
    ran = threading.Event()
    deps = prepare(ServeOptions(), load_settings())
    deps.maintenance = ran.set
    options = ServeOptions(maintenance_minutes=0.001)
    with live_server(build_app(deps, options)):
        assert ran.wait(10)


def test_chat_command_against_a_server() -> None:
    env = make_env(required=True)
    with live_server(env.client.app) as url:
        ok = CliRunner().invoke(app, ["chat", "--url", url, "--key", KEY, "hello"])
        bad = CliRunner().invoke(app, ["chat", "--url", url, "--key", "nope", "hello"])
    assert ok.exit_code == 0 and ok.stdout == "Hello back.\n"
    assert (
        bad.exit_code == 1
        and "the key was refused (401)" in bad.output
        and "PREVIOUSLY_ACCESS_KEY" in bad.output
    )


def _tree_digest(root: Path) -> str:
    import hashlib

    h = hashlib.sha256()
    for path in sorted(root.rglob("*")):
        if path.is_file():
            h.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes())
    return h.hexdigest()


def test_demo_chat_without_a_model_keeps_the_message_in_memory_only(clean_env: Path) -> None:
    from core.storage.demo import DemoStorage
    from functions.compose.demo import SAMPLE_ROOT

    before = _tree_digest(SAMPLE_ROOT)
    deps = prepare(ServeOptions(demo=True), load_settings())
    with live_server(build_app(deps, ServeOptions(demo=True))) as url:
        import httpx

        with httpx.Client(base_url=url, timeout=60) as browser:  # keeps the visitor cookie
            view = browser.post("/api/turns?wait=20", json={"message": "Hi from the demo"}).json()
            state = browser.get("/api/state").json()
            visitor = browser.cookies["previously_visitor"]
        other = httpx.get(f"{url}/api/state").json()  # another visitor
    assert view["status"] == "error"
    assert next(e for e in view["events"] if e["type"] == "turn.error")["code"] == "no_model"
    assert state["flags"]["demo"] is True
    assert [t["content"] for t in state["active_turns"]] == ["Hi from the demo"]
    assert other["active_turns"] == []
    assert deps.visitors is not None
    own = deps.visitors.get(str(getattr(deps.storage, "persona", "")), visitor, create=False)
    assert own is not None and isinstance(own.storage, DemoStorage) and own.storage.overlay_paths
    assert isinstance(deps.storage, DemoStorage) and deps.storage.overlay_paths == []
    assert _tree_digest(SAMPLE_ROOT) == before


def test_serve_on_a_taken_port_says_so_and_does_not_claim_to_run(clean_env: Path) -> None:
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = CliRunner().invoke(app, ["serve", "--port", str(port)])
    assert result.exit_code == 2
    assert f"cannot listen on 127.0.0.1:{port}" in result.output and "--port" in result.output
    assert "is running at" not in result.output


def test_the_server_answers_to_loopback_its_bound_address_and_the_configured_hosts() -> None:
    settings = load_settings(STORAGE="local", PREVIOUSLY_PUBLIC_HOSTS="notes.example.org")
    bound = answered_hosts(ServeOptions(host="192.168.1.5", require_auth=True), settings)
    assert bound.public_host_list == ("notes.example.org", "192.168.1.5")
    for host in ("127.0.0.1", "0.0.0.0", "::"):
        assert answered_hosts(ServeOptions(host=host), settings).public_host_list == ("notes.example.org",)
    with pytest.raises(Exception, match="PREVIOUSLY_PUBLIC_HOSTS"):
        load_settings(PREVIOUSLY_PUBLIC_HOSTS="https://not a host/")
