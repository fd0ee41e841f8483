"""Git tree objects by their sha: the hash git gives a tree, and a GitHub tree answer kept by
sha, checked against that sha before it is used again (a damaged or planted one is a miss)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from typing import Any

# Past this a tree answer is not kept by sha (the commit's listing holds it already).
TREE_KEEP_MAX = 1024 * 1024
_MODES = {"tree": "40000", "commit": "160000"}


def git_tree_sha(items: Iterable[tuple[str, str, str]]) -> str | None:
    """The sha1 git gives a tree of (name, mode, sha) entries (None for non-sha1 ids)."""
    body = bytearray()

    def key(item: tuple[str, str, str]) -> bytes:
        name = item[0].encode("utf-8")
        return name + b"/" if item[1].lstrip("0") == "40000" else name

    for name, mode, sha in sorted(items, key=key):
        if len(sha) != 40:
            return None
        body += f"{mode.lstrip('0')} {name}".encode() + b"\0" + bytes.fromhex(sha)
    return hashlib.sha1(b"tree %d\0" % len(body) + bytes(body), usedforsecurity=False).hexdigest()


def answer_sound(sha: str, answer: Mapping[str, Any], recursive: bool) -> bool:
    """Whether a tree answer (GitHub's JSON: `sha`, `tree`, `truncated`) is the tree `sha` names:
    every folder in it hashed bottom-up, as git would."""
    try:
        if answer.get("sha") != sha or answer.get("truncated"):
            return False
        levels: dict[str, list[tuple[str, str, str]]] = {"": []}
        claimed: dict[str, str] = {"": sha}
        for e in answer["tree"]:
            path, kind = str(e["path"]), str(e["type"])
            parent, _, name = path.rpartition("/")
            if not recursive and parent:
                return False
            levels.setdefault(parent, []).append((name, _MODES.get(kind, str(e["mode"])), str(e["sha"])))
            if kind == "tree":
                claimed[path] = str(e["sha"])
                levels.setdefault(path, [])
        if not recursive:
            return git_tree_sha(levels[""]) == sha
        return all(
            folder in claimed and git_tree_sha(items) == claimed[folder] for folder, items in levels.items()
        )
    except (KeyError, TypeError, ValueError, AttributeError):
        return False


def answer_bytes(answer: Mapping[str, Any]) -> bytes | None:
    """A tree answer as it is kept: the fields a listing uses (None: truncated or too large)."""
    if answer.get("truncated"):
        return None
    keys = ("path", "mode", "type", "sha", "size")
    tree = [[e.get(k) for k in keys] for e in answer["tree"]]
    body = json.dumps({"sha": answer["sha"], "tree": tree}, separators=(",", ":")).encode()
    return body if len(body) <= TREE_KEEP_MAX else None


def parse_answer(sha: str, data: bytes | None, recursive: bool) -> dict[str, Any] | None:
    """A kept tree answer read back, when it is the tree `sha` names; None otherwise."""
    if data is None:
        return None
    try:
        body = json.loads(data)
        keys = ("path", "mode", "type", "sha", "size")
        answer = {
            "sha": body["sha"],
            "truncated": False,
            "tree": [dict(zip(keys, e, strict=True)) for e in body["tree"]],
        }
    except (ValueError, KeyError, TypeError):
        return None
    return answer if answer_sound(sha, answer, recursive) else None
