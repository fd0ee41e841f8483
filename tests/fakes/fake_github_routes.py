"""The fake GitHub's route table: one small handler per Git Data API endpoint it serves."""

from __future__ import annotations

import base64
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from dulwich.objects import Blob, Commit, Tree

from tests.fakes.fake_git import FILE_MODE, GitDataError

if TYPE_CHECKING:
    from tests.fakes.fake_github import FakeGitHub

Params = dict[str, str]
Query = dict[str, list[str]]


@dataclass
class Response:
    status: int
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)


Handler = Callable[["FakeGitHub", Params, Query, Any, dict[str, str]], Response]


def b64(data: bytes) -> str:
    """Base64 wrapped at 60 characters, as GitHub sends blob contents."""
    raw = base64.b64encode(data).decode()
    return "\n".join(raw[i : i + 60] for i in range(0, len(raw), 60)) + "\n"


def get_repo(fake: FakeGitHub, p: Params, q: Query, data: Any, h: dict[str, str]) -> Response:
    return Response(
        200,
        {
            "id": 1,
            "name": fake.name,
            "full_name": f"{fake.owner}/{fake.name}",
            "owner": {"login": fake.owner},
            "private": True,
            "url": fake.repo_url,
            "html_url": f"{fake.url}/{fake.owner}/{fake.name}",
            "default_branch": fake.git.branch,
        },
    )


def get_ref(fake: FakeGitHub, p: Params, q: Query, data: Any, h: dict[str, str]) -> Response:
    sha = fake.git.head(p["b"])
    if sha is None:
        return Response(404, {"message": "Not Found"})
    etag = f'"ref-{sha}"'
    if (unchanged := conditional(h, etag)) is not None:
        return unchanged
    return Response(200, fake.ref_json(p["b"], sha), {"ETag": etag})


def patch_ref(fake: FakeGitHub, p: Params, q: Query, data: Any, h: dict[str, str]) -> Response:
    race = fake.pop_race()
    if race is not None:
        race(fake)  # another writer gets there first
    git, branch = fake.git, p["b"]
    with git.lock:
        current = git.head(branch)
        if current is None:
            raise GitDataError("Reference does not exist")
        new = str((data or {}).get("sha") or "")
        if not isinstance(git.get(new), Commit):
            raise GitDataError("Object does not exist")
        if not data.get("force") and not git.is_ancestor(current, new):
            raise GitDataError("Update is not a fast forward")
        if not git.move_branch(branch, current, new):
            raise GitDataError("Update is not a fast forward")
    return Response(200, fake.ref_json(branch, new))


def get_commit(fake: FakeGitHub, p: Params, q: Query, data: Any, h: dict[str, str]) -> Response:
    if not isinstance(fake.git.get(p["sha"]), Commit):
        raise GitDataError("No commit found for SHA: " + p["sha"], missing=True)
    return Response(200, fake.commit_json(p["sha"]))


def post_commit(fake: FakeGitHub, p: Params, q: Query, data: Any, h: dict[str, str]) -> Response:
    git = fake.git
    if not isinstance(git.get(str(data.get("tree"))), Tree):
        raise GitDataError("Tree SHA does not exist")
    parents = [str(x) for x in data.get("parents", [])]
    if not all(isinstance(git.get(x), Commit) for x in parents):
        raise GitDataError("Parent SHA does not exist or is not a commit object")
    sha = git.make_commit(data["tree"], parents, str(data.get("message", "")))
    return Response(201, fake.commit_json(sha))


def conditional(h: dict[str, str], etag: str) -> Response | None:
    """A 304 when the client already holds this version (`If-None-Match`), else None."""
    if etag in [t.strip() for t in h.get("if-none-match", "").split(",")]:
        return Response(304, None, {"ETag": etag})
    return None


def get_tree(fake: FakeGitHub, p: Params, q: Query, data: Any, h: dict[str, str]) -> Response:
    tree = fake.git.resolve_tree(p["sha"])
    if tree is None:
        return Response(404, {"message": "Not Found"})
    recursive = "recursive" in q
    etag = f'"tree-{tree}-{int(recursive)}-{fake.truncate_over}"'
    if (unchanged := conditional(h, etag)) is not None:
        return unchanged
    entries = list(fake.git.walk(tree, recursive))
    cap = fake.truncate_over
    truncated = recursive and cap is not None and len(entries) > cap
    body = fake.tree_json(tree, entries[:cap] if truncated else entries, truncated)
    return Response(200, body, {"ETag": etag})


def post_tree(fake: FakeGitHub, p: Params, q: Query, data: Any, h: dict[str, str]) -> Response:
    git = fake.git
    with git.lock:
        files: dict[str, tuple[str, int]] = {}
        if data.get("base_tree"):
            if not isinstance(git.get(data["base_tree"]), Tree):
                raise GitDataError("base_tree is not a valid tree oid")
            files = git.flat(data["base_tree"])
        for item in data.get("tree", []):
            _apply_tree_item(fake, files, item)
        sha = git.build_tree(files)
    return Response(201, fake.tree_json(sha, list(git.walk(sha, False)), False))


