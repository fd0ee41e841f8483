"""No command prints a secret, whatever GitHub or the model server answers.

Every command of the Typer app (enumerated from it, so a new command must be given its arguments
here or this test fails) runs against a fake GitHub and a fake model server that repeat the
request's credentials in their error bodies, for 401/403/429/500 and a body that is not JSON.
Each ends with one clear `error:` line and a non-zero status (those that reach GitHub or the
model), never a traceback, and neither the token nor the key appears on stdout, stderr or in a
log record. The tokens have no well-known shape, so only registration (functions/logs.py) can
hide them.
"""

from __future__ import annotations

import logging
import socket
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import typer.main
from moto import mock_aws
from typer.core import TyperGroup

from core.errors import RateLimitSpent, StorageError, TransientError
from functions.cli import app
from functions.cli.errors import EX_TEMPFAIL, error_line, exit_code
from tests.fakes.fake_github import FakeGitHub
from tests.fakes.fake_model_server import FakeModelServer, RecordedRequest, Reply
from tests.functional.cli_env import clean_env, run

pytestmark = pytest.mark.functional
ROOT = Path(__file__).resolve().parents[2]

TOKEN = "octo-Token-7f3a91c2e4b85d60"  # no ghp_ shape: only its registration can hide it
KEY = "prov-Key-0b1c2d3e4f5a6978"
SLICE = "2026-08-11-0900"
ANSWERS = ["401", "403", "429", "500", "garbage"]


def commands() -> list[str]:
    """Every runnable command path of the app ("card show", "notes", …)."""
    found: list[str] = []

    def walk(command: object, path: list[str]) -> None:
        if isinstance(command, TyperGroup):
            if path and command.invoke_without_command:
                found.append(" ".join(path))
            for name, sub in command.commands.items():
                walk(sub, [*path, name])
        else:
            found.append(" ".join(path))

    walk(typer.main.get_command(app), [])
    return sorted(found)


# The arguments each command runs with, and what it must do: ERROR (one `error:` line, exit
# non-zero), REPORT (its own report names what failed, exit non-zero) or LOCAL (it reaches neither
# GitHub nor the model). A command missing here fails `test_every_command_has_its_arguments`.
ERROR, REPORT, LOCAL = "error", "report", "local"
ARGS: dict[str, tuple[list[str], str]] = {
    "aws-secrets": (["--from-env", "--stage", "test", "--json"], LOCAL),  # AWS only (moto)
    "hash-key": ([], LOCAL),  # local: hashes the key on stdin
    "card show": ([], ERROR),
    "card edit": (["now", "1", "new words"], ERROR),
    "card rm": (["now", "1"], ERROR),
    "card undo": ([], ERROR),
    "card redo": ([], ERROR),
    "chat": (["hello there"], ERROR),
    "check": ([], ERROR),
    "evolve": ([], ERROR),
    "export": (["--out", "{tmp}/export.zip"], ERROR),
    "forget": ([SLICE, "--yes"], ERROR),
    "import": (["{tmp}/talk.md", "--format", "markdown"], ERROR),
    "info": ([], LOCAL),  # describes the set-up; reads nothing remote
    "maintain": ([], ERROR),
    "mcp": ([], LOCAL),  # stdio: ends at the end of its (empty) input before any request
    "models": (["--check"], REPORT),  # a line per model: "FAILED (refused) …"
    "notes": ([], ERROR),
    "notes accept": (["n-1"], ERROR),
    "notes decline": (["n-1"], ERROR),
    "recall": (["the trip"], ERROR),
    "serve": (["--port", "{busy}"], ERROR),  # refused before serving: its requests are the API's
    "weave": ([], ERROR),
}


def test_every_command_has_its_arguments() -> None:
    assert sorted(ARGS) == commands()


@dataclass
class EchoingProvider:
    """A model provider that refuses every call with `answer`, repeating the caller's credentials."""

    answer: str = "401"

    def __call__(self, request: RecordedRequest) -> Reply:
        if self.answer == "garbage":
            return Reply(malformed=True)
        sent = request.headers.get("authorization") or request.headers.get("x-api-key", "")
        return Reply.error(int(self.answer), f"refused {request.path} (Authorization: {sent}; key {KEY})")


PROVIDER = EchoingProvider()


@pytest.fixture
def busy_port() -> Iterator[int]:
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        held.listen()
        yield held.getsockname()[1]


