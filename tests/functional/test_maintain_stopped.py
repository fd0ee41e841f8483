"""A maintenance pass that GitHub's rate limit stops is not a success: exit 75 ("try later") from
the CLI, a `MaintenanceStopped` metric from the scheduled Lambda (its alarm: tests/infra)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core.storage.github import BLOB_FALLBACK_MAX
from functions.cli.errors import EX_TEMPFAIL
from tests.fakes.fake_github import FakeGitHub
from tests.functional.cli_env import clean_env, run
from tests.functional.test_aws_handlers import aws_env  # noqa: F401 - the Lambda environment
from tests.functional.test_maintain_at_scale import seed

pytestmark = pytest.mark.functional


def github_env(monkeypatch: pytest.MonkeyPatch, fake: FakeGitHub) -> None:
    clean_env(monkeypatch)
    monkeypatch.setenv("GITHUB_TOKEN", fake.token)
    monkeypatch.setenv("GITHUB_REPO", f"{fake.owner}/{fake.name}")
    monkeypatch.setenv("GITHUB_API_URL", fake.url)
    monkeypatch.setenv("PREVIOUSLY_MEMORY", str(Path("/nonexistent-folder")))


@pytest.mark.parametrize("remaining", [6, 0], ids=["spent-midway", "spent-before"])
def test_maintain_stopped_by_the_rate_limit_exits_75(
    fake_github: FakeGitHub, monkeypatch: pytest.MonkeyPatch, remaining: int
) -> None:
    seed(fake_github, n=20)
    github_env(monkeypatch, fake_github)
    fake_github.budget.set(remaining=remaining, reset_in=1800)
    code, out, err = run("maintain", "--no-model")
    assert code == EX_TEMPFAIL == 75, (out, err)
    assert "rate limit" in err and "Traceback" not in out + err
    assert len(err.strip().splitlines()) == 1, err


def test_maintain_json_says_stopped_and_exits_75(
    fake_github: FakeGitHub, monkeypatch: pytest.MonkeyPatch
) -> None:
    seed(fake_github, n=20)
    github_env(monkeypatch, fake_github)
    fake_github.budget.set(remaining=6, reset_in=1800)
    code, out, _ = run("maintain", "--no-model", "--json")
    assert code == 75 and "resets at" in json.loads(out)["stopped"]


def test_an_unhindered_maintain_still_exits_0(
    fake_github: FakeGitHub, monkeypatch: pytest.MonkeyPatch
) -> None:
    seed(fake_github, n=5)
    github_env(monkeypatch, fake_github)
    code, out, err = run("maintain", "--no-model")
    assert code == 0, (out, err)


@pytest.mark.usefixtures("aws_env")
def test_the_scheduled_handler_records_a_stopped_pass_as_a_metric(
    fake_github: FakeGitHub, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from functions.aws import metrics
    from functions.handlers.maintain import handler

    seed(fake_github, n=20)
    for name, value in {
        "STORAGE": "github",
        "GITHUB_TOKEN": fake_github.token,
        "GITHUB_REPO": f"{fake_github.owner}/{fake_github.name}",
        "GITHUB_API_URL": fake_github.url,
        "PREVIOUSLY_STAGE": "test",
    }.items():
        monkeypatch.setenv(name, value)
    fake_github.budget.set(remaining=6, reset_in=1800)
    capsys.readouterr()
    report = handler({"source": "aws.events", "detail-type": "Scheduled Event"}, None)
    assert report["stopped"]
    emf = [json.loads(line) for line in capsys.readouterr().out.splitlines() if '"_aws"' in line]
    (record,) = [r for r in emf if metrics.MAINTENANCE_STOPPED in r]
    (directive,) = record["_aws"]["CloudWatchMetrics"]
    assert directive["Namespace"] == metrics.NAMESPACE
    assert record[metrics.MAINTENANCE_STOPPED] == [1.0] or record[metrics.MAINTENANCE_STOPPED] == 1.0
    assert (record["service"], record["stage"]) == (metrics.SERVICE, "test")
    assert set(directive["Dimensions"][0]) == {"service", "stage"}


@pytest.mark.usefixtures("aws_env")
def test_an_unhindered_scheduled_pass_records_no_metric(capsys: pytest.CaptureFixture[str]) -> None:
    from functions.handlers.maintain import handler

    capsys.readouterr()
    assert handler({"source": "aws.events"}, None)["stopped"] is None
    assert '"_aws"' not in capsys.readouterr().out


def test_maintain_whose_archive_download_fails_stops_in_words_and_exits_75(
    fake_github: FakeGitHub, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A cold search build at 240 slices with GitHub's archive failing: no request per file."""
    seed(fake_github, n=240)
    github_env(monkeypatch, fake_github)
    fake_github.fail_next(30, "500", route="GET /tarball/{ref}")
    fake_github.reset_counts()
    code, out, err = run("maintain", "--no-model")
    assert code == 75, (out, err)
    assert "archive" in err and "Try again later" in err and "Traceback" not in out + err
    assert fake_github.counts.get("GET /git/blobs/{sha}", 0) <= BLOB_FALLBACK_MAX
    assert sum(fake_github.counts.values()) < 240, dict(fake_github.counts)
