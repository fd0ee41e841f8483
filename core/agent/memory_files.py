"""The guarded file tools: read, write and list the user's own files under memory/, tasks/, sessions/.

Reads reach every allowed path. Writes never reach what the system owns — slices, indexes, the
user card (the rule of `paths.writable_path`), the evolution layer (its own agent's) and the
settings file — and are capped at 1 MB. A write is queued in the turn's batch and saved with
the turn; nothing is committed here.
"""

from __future__ import annotations

from core.agent.tool_context import ToolContext
from core.errors import NotFound, PathDenied, ReadOnly
from core.memory import paths
from core.memory.evolution.paths import is_evolution_path

LIST_LIMIT = 200
_SYSTEM_FILES = frozenset({paths.CONFIG_JSON.value})
PATH_HINT = "Try a plain relative path under memory/, tasks/ or sessions/, e.g. memory/notes/ideas.md."


def _path(raw: str) -> paths.MemoryPath:
    """A validated path; a refusal says what a good path looks like."""
    try:
        return paths.check_path((raw or "").strip())
    except PathDenied as exc:
        raise PathDenied(f"{exc} {PATH_HINT}") from exc


def read_memory_file(ctx: ToolContext, path: str) -> str:
    """The text of one file; NotFound saying how to look around."""
    target = _path(path)
    text = ctx.reader.read(target)
    if text is None:
        parent = target.parent or target.value
        raise NotFound(f'There is no file "{target}". Try listMemoryFiles("{parent}") to see what is there.')
    return text


def write_memory_file(ctx: ToolContext, path: str, content: str) -> str:
    """Queue a whole-file write; refuses system-owned paths, oversize text, read-only contexts."""
    target = _path(path)
    if target.protected:  # the rule of `paths.writable_path`
        raise PathDenied(
            f'"{target}" is system-owned: slices, indexes and the user card change only through their '
            "own machinery. Keep notes elsewhere, e.g. memory/notes/…"
        )
    if is_evolution_path(target):
        raise PathDenied(
            f'"{target}" belongs to the evolution layer (direction, fitness, playbooks): only the evolution '
            "agent changes it, through its own tools, and the user on the Evolution page."
        )
    if target.value in _SYSTEM_FILES:
        raise PathDenied(f'"{target}" holds the settings; the user changes them in the settings screen.')
    if target.value in ("memory", "tasks", "sessions"):
        raise PathDenied(f'"{target}" is a folder. Name a file inside it, e.g. "{target}/notes.md".')
    paths.check_size(target, content)
    if ctx.batch is None:
        raise ReadOnly(
            "Files cannot be written here (a read-only context). Tell the user what you would save."
        )
    before = ctx.batch.read(target)
    ctx.batch.put(target, content)
    size = len(content.encode("utf-8"))
    verb = "replaces the previous version" if before is not None else "creates the file"
    return f"OK — {target} ({size} bytes) is saved with this turn; it {verb}."


def list_memory_files(ctx: ToolContext, prefix: str) -> str:
    """The files under a folder, one path a line (the first 200)."""
    base = _path((prefix or "memory").strip().rstrip("/") or "memory")
    found = ctx.reader.list(base)
    if not found:
        return f'No files under "{base}".'
    shown = [p.value for p in found[:LIST_LIMIT]]
    head = f'{len(found)} file{"s" if len(found) != 1 else ""} under "{base}"'
    if len(found) > LIST_LIMIT:
        head += f" (the first {LIST_LIMIT}; name a narrower folder for the rest)"
        if base.is_under(paths.SLICES) or paths.SLICES.is_under(base):
            head += ". For slices, readTimelineWindow is the better map"
    return "\n".join([head + ":", *shown])