@pytest.fixture
def hostile(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fake_models: FakeModelServer
) -> Iterator[FakeGitHub]:
    """GitHub and a model provider configured through the environment, both holding secrets."""
    clean_env(monkeypatch)
    with FakeGitHub(tmp_path / "fake-github.git", token=TOKEN) as fake:
        env = {
            "GITHUB_TOKEN": TOKEN,
            "GITHUB_REPO": "octo/memory",
            "GITHUB_API_URL": fake.url,
            "PREVIOUSLY_MEMORY": str(tmp_path / "no-folder"),
            "PREVIOUSLY_RUNS": str(tmp_path / "runs"),
            "OPENAI_API_KEY": KEY,
            "OPENAI_BASE_URL": fake_models.openai_base_url,
            "PREVIOUSLY_MODEL": "openai/fake-large",
            "AWS_DEFAULT_REGION": "us-east-1",
        }
        for name, value in env.items():
            monkeypatch.setenv(name, value)
        monkeypatch.delenv("PREVIOUSLY_DEBUG", raising=False)
        fake_models.responder = PROVIDER
        with mock_aws():
            yield fake


@pytest.mark.parametrize("answer", ANSWERS)
def test_no_command_prints_a_secret(
    answer: str,
    hostile: FakeGitHub,
    tmp_path: Path,
    busy_port: int,
    caplog: pytest.LogCaptureFixture,
) -> None:
    hostile.echo_credentials(answer)
    PROVIDER.answer = answer
    (tmp_path / "talk.md").write_text("## user\n\nHello.\n\n## assistant\n\nHi.\n", encoding="utf-8")
    caplog.set_level(logging.DEBUG)
    problems = []
    for name, (args, expect) in ARGS.items():
        argv = [*name.split(), *(a.format(tmp=tmp_path, busy=busy_port) for a in args)]
        code, out, err = run(*argv, stdin="a-long-enough-access-key-for-hashing\n")
        said = out + err + caplog.text
        if TOKEN in said or KEY in said:
            problems.append(f"{name}: a secret was printed")
        if "Traceback" in out + err:
            problems.append(f"{name}: a traceback\n{err}")
        # `chat` prints the turn's events, its error among them, on stdout.
        errors = [line for line in (out + err).splitlines() if line.startswith("error:")]
        if (expect != LOCAL and code == 0) or (expect == ERROR and len(errors) != 1):
            problems.append(f"{name}: exit {code}, stderr {err!r} stdout {out[-400:]!r}")
        caplog.clear()
    assert not problems, "\n".join(problems)


def test_debug_shows_the_whole_chain_redacted(hostile: FakeGitHub, monkeypatch: pytest.MonkeyPatch) -> None:
    hostile.echo_credentials("401")
    monkeypatch.setenv("PREVIOUSLY_DEBUG", "1")
    code, out, err = run("check")
    assert code == 1 and "Traceback" in err and "direct cause" in err  # the GitHub error under ours
    assert TOKEN not in out + err and "[redacted]" in err
    assert err.rstrip().splitlines()[-1].startswith("error: GitHub rejected the token")


def test_a_real_process_prints_one_line_and_no_token(hostile: FakeGitHub) -> None:
    """As the shell runs it (Typer's own handler would print the chained GitHub error raw)."""
    hostile.echo_credentials("500")
    done = subprocess.run(
        [sys.executable, "-m", "functions.cli", "card", "show"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )
    assert done.returncode == EX_TEMPFAIL, done.stderr  # a GitHub outage: try later
    assert TOKEN not in done.stdout + done.stderr and "Traceback" not in done.stderr
    assert [line for line in done.stderr.splitlines() if line.strip()] == [
        line for line in done.stderr.splitlines() if line.startswith("error:")
    ]


def test_an_unexpected_error_is_one_line_that_says_how_to_see_more() -> None:
    try:
        raise KeyError(f"missing {TOKEN}")
    except KeyError as exc:
        line = error_line(exc)
    assert line.startswith("error: unexpected KeyError") and "PREVIOUSLY_DEBUG=1" in line
    assert "\n" not in line


def test_a_later_run_can_get_past_transient_failures() -> None:
    assert exit_code(RateLimitSpent("spent")) == exit_code(TransientError("down")) == EX_TEMPFAIL
    assert exit_code(StorageError("bad token")) == exit_code(ValueError("bug")) == 1
