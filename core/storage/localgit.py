"""Git commits for a local memory folder that is a git repository (through the git CLI).

The files are already on disk when this runs, so a git failure never loses memory: it is
logged and the write stands. Only the batch's own paths are committed (`--only`), so
anything the user staged by hand stays staged and out of our commits.
"""

from __future__ import annotations

import contextlib
import logging
import os
import subprocess
from collections.abc import Sequence
from pathlib import Path

log = logging.getLogger(__name__)

DEFAULT_NAME = "Previously"
DEFAULT_EMAIL = "previously@localhost"
# The inter-process lock file LocalStorage keeps in the memory root.
LOCK_NAME = ".previously.lock"
LOCK_PATTERN = "/" + LOCK_NAME
# Inherited variables that would point git at another repository or index.
_FOREIGN_GIT_ENV = ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY", "GIT_PREFIX")


def is_git_repository(root: Path) -> bool:
    """Whether `root` is the top of a git working tree (holds `.git`, a folder or a file)."""
    return (root / ".git").exists()


class GitCommitter:
    """Commits exactly the given paths of one working tree with a message."""

    def __init__(self, root: Path, git: str = "git") -> None:
        self.root = root
        self.git = git
        self._identity: list[str] | None = None
        self._excluded = False
        self._env = {k: v for k, v in os.environ.items() if k not in _FOREIGN_GIT_ENV}
        self._env["GIT_TERMINAL_PROMPT"] = "0"

    def commit(self, paths: Sequence[str], message: str, deleted: Sequence[str] = ()) -> str | None:
        """Commit `paths` (written) and `deleted` (removed from disk) as one commit; the new HEAD
        sha, or None when git could not commit."""
        self._ignore_lock_file()
        pathspec = ["--pathspec-from-file=-", "--pathspec-file-nul"]
        try:
            paths = [*paths, *self._tracked(deleted)]  # an untracked removed file is not git's business
            if not paths:
                return self._head()
            spec = "\0".join(paths).encode("utf-8")
            self._run(["add", *pathspec], stdin=spec)
            if self._run(["diff", "--cached", "--quiet", *pathspec], stdin=spec, check=False) == 0:
                return self._head()
            args = [*self._identity_args(), "-c", "commit.gpgsign=false", "commit", "--quiet"]
            self._run([*args, "--no-verify", "-m", message, "--only", *pathspec], stdin=spec)
            return self._head()
        except (OSError, subprocess.CalledProcessError) as exc:
            detail = getattr(exc, "stderr", b"") or b""
            log.warning(
                "memory files were written but git could not commit them in %s: %s %s",
                self.root,
                exc,
                detail.decode("utf-8", "replace").strip(),
            )
            return None

    def _tracked(self, paths: Sequence[str]) -> list[str]:
        """Those of `paths` that git tracks."""
        if not paths:
            return []
        cmd = [self.git, "--literal-pathspecs", "-C", str(self.root), "ls-files", "-z", "--", *paths]
        out = subprocess.run(cmd, capture_output=True, env=self._env, check=True)
        return [p for p in out.stdout.decode("utf-8").split("\0") if p]

    def _ignore_lock_file(self) -> None:
        """Keep our lock file out of `git status` through the repository's local exclude list."""
        if self._excluded:
            return
        self._excluded = True
        info = self.root / ".git" / "info"
        if not info.parent.is_dir():
            return  # a worktree or submodule (.git is a file): leave its configuration alone
        exclude = info / "exclude"
        with contextlib.suppress(OSError):
            current = exclude.read_text(encoding="utf-8") if exclude.exists() else ""
            if LOCK_PATTERN not in current.splitlines():
                info.mkdir(exist_ok=True)
                sep = "" if not current or current.endswith("\n") else "\n"
                with exclude.open("a", encoding="utf-8") as fh:
                    fh.write(f"{sep}{LOCK_PATTERN}\n")

    def _head(self) -> str | None:
        out = subprocess.run(
            [self.git, "-C", str(self.root), "rev-parse", "--verify", "--quiet", "HEAD"],
            capture_output=True,
            env=self._env,
            check=False,
        )
        return out.stdout.decode().strip() or None

    def _identity_args(self) -> list[str]:
        """No `-c` overrides when git knows who commits; a default author when it does not."""
        if self._identity is None:
            known = all(
                self._run(["var", var], check=False) == 0
                for var in ("GIT_AUTHOR_IDENT", "GIT_COMMITTER_IDENT")
            )
            self._identity = (
                [] if known else ["-c", f"user.name={DEFAULT_NAME}", "-c", f"user.email={DEFAULT_EMAIL}"]
            )
        return self._identity

    def _run(self, args: list[str], stdin: bytes | None = None, check: bool = True) -> int:
        cmd = [self.git, "--literal-pathspecs", "-C", str(self.root), *args]
        done = subprocess.run(cmd, input=stdin, capture_output=True, env=self._env, check=check)
        return done.returncode
