"""A Claude export's projects and memories, end to end: each project one slice with its texts word
for word and its documents byte for byte beside it; memories as card lines; the CLI dry run and
the page's preview list them; importing again duplicates nothing; nothing is skipped unnamed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from core.imports.run import apply_plan, preview
from core.imports.source import ExportFile
from core.memory import paths
from core.memory.card.store import read_card
from core.memory.paths import CARD
from core.memory.slice.model import parse_core_md
from core.storage.memory import InMemoryStorage
from functions.cli import cmd_import  # noqa: F401 - registers the command
from functions.cli.app import app
from tests.fakes.exports import claude_corpus, write_zip
from tests.functional.api_env import make_env
from tests.functional.test_import_flow import CLOCK
from tests.functional.test_import_fuzz import JSON_VALUES, _paths, _swapped
from tests.unit.test_import_claude_projects import DOC_TEXT

pytestmark = pytest.mark.functional
NOTES = "# Bed plan\n\n```\n## Turn AbC123 — 2024-01-01T00:00:00.000Z (user)\n```\n番茄 🍅\u2028end  \n\n"
PROJECTS = [
    {
        "uuid": "p-garden",
        "name": "Garden",
        "description": "  Raised beds, year two.\n",
        "prompt_template": "Answer briefly.\nUse metric units.",
        "created_at": "2024-05-01T10:00:30.123Z",
        "updated_at": "2024-06-01T00:00:00Z",
        "docs": [
            {"uuid": "d1", "filename": "beds.md", "content": NOTES, "created_at": "2024-05-01T10:05:00Z"},
            {"uuid": "d2", "filename": "seeds.csv", "content": "name,days\r\nbean,60\r\n"},
            {"uuid": "d3", "filename": "blank.txt", "content": ""},
        ],
    },
    {"uuid": "p-undated", "name": "Undated", "prompt_template": "Be kind."},
]
MEMORIES = [
    {
        "conversations_memory": "**Work**\n- Mara restores clocks.\n\n- Tea <!-- x --> please",
        "project_memories": {"p-garden": "Tomatoes go in first."},
        "account_uuid": "acc-1",
    }
]
MEMORY_LINES = [
    "From the Claude export, memory: **Work**",
    "From the Claude export, memory: - Mara restores clocks.",
    'From the Claude export, memory of project "Garden": Tomatoes go in first.',
]


def _zip(
    tmp_path: Path, projects: Any = PROJECTS, memories: Any = MEMORIES, name: str = "claude.zip"
) -> Path:
    extra = {"projects.json": json.dumps(projects).encode(), "memories.json": json.dumps(memories).encode()}
    return write_zip(tmp_path / name, claude_corpus()[0], extra)


def _project_slice(storage: InMemoryStorage) -> tuple[str, str]:
    """(slice id, turn text) of the one project slice."""
    [(sid, text)] = [
        (s.slice_id, s.turns[0].content)
        for p, t in storage.files.items()
        if p.name == "core.md"
        and (s := parse_core_md(t)).extra.get("source", {}).get("conversation", "").startswith("project-")
    ]
    return sid, text


def test_a_project_becomes_a_slice_with_its_documents_and_memories_reach_the_card(tmp_path: Path) -> None:
    storage = InMemoryStorage()
    export = ExportFile(_zip(tmp_path), "claude")
    plan = preview(export, storage)
    data = plan.as_dict()
    assert data["projects"] == [
        {
            "project": "'Garden' (project-p-garden)",
            "documents": 2,
            "slice_id": "2024-05-01-1000",
            "action": "new",
        }
    ]
    assert (data["documents"], data["memory_lines"], data["conversations"]) == (2, 4, 2)
    assert data["card_lines"][-3:] == MEMORY_LINES
    skipped = "\n".join(data["skipped"])
    assert "projects.json[0].docs[2]: document blank.txt — it is empty" in skipped
    assert "projects.json[1]: the project's slice and documents — it has no readable" in skipped
    assert "the line '- Tea <!-- x --> please' — the card would not read this line back" in skipped
    assert not any(p.name == "core.md" for p in storage.files), "the preview writes nothing"

    apply_plan(export, plan, storage, CLOCK)
    sid, text = _project_slice(storage)
    assert sid == "2024-05-01-1000"
    assert text.startswith("Claude project: Garden\n\nDescription:\n\n  Raised beds, year two.\n\n\n")
    assert (
        "Instructions:\n\nAnswer briefly.\nUse metric units.\n\n"
        "Documents:\n\n[attachment: beds.md](attachments/" in text
    )
    folder = paths.slice_dir(sid) / "attachments"
    kept = {p.name.split("-", 1)[1]: t for p, t in storage.files.items() if str(p.parent) == str(folder)}
    assert kept == {"beds.md": NOTES, "seeds.csv.txt": "name,days\r\nbean,60\r\n"}
    assert all(f"attachments/{p.name}" in text for p in storage.files if str(p.parent) == str(folder))
    card = read_card(storage.snapshot()).card(CLOCK.now())
    assert card.unplaced[-3:] == MEMORY_LINES
    assert 'From the Claude export, project "Undated" instructions: Be kind.' in card.unplaced

    before = dict(storage.files)
    again = preview(export, storage)
    assert again.writes == 0 and again.projects[0].action == "unchanged" and again.card_lines == []
    apply_plan(export, again, storage, CLOCK)
    assert storage.files == before, "importing the same export again duplicates nothing"


@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck), database=None)
@given(content=DOC_TEXT, description=DOC_TEXT)
def test_any_document_and_description_read_back_exactly(
    tmp_path_factory: Any, content: str, description: str
) -> None:
    tmp_path = tmp_path_factory.mktemp("p")
    project = {**PROJECTS[0], "description": description, "docs": [{"filename": "a.md", "content": content}]}
    storage = InMemoryStorage()
    export = ExportFile(_zip(tmp_path, [project], []), "claude")
    apply_plan(export, preview(export, storage), storage, CLOCK)
    sid, text = _project_slice(storage)
    [stored] = [
        t for p, t in storage.files.items() if str(p.parent) == str(paths.slice_dir(sid) / "attachments")
    ]
    assert stored.encode() == content.encode()
    if description.strip():
        assert f"Description:\n\n{description}\n\nInstructions:" in text


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck), database=None)
@given(data=st.data(), value=JSON_VALUES)
def test_any_shape_of_projects_or_memories_is_read_or_listed_never_a_crash(
    tmp_path_factory: Any, data: st.DataObject, value: Any
) -> None:
    which = data.draw(st.sampled_from(["projects", "memories"]))
    document = PROJECTS if which == "projects" else MEMORIES
    where = data.draw(st.sampled_from(_paths(document)))
    changed = _swapped(document, where, value)
    kw = {"projects": changed} if which == "projects" else {"memories": changed}
    export = ExportFile(_zip(tmp_path_factory.mktemp("f"), **kw), "claude")
    plan = preview(export, InMemoryStorage())
    assert plan.conversations == 2  # the conversations import whatever the extra files hold


def _cli(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.output


def test_the_cli_dry_run_lists_projects_documents_and_memories_then_imports_once(tmp_path: Path) -> None:
    export, memory = _zip(tmp_path), tmp_path / "memory-root"
    code, out = _cli("import", "--format", "claude", str(export), "--memory", str(memory), "--dry-run")
    assert code == 0, out
    assert "project 'Garden' (project-p-garden): 2 documents → slice 2024-05-01-1000 (new)" in out
    assert "memories: 4 lines" in out and "Tomatoes go in first." in out
    assert "document blank.txt — it is empty" in out and "Nothing was written" in out
    code, out = _cli("import", "--format", "claude", str(export), "--memory", str(memory))
    assert code == 0, out
    assert "projects: 1, 2 documents kept beside their slices" in out
    assert "card: 5 lines added to its Unsorted section" in out
    attachments = sorted(memory.rglob("2024/05/01/1000/attachments/*"))
    assert [p.read_bytes() for p in attachments if p.name.endswith("beds.md")] == [NOTES.encode()]
    code, out = _cli("import", "--format", "claude", str(export), "--memory", str(memory))
    assert code == 0 and "nothing new to import" in out and "(unchanged)" in out


def test_the_page_preview_lists_projects_documents_card_lines_and_skips(tmp_path: Path) -> None:
    env = make_env()
    headers = {"origin": "http://testserver", "x-access-key": "correct horse battery staple"}
    body = _zip(tmp_path).read_bytes()
    shown = env.client.post(
        "/api/import/preview?format=claude&name=claude.zip", content=body, headers=headers
    )
    assert shown.status_code == 200, shown.text
    data = shown.json()
    assert [(p["project"], p["documents"], p["action"]) for p in data["projects"]] == [
        ("'Garden' (project-p-garden)", 2, "new")
    ]
    assert data["documents"] == 2 and data["memory_lines"] == 4 and data["card_lines"][-3:] == MEMORY_LINES
    assert any("blank.txt" in s for s in data["skipped"]) and data["skipped_reasons"]["it is empty"] == 1
    done = env.client.post(
        f"/api/import/accept?format=claude&name=claude.zip&digest={data['digest']}",
        content=body,
        headers=headers,
    )
    last = json.loads(done.text.splitlines()[-1])
    assert last["type"] == "done" and "2024-05-01-1000" in last["imported"], last
    assert "Tomatoes go in first." in env.storage.files[CARD]  # type: ignore[attr-defined]


def test_a_project_changed_in_a_newer_export_keeps_its_slice_and_says_what_is_not_imported(
    tmp_path: Path,
) -> None:
    storage = InMemoryStorage()
    first = ExportFile(_zip(tmp_path), "claude")
    apply_plan(first, preview(first, storage), storage, CLOCK)
    before = dict(storage.files)
    grown = json.loads(json.dumps(PROJECTS))
    grown[0]["docs"].append({"uuid": "d4", "filename": "later.md", "content": "Added later."})
    newer = ExportFile(_zip(tmp_path, grown, name="newer.zip"), "claude")
    plan = preview(newer, storage)
    assert plan.projects[0].action == "kept" and plan.writes == 0
    [note] = [str(s) for s in plan.skipped if "earlier version" in s.why]
    assert note.startswith(
        "'Garden' (project-p-garden): the project's new texts and documents — slice 2024-05-01-1000"
    )
    apply_plan(newer, plan, storage, CLOCK)
    assert storage.files == before, "the slice as it was is never overwritten"


def test_a_users_entry_that_is_not_an_object_is_listed(tmp_path: Path) -> None:
    extra = {"users.json": b'["someone", {"conversation_preferences": "Short answers."}]'}
    export = ExportFile(write_zip(tmp_path / "u.zip", claude_corpus()[0], extra), "claude")
    plan = preview(export, InMemoryStorage())
    assert plan.card_lines == ["From the Claude export, your conversation preferences: Short answers."]
    assert "users.json[0]: the account — it is not an object; no profile text was read" in [
        str(s) for s in plan.skipped
    ]
