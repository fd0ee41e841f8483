"""The repository archive the fake GitHub serves: what codeload.github.com sends for a tarball.

A gzip tar whose single top folder is `{owner}-{repo}-{sha7}/`, holding every file of the
commit (folders get their own entries), preceded by a pax global header whose comment is the
commit sha, as GitHub's archives are.
"""

from __future__ import annotations

import gzip
import io
import tarfile

from dulwich.objects import Blob, Commit

from tests.fakes.fake_git import BareRepo


def tarball(git: BareRepo, owner: str, name: str, commit_sha: str) -> bytes:
    """The gzip tarball of one commit."""
    commit = git.get(commit_sha)
    assert isinstance(commit, Commit)
    top = f"{owner}-{name}-{commit_sha[:7]}"
    raw = io.BytesIO()
    with tarfile.open(
        fileobj=raw, mode="w", format=tarfile.PAX_FORMAT, pax_headers={"comment": commit_sha}
    ) as tar:
        _add_dir(tar, top, commit.commit_time)
        seen: set[str] = set()
        for path, (sha, mode) in sorted(git.flat(commit.tree.decode()).items()):
            parts = path.split("/")
            for i in range(1, len(parts)):
                folder = "/".join(parts[:i])
                if folder not in seen:
                    seen.add(folder)
                    _add_dir(tar, f"{top}/{folder}", commit.commit_time)
            blob = git.get(sha)
            assert isinstance(blob, Blob)
            data = blob.as_raw_string()
            info = tarfile.TarInfo(f"{top}/{path}")
            info.size, info.mode, info.mtime = len(data), mode & 0o777, commit.commit_time
            tar.addfile(info, io.BytesIO(data))
    return gzip.compress(raw.getvalue(), compresslevel=6, mtime=0)


def _add_dir(tar: tarfile.TarFile, name: str, mtime: int) -> None:
    info = tarfile.TarInfo(name + "/")
    info.type, info.mode, info.mtime = tarfile.DIRTYPE, 0o775, mtime
    tar.addfile(info)
