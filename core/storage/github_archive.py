"""Reading a whole commit in one request: GitHub's repository archive (`/tarball/{ref}`).

The API answers with a redirect to a short-lived download URL (codeload) that carries its own
token; the archive is a gzip tar with one top folder `{owner}-{repo}-{sha7}/`. An archive can
differ from the stored blobs (`.gitattributes` export rules), so a file is used only when its
git blob sha matches the tree listing's; any other file is simply read through the blob API.
"""

from __future__ import annotations

import io
import tarfile
from collections.abc import Iterator, Mapping

import requests

from core.storage.local import git_blob_sha

ARCHIVE_MAX_BYTES = 512 * 1024 * 1024  # a memory far beyond 10,000 slices; refuse anything larger


def download(url: str, timeout: float) -> bytes:
    """The archive bytes behind a codeload URL (no Authorization header: the URL holds a token)."""
    resp = requests.get(url, timeout=timeout, stream=True)
    resp.raise_for_status()
    chunks, total = [], 0
    for chunk in resp.iter_content(1 << 20):
        total += len(chunk)
        if total > ARCHIVE_MAX_BYTES:
            raise requests.RequestException("the repository archive is larger than 512 MB")
        chunks.append(chunk)
    return b"".join(chunks)


def matching_files(archive: bytes, wanted: Mapping[str, str]) -> Iterator[tuple[str, bytes]]:
    """(path, bytes) of each file of `archive` whose path is in `wanted` (path → blob sha) and
    whose content has exactly that sha."""
    with tarfile.open(fileobj=io.BytesIO(archive), mode="r:gz") as tar:
        for member in tar:
            if not member.isfile() or "/" not in member.name:
                continue
            path = member.name.split("/", 1)[1]  # below the `{owner}-{repo}-{sha7}/` folder
            sha = wanted.get(path)
            if sha is None:
                continue
            handle = tar.extractfile(member)
            data = handle.read() if handle else b""
            if git_blob_sha(data) == sha:
                yield path, data
