"""A Claude export's `projects.json` and `memories.json`, read as plain values.

A project becomes one "imported project" slice: a single turn at the project's `created_at`
holding its name, its description and its instructions (`prompt_template`) word for word, with
each of its documents (`docs`) kept byte for byte as an attachment file of that slice and linked
from the turn. A memory (`conversations_memory`, and each of `project_memories`) becomes card
lines, one per non-blank line, offered to the card's Unsorted section like profile text
(`core/imports/instructions.py`).

The readers are tolerant: unknown keys are ignored and missing ones are fine. A value of the
wrong type is never a crash and never silent: what it held is left out and listed as skipped,
naming the file and the position (`projects.json[2].docs[0]: field content is int, not text`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from core.clock import parse_iso
from core.imports.model import Attachment, Conversation, Message, Skipped
from core.text import js_trim

TOOL = "claude"
PROJECTS_JSON = "projects.json"
MEMORIES_JSON = "memories.json"
PROJECT_PREFIX = "project-"  # a project slice's `source.conversation` is this and the project's uuid
_LABEL_CHARS = 120


@dataclass(frozen=True)
class ProjectDoc:
    """One document of a project, its text as exported."""

    key: str
    filename: str
    content: str


@dataclass(frozen=True)
class Project:
    """One entry of `projects.json` that has something to keep."""

    uuid: str
    name: str
    description: str
    prompt_template: str
    created: datetime | None  # None: no slice can be placed (its instructions still reach the card)
    docs: tuple[ProjectDoc, ...]

    @property
    def label(self) -> str:
        name = self.name if len(self.name) <= _LABEL_CHARS else self.name[:_LABEL_CHARS] + "…"
        return f"{name!r} ({self.uuid[:_LABEL_CHARS]})" if name else self.uuid[:_LABEL_CHARS]


@dataclass
class Read:
    """What a reader found, and what it left out and why."""

    projects: list[Project] = field(default_factory=list)
    memories: list[tuple[str, str]] = field(default_factory=list)  # (where it came from, line)
    skipped: list[Skipped] = field(default_factory=list)

    def skip(self, where: str, what: str, why: str) -> None:
        self.skipped.append(Skipped(where, what, why))


def read_projects(raw: Any, found: Read, name: str = PROJECTS_JSON) -> None:
    """Every project of a parsed `projects.json` into `found` (a lone object counts as a list)."""
    if raw is None:
        return
    entries = [raw] if isinstance(raw, dict) else raw
    if not isinstance(entries, list):
        found.skip(name, "the file", f"it holds {_kind(raw)}, not a list of projects")
        return
    for i, entry in enumerate(entries):
        project = _project(entry, f"{name}[{i}]", found)
        if project is not None:
            found.projects.append(project)


def _project(entry: Any, where: str, found: Read) -> Project | None:
    if not isinstance(entry, dict):
        found.skip(where, "the project", f"it is {_kind(entry)}, not an object")
        return None
    uuid = _text(entry, "uuid", where, found) or where
    texts = {k: _text(entry, k, where, found) for k in ("name", "description", "prompt_template")}
    docs = _docs(entry.get("docs"), where, found)
    if not docs and not any(js_trim(t) for t in texts.values()):
        found.skip(where, "the project", "it holds no name, description, instructions or document")
        return None
    created = _time(entry, where, found)
    if created is None:
        why = "it has no readable `created_at` or `updated_at` to place a slice at"
        found.skip(where, "the project's slice and documents", why)
    return Project(uuid, texts["name"], texts["description"], texts["prompt_template"], created, docs)


def _docs(raw: Any, where: str, found: Read) -> tuple[ProjectDoc, ...]:
    if raw is None:
        return ()
    if not isinstance(raw, list):
        found.skip(where, "field `docs`", f"it is {_kind(raw)}, not a list; no document was read")
        return ()
    out: list[ProjectDoc] = []
    for j, doc in enumerate(raw):
        at = f"{where}.docs[{j}]"
        if not isinstance(doc, dict):
            found.skip(at, "the document", f"it is {_kind(doc)}, not an object")
            continue
        filename = _text(doc, "filename", at, found) or f"document-{j + 1}"
        content = doc.get("content")
        if not isinstance(content, str):
            why = f"field `content` is {_kind(content)}, not text"
            why = "it has no `content`" if content is None else why
            found.skip(at, f"document {filename}", why)
        elif not content:
            found.skip(at, f"document {filename}", "it is empty")
        elif not _utf8(content):
            found.skip(at, f"document {filename}", "its text holds a broken character (a lone surrogate)")
        else:
            out.append(ProjectDoc(_text(doc, "uuid", at, found) or str(j), filename, content))
    return tuple(out)


def _time(entry: dict[str, Any], where: str, found: Read) -> datetime | None:
    for key in ("created_at", "updated_at"):
        value = entry.get(key)
        if value is None:
            continue
        try:
            if isinstance(value, str):
                return parse_iso(value)
        except ValueError:
            pass
        found.skip(where, f"field `{key}`", f"{value!r} is not an ISO time")
    return None


def read_memories(raw: Any, names: dict[str, str], found: Read, name: str = MEMORIES_JSON) -> None:
    """Every memory line of a parsed `memories.json` into `found`; `names` maps project uuids to names."""
    if raw is None:
        return
    entries = [raw] if isinstance(raw, dict) else raw
    if not isinstance(entries, list):
        found.skip(name, "the file", f"it holds {_kind(raw)}, not a list of memories")
        return
    for i, entry in enumerate(entries):
        where = f"{name}[{i}]"
        if not isinstance(entry, dict):
            found.skip(where, "the memory", f"it is {_kind(entry)}, not an object")
            continue
        _memory_lines(entry.get("conversations_memory"), "Claude export, memory", where, found)
        per_project = entry.get("project_memories")
        if per_project is None:
            continue
        if not isinstance(per_project, dict):
            found.skip(where, "field `project_memories`", f"it is {_kind(per_project)}, not an object")
            continue
        for uuid, text in per_project.items():
            label = names.get(uuid) or uuid
            source = f'Claude export, memory of project "{label}"'
            _memory_lines(text, source, f"{where}.project_memories[{uuid!r}]", found)


def _memory_lines(text: Any, source: str, where: str, found: Read) -> None:
    if text is None:
        return
    if not isinstance(text, str):
        found.skip(where, "the memory", f"it is {_kind(text)}, not text")
        return
    found.memories += [(source, line) for line in text.splitlines() if js_trim(line)]


def project_conversation(project: Project) -> Conversation:
    """The project as a one-message conversation: its texts word for word, its documents attached."""
    conv = Conversation(TOOL, PROJECT_PREFIX + project.uuid, project.name, kind="project")
    message_id = PROJECT_PREFIX + project.uuid
    conv.attachments = [Attachment(message_id, d.filename, d.content, d.key) for d in project.docs]
    parts = [f"Claude project: {project.name}" if js_trim(project.name) else "Claude project"]
    # Any text that is not empty is kept as written (a lone BOM or blank lines are words too).
    if project.description:
        parts.append(f"Description:\n\n{project.description}")
    if project.prompt_template:
        parts.append(f"Instructions:\n\n{project.prompt_template}")
    if conv.attachments:
        parts.append("Documents:\n\n" + "\n".join(a.link for a in conv.attachments))
    if project.created is None:
        raise ValueError(f"project {project.label} has no time to be placed at")
    conv.messages.append(Message(message_id, "user", project.created, "\n\n".join(parts)))
    return conv


def _text(entry: dict[str, Any], key: str, where: str, found: Read) -> str:
    """A text field ("" when absent); another type is listed as skipped and read as ""."""
    value = entry.get(key)
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    found.skip(where, f"field `{key}`", f"it is {_kind(value)}, not text")
    return ""


def _utf8(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _kind(value: Any) -> str:
    names = {dict: "an object", list: "a list", str: "text", bool: "true/false", int: "a number"}
    return names.get(type(value), "a number" if isinstance(value, float) else "null")
