"""Paths into a memory repository as validated values, and the per-file size caps.

The original *normalises* a requested path (decodes `%`-escapes, turns `\\` into `/`, resolves
`..`, drops leading slashes) and then checks an allow-list. We deliberately do not repair:
a path that normalisation would change is rejected, and every path the original denies is
denied too (docs/FORMAT.md, "Paths"). Storage backends accept only `MemoryPath` values; this
module sits below `core/memory` (which adds the layout helpers) so storage knows no memory format.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import unquote

from core.errors import FileTooLarge, PathDenied

ALLOWED_ROOTS = ("memory", "tasks", "sessions")
MAX_FILE_BYTES = 1_000_000
MAX_INDEX_BYTES = 50_000_000
_INDEX_FILES = frozenset(
    {
        "memory/episodic/timeline/index.json",
        "memory/episodic/timeline.md",
        "memory/episodic/strands.json",
        "memory/episodic/timeline/checked.json",
    }
)
_INDEX_DIRS = ("memory/episodic/timeline/index/",)  # the catalog's month files: a busy month is large

# The strand shards and their menu (`memory/episodic/strands/`): one strand under every slice
# is ~24 bytes a slice, so a shard can outgrow 1 MB as the single strands.json could.
_STRAND_FILES = re.compile(r"^memory/episodic/strands/[^/]+\.json\Z")

_PROTECTED = (
    re.compile(r"^memory/episodic/"),
    re.compile(r"(^|/)_index\.json$"),
    re.compile(r"(^|/)strands\.json$"),
)
# An allowed root, then non-empty segments that are not `.` or `..` (%, \\ and NUL are refused
# before this is tried): exactly the paths that normalise to themselves and are allowed.
_CANONICAL_RE = re.compile(r"(?:memory|tasks|sessions)(?:/(?!\.\.?(?:/|\Z))[^/]+)*")


def normalize(raw: str) -> str:
    """The original's normalisation (kept to explain decisions and run the vectors)."""
    try:
        decoded = unquote(raw, errors="strict")
    except UnicodeDecodeError:
        decoded = raw
    parts: list[str] = []
    for seg in decoded.replace("\\", "/").split("/"):
        if seg in ("", "."):
            continue
        if seg == "..":
            if parts:
                parts.pop()
            continue
        parts.append(seg)
    return "/".join(parts)


def original_allows(raw: str) -> bool:
    """Whether the original's allow-list accepts `raw` (after its normalisation)."""
    norm = normalize(raw)
    if not norm or norm.startswith("/") or re.match(r"^[A-Za-z]:", norm):
        return False
    return any(norm == root or norm.startswith(root + "/") for root in ALLOWED_ROOTS)


def is_protected(path: str) -> bool:
    """System-owned paths: slices, indexes, the card — written only by their own code paths."""
    return any(p.search(path) for p in _PROTECTED)


@dataclass(frozen=True, order=True)
class MemoryPath:
    """A repository-relative path that is already canonical and inside the allowed roots."""

    value: str

    def __post_init__(self) -> None:
        reason = _reject_reason(self.value)
        if reason:
            raise PathDenied(f'Path "{self.value}" is not allowed: {reason}.')

    def __str__(self) -> str:
        return self.value

    def __truediv__(self, child: str) -> MemoryPath:
        return MemoryPath(f"{self.value}/{child}")

    @property
    def protected(self) -> bool:
        return is_protected(self.value)

    @property
    def name(self) -> str:
        return self.value.rsplit("/", 1)[-1]

    @property
    def parent(self) -> str:
        return self.value.rsplit("/", 1)[0] if "/" in self.value else ""

    def is_under(self, prefix: MemoryPath | str) -> bool:
        p = str(prefix).rstrip("/")
        return self.value == p or self.value.startswith(p + "/")


def _reject_reason(raw: str) -> str | None:
    if not isinstance(raw, str) or not raw:
        return "it is empty"
    if "\x00" in raw:
        return "it contains a NUL byte"
    if "%" in raw:
        return "percent-escapes are not accepted; send the plain path"
    if "\\" in raw:
        return "use forward slashes"
    if raw.startswith("/"):
        return "paths are relative to the memory repository root"
    if _CANONICAL_RE.fullmatch(raw):  # the common case, without normalising twice
        return None
    if normalize(raw) != raw:
        return "it contains '.', '..' or empty segments"
    if not original_allows(raw):
        return "only memory/, tasks/ and sessions/ are reachable"
    return None


def check_path(raw: str) -> MemoryPath:
    """Validate a user- or model-supplied path (raises PathDenied with the reason)."""
    return MemoryPath(raw)


def writable_path(raw: str) -> MemoryPath:
    """A path a generic write tool may touch: allowed and not system-owned."""
    path = check_path(raw)
    if path.protected:
        raise PathDenied(
            f'Path "{raw}" is system-owned (slices, indexes and the user card change only '
            "through their own tools)."
        )
    return path


def size_limit(path: MemoryPath) -> int:
    """The cap on one file: 1 MB, but more for the indexes that grow with the whole archive.

    the catalog holds ~570 bytes per slice, so a 10,000-slice memory needs ~5 MB (an imported
    archive can put thousands in one month's file); those files
    are written only by their own code (never by a tool or a model) and rebuilt from the slices.
    """
    big = (
        path.value in _INDEX_FILES
        or path.value.startswith(_INDEX_DIRS)
        or bool(_STRAND_FILES.match(path.value))
    )
    return MAX_INDEX_BYTES if big else MAX_FILE_BYTES


def check_size(path: MemoryPath, content: str | bytes) -> None:
    """Enforce the size cap (`size_limit`) on one file's payload (a text's UTF-8 bytes)."""
    size = len(content.encode("utf-8") if isinstance(content, str) else content)
    if size > size_limit(path):
        raise too_large(path, size)


def too_large(path: MemoryPath, size: int) -> FileTooLarge:
    """The error for a file of `size` bytes over its cap: names the file, the size and the limit."""
    return FileTooLarge(
        f'File "{path}" is too large ({size} bytes; the limit is {size_limit(path)} bytes). '
        "Split it or shorten it."
    )
