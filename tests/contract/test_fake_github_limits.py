"""The fake GitHub's conditional requests, rate limits and archive match what GitHub does."""

from __future__ import annotations

import gzip
import io
import tarfile
import time

import pytest
import requests
from github import Auth, Github, GithubException, RateLimitExceededException

from tests.fakes.fake_github import FakeGitHub

pytestmark = pytest.mark.contract


def get(fake: FakeGitHub, rest: str, etag: str | None = None) -> requests.Response:
    headers = {"Authorization": f"token {fake.token}"}
    if etag:
        headers["If-None-Match"] = etag
    return requests.get(f"{fake.repo_url}{rest}", headers=headers, timeout=5, allow_redirects=False)


def remaining(resp: requests.Response) -> int:
    return int(resp.headers["X-RateLimit-Remaining"])


@pytest.mark.parametrize("kind", ["ref", "tree", "blob"])
def test_a_matching_etag_gets_a_free_304(fake_github: FakeGitHub, kind: str) -> None:
    head = fake_github.head() or ""
    blob = fake_github.git.flat(fake_github.git.resolve_tree(head) or "")["README.md"][0]
    rest = {
        "ref": "/git/refs/heads/main",
        "tree": f"/git/trees/{head}?recursive=1",
        "blob": f"/git/blobs/{blob}",
    }
    first = get(fake_github, rest[kind])
    assert first.status_code == 200 and first.headers["ETag"]
    again = get(fake_github, rest[kind], first.headers["ETag"])
    assert again.status_code == 304 and again.content == b""
    assert remaining(again) == remaining(first)  # a 304 does not count
    assert get(fake_github, rest[kind], '"stale"').status_code == 200


def test_every_answer_reports_the_budget_and_spends_one(fake_github: FakeGitHub) -> None:
    one, two = get(fake_github, ""), get(fake_github, "")
    assert one.headers["X-RateLimit-Limit"] == "5000"
    assert remaining(one) - remaining(two) == 1
    assert abs(int(one.headers["X-RateLimit-Reset"]) - (time.time() + 3600)) < 60
    assert one.headers["X-RateLimit-Resource"] == "core"


def test_a_spent_budget_is_a_403_until_the_reset(fake_github: FakeGitHub) -> None:
    fake_github.budget.set(remaining=1, reset_in=1200)
    assert get(fake_github, "").status_code == 200
    spent = get(fake_github, "/git/refs/heads/main")
    assert spent.status_code == 403
    assert spent.json()["message"].startswith("API rate limit exceeded")
    assert remaining(spent) == 0 and int(spent.headers["X-RateLimit-Reset"]) > time.time() + 1100
    gh = Github(base_url=fake_github.url, auth=Auth.Token(fake_github.token), retry=None, lazy=True)
    with pytest.raises(RateLimitExceededException):
        gh.get_repo("octo/memory").get_git_ref("heads/main").update()
    fake_github.budget.set(remaining=0, reset_in=0)  # the window is over: a fresh budget
    assert get(fake_github, "").status_code == 200


def test_a_secondary_limit_says_when_to_retry(fake_github: FakeGitHub) -> None:
    fake_github.fail_next(1, "secondary", retry_after=30)
    resp = get(fake_github, "/git/refs/heads/main")
    assert resp.status_code == 403 and resp.headers["Retry-After"] == "30"
    assert "secondary rate limit" in resp.json()["message"]
    assert get(fake_github, "/git/refs/heads/main").status_code == 200


def test_the_tarball_redirects_to_an_archive_of_the_commit(fake_github: FakeGitHub) -> None:
    fake_github.commit_files({"memory/a/b.md": "b\n", "memory/c.md": "ç\n"}, "seed")
    head = fake_github.head() or ""
    gh = Github(base_url=fake_github.url, auth=Auth.Token(fake_github.token), retry=None, lazy=True)
    location = gh.get_repo("octo/memory").get_archive_link("tarball", "main")
    resp = requests.get(location, timeout=5)  # no Authorization: the URL carries its token
    assert resp.status_code == 200 and fake_github.counts["GET codeload"] == 1
    with tarfile.open(fileobj=io.BytesIO(gzip.decompress(resp.content))) as tar:
        assert tar.pax_headers["comment"] == head
        files = {
            m.name: (tar.extractfile(m) or io.BytesIO()).read().decode()
            for m in tar.getmembers()
            if m.isfile()
        }
        dirs = {m.name for m in tar.getmembers() if m.isdir()}
    top = f"octo-memory-{head[:7]}/"
    assert files == {top + p: t for p, t in fake_github.files().items()}
    assert {top.rstrip("/"), top + "memory", top + "memory/a"} <= dirs
    assert get(fake_github, f"/tarball/{head}").headers["Location"] == location  # by sha, too


def test_archive_urls_need_their_token_and_a_known_ref(fake_github: FakeGitHub) -> None:
    location = get(fake_github, "/tarball/main").headers["Location"]
    assert requests.get(location.split("?")[0] + "?token=wrong", timeout=5).status_code == 404
    assert get(fake_github, "/tarball/no-such-branch").status_code == 404
    gh = Github(base_url=fake_github.url, auth=Auth.Token(fake_github.token), retry=None, lazy=True)
    with pytest.raises(GithubException):
        gh.get_repo("octo/memory").get_archive_link("tarball", "no-such-branch")
