"""The fake GitHub answers the Git Data API the way GitHub does (checked through PyGithub)."""

from __future__ import annotations

import pytest
from github import Auth, Github, GithubException, InputGitTreeElement
from github.GitRef import GitRef
from github.Repository import Repository

from tests.fakes.fake_github import FakeGitHub

pytestmark = pytest.mark.contract


def client(fake: FakeGitHub, token: str | None = None) -> Github:
    token = token or fake.token
    return Github(
        base_url=fake.url, auth=Auth.Token(token), retry=None, lazy=True, seconds_between_writes=None
    )


def main_ref(repo: Repository) -> GitRef:
    """The branch ref, fetched: a lazy ref would PATCH the singular /git/ref/ URL it was built with."""
    ref = repo.get_git_ref("heads/main")
    ref.update()
    return ref


def test_trees_commits_and_refs_build_real_git_history(fake_github: FakeGitHub) -> None:
    fake_github.commit_files({"memory/a/b.md": "b\n", "memory/gone.md": "x\n"}, "seed")
    repo = client(fake_github).get_repo("octo/memory")
    head = repo.get_git_commit(fake_github.head() or "")
    blob = repo.create_git_blob("raw bytes", "utf-8")
    tree = repo.create_git_tree(
        [
            InputGitTreeElement("memory/new/deep/c.md", "100644", "blob", content="c\n"),
            InputGitTreeElement("memory/raw.md", "100644", "blob", sha=blob.sha),
            InputGitTreeElement("memory/gone.md", "100644", "blob", sha=None),
        ],
        base_tree=head.tree,
    )
    commit = repo.create_git_commit("Turn t1 — housekeeping", tree, [head])
    assert commit.url.startswith(fake_github.url)
    main_ref(repo).edit(commit.sha, force=False)
    assert fake_github.files() == {
        "README.md": "# memory\n",
        "memory/a/b.md": "b\n",
        "memory/new/deep/c.md": "c\n",
        "memory/raw.md": "raw bytes",
    }
    assert [c.message for c in fake_github.log()] == ["Turn t1 — housekeeping", "seed", "Initial commit"]
    listing = repo.get_git_tree("main", recursive=True)  # a branch name is accepted, like GitHub
    assert {e.path for e in listing.tree if e.type == "blob"} == set(fake_github.files())
    assert repo.get_git_blob(blob.sha).content.replace("\n", "") == "cmF3IGJ5dGVz"


def test_a_non_fast_forward_ref_update_is_refused(fake_github: FakeGitHub) -> None:
    repo = client(fake_github).get_repo("octo/memory")
    old = repo.get_git_commit(fake_github.head() or "")
    fake_github.commit_files({"memory/x.md": "x\n"}, "moved on")
    stale = repo.create_git_commit("stale", old.tree, [old])
    with pytest.raises(GithubException) as err:
        main_ref(repo).edit(stale.sha, force=False)
    assert err.value.status == 422 and "not a fast forward" in err.value.data["message"]
    assert fake_github.log()[0].message == "moved on"


def test_deleting_a_missing_path_is_refused(fake_github: FakeGitHub) -> None:
    repo = client(fake_github).get_repo("octo/memory")
    head = repo.get_git_commit(fake_github.head() or "")
    with pytest.raises(GithubException) as err:
        repo.create_git_tree([InputGitTreeElement("memory/none.md", "100644", "blob", sha=None)], head.tree)
    assert err.value.status == 422


def test_ref_reads_carry_an_etag_and_answer_304_when_unchanged(fake_github: FakeGitHub) -> None:
    ref = client(fake_github).get_repo("octo/memory").get_git_ref("heads/main")
    assert ref.update() is True
    assert ref.update() is False
    fake_github.commit_files({"memory/x.md": "x\n"})
    assert ref.update() is True and ref.object.sha == fake_github.head()


def test_wrong_token_and_other_repositories_are_refused(fake_github: FakeGitHub) -> None:
    with pytest.raises(GithubException) as err:
        _ = client(fake_github, token="nope").get_repo("octo/memory").default_branch
    assert err.value.status == 401
    with pytest.raises(GithubException) as err:
        _ = client(fake_github).get_repo("octo/other").default_branch
    assert err.value.status == 404
    assert fake_github.counts["GET /repos/{o}/{r}"] == 2