def _apply_tree_item(fake: FakeGitHub, files: dict[str, tuple[str, int]], item: dict[str, Any]) -> None:
    git, path = fake.git, str(item["path"])
    mode = int(str(item.get("mode", "100644")), 8)
    if "content" in item:
        files[path] = (git.add_blob(str(item["content"]).encode("utf-8")), mode)
    elif "sha" in item and item["sha"] is None:
        doomed = [k for k in files if k == path or k.startswith(path + "/")]
        if not doomed:
            raise GitDataError(f"tree.path {path} does not exist in base_tree, cannot delete it")
        for k in doomed:
            del files[k]
    elif isinstance(git.get(str(item.get("sha"))), Blob):
        files[path] = (str(item["sha"]), mode)
    elif isinstance(git.get(str(item.get("sha"))), Tree):
        for sub, (sha, sub_mode) in git.flat(str(item["sha"])).items():
            files[f"{path}/{sub}"] = (sha, sub_mode)
    else:
        raise GitDataError(f"tree.sha {item.get('sha')} is not a valid blob or tree")


def get_blob(fake: FakeGitHub, p: Params, q: Query, data: Any, h: dict[str, str]) -> Response:
    blob = fake.git.get(p["sha"])
    if not isinstance(blob, Blob):
        return Response(404, {"message": "Not Found"})
    etag = f'"blob-{p["sha"]}"'
    if (unchanged := conditional(h, etag)) is not None:
        return unchanged
    raw = blob.as_raw_string()
    body = {
        "sha": p["sha"],
        "node_id": f"B_{p['sha'][:12]}",
        "size": len(raw),
        "url": f"{fake.repo_url}/git/blobs/{p['sha']}",
        "content": b64(raw),
        "encoding": "base64",
    }
    return Response(200, body, {"ETag": etag})


def get_tarball(fake: FakeGitHub, p: Params, q: Query, data: Any, h: dict[str, str]) -> Response:
    """302 to a codeload-like URL serving the archive of the commit `ref` names."""
    ref = p.get("ref") or fake.git.branch
    obj = fake.git.get(ref) if len(ref) == 40 else None
    sha = ref if isinstance(obj, Commit) else fake.git.head(ref.removeprefix("refs/heads/"))
    if sha is None:
        return Response(404, {"message": "Not Found"})
    return Response(302, None, {"Location": fake.codeload_url(sha)})


def post_blob(fake: FakeGitHub, p: Params, q: Query, data: Any, h: dict[str, str]) -> Response:
    """As GitHub: `content` is UTF-8 text or, with `encoding: base64`, the bytes in base64."""
    content, encoding = data.get("content"), data.get("encoding", "utf-8")
    if not isinstance(content, str) or encoding not in ("utf-8", "base64"):
        raise GitDataError("content must be a string and encoding utf-8 or base64")
    try:
        raw = base64.b64decode(content, validate=True) if encoding == "base64" else content.encode("utf-8")
    except ValueError as exc:
        raise GitDataError("content is not valid Base64") from exc
    sha = fake.git.add_blob(raw)
    return Response(201, {"sha": sha, "url": f"{fake.repo_url}/git/blobs/{sha}"})


ROUTES: list[tuple[str, re.Pattern[str], str, Handler]] = [
    ("GET", re.compile(r"^/?$"), "GET /repos/{o}/{r}", get_repo),
    ("GET", re.compile(r"^/git/ref/heads/(?P<b>.+)$"), "GET /git/ref/heads/{b}", get_ref),
    ("GET", re.compile(r"^/git/refs/heads/(?P<b>.+)$"), "GET /git/refs/heads/{b}", get_ref),
    ("PATCH", re.compile(r"^/git/refs/heads/(?P<b>.+)$"), "PATCH /git/refs/heads/{b}", patch_ref),
    ("GET", re.compile(r"^/git/commits/(?P<sha>[^/]+)$"), "GET /git/commits/{sha}", get_commit),
    ("POST", re.compile(r"^/git/commits$"), "POST /git/commits", post_commit),
    ("GET", re.compile(r"^/git/trees/(?P<sha>.+)$"), "GET /git/trees/{sha}", get_tree),
    ("POST", re.compile(r"^/git/trees$"), "POST /git/trees", post_tree),
    ("GET", re.compile(r"^/git/blobs/(?P<sha>[^/]+)$"), "GET /git/blobs/{sha}", get_blob),
    ("POST", re.compile(r"^/git/blobs$"), "POST /git/blobs", post_blob),
    ("GET", re.compile(r"^/tarball(?:/(?P<ref>.+))?$"), "GET /tarball/{ref}", get_tarball),
]

__all__ = ["FILE_MODE", "ROUTES", "Handler", "Response", "b64"]
