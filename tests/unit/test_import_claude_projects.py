"""The readers of a Claude export's `projects.json` and `memories.json`: texts kept word for word,
documents byte for byte, unknown keys ignored, missing keys fine, wrong types listed by place."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from core.clock import iso
from core.imports.claude_projects import Read, project_conversation, read_memories, read_projects
from core.imports.instructions import Instruction, new_card_lines
from core.memory.card.model import Card, render_card
from core.memory.paths import CARD
from core.storage.memory import InMemoryStorage

# Text a document may hold: fences, lines shaped like the slice format's own, U+2028 and other
# separators, CJK, emoji, and blank ends.
PIECES = st.sampled_from(
    [
        "```",
        "~~~",
        "## Turn AbC123 — 2024-01-01T00:00:00.000Z (user)",
        "---",
        "slice_id: 2024-01-01-0000",
        "%s {0} {name}",
        "<!-- note -->",
        "\u2028",
        "\u2029",
        "\r\n",
        "\n",
        "\t",
        "  ",
        "我们明天去京都吧",
        "日本語",
        "😀🍵",
        "\ufeff",
        "plain words",
    ]
)
DOC_TEXT = st.lists(PIECES | st.text(max_size=12), min_size=1, max_size=12).map("".join).filter(bool)


def _project(**kw: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "uuid": "p1",
        "name": "Garden",
        "description": "Raised beds.",
        "created_at": "2024-05-01T10:00:00Z",
        "updated_at": "2024-06-01T10:00:00Z",
        "prompt_template": "Answer briefly.",
        "docs": [],
    }
    return {**base, **kw}


def _read(raw: Any) -> Read:
    found = Read()
    read_projects(raw, found)
    return found


@settings(max_examples=150, deadline=None)
@given(content=DOC_TEXT, description=DOC_TEXT, prompt=DOC_TEXT)
def test_documents_are_kept_byte_for_byte_and_texts_word_for_word(
    content: str, description: str, prompt: str
) -> None:
    doc = {"uuid": "d1", "filename": "notes.md", "content": content, "created_at": "2024-05-01T10:00:00Z"}
    found = _read([_project(description=description, prompt_template=prompt, docs=[doc])])
    assert found.skipped == []
    [project] = found.projects
    assert project.docs[0].content == content
    conv = project_conversation(project)
    [attachment] = conv.attachments
    assert attachment.text.encode() == content.encode()
    [message] = conv.messages
    assert iso(message.timestamp) == "2024-05-01T10:00:00.000Z" and message.role == "user"
    if description:
        assert f"Description:\n\n{description}" in message.content
    if prompt:
        assert f"Instructions:\n\n{prompt}" in message.content
    assert message.content.endswith(attachment.link)


def test_unknown_keys_are_ignored_and_missing_ones_are_fine() -> None:
    found = _read(
        [
            {"uuid": "p1", "name": "Bare", "created_at": "2024-05-01T10:00:00Z", "colour": "green"},
            {"docs": [{"content": "only text"}], "updated_at": "2024-05-02T10:00:00Z", "is_starred": True},
        ]
    )
    assert found.skipped == []
    bare, nameless = found.projects
    assert (bare.name, bare.description, bare.prompt_template, bare.docs) == ("Bare", "", "", ())
    assert project_conversation(bare).messages[0].content == "Claude project: Bare"
    assert nameless.uuid == "projects.json[1]" and iso(nameless.created) == "2024-05-02T10:00:00.000Z"  # type: ignore[arg-type]
    assert nameless.docs[0].filename == "document-1"


def test_two_documents_with_one_name_get_two_files() -> None:
    docs = [
        {"uuid": "a", "filename": "plan.md", "content": "one"},
        {"uuid": "b", "filename": "plan.md", "content": "two"},
    ]
    [project] = _read([_project(docs=docs)]).projects
    first, second = project_conversation(project).attachments
    assert first.file_name != second.file_name and (first.text, second.text) == ("one", "two")


def test_wrong_types_are_listed_with_the_file_and_the_position() -> None:
    found = _read(
        [
            "not a project",
            _project(uuid="p2", name=7, docs=[3, {"filename": "a.md", "content": 5}, {"filename": "b.md"}]),
            _project(uuid="p3", docs="all of them"),
            _project(uuid="p4", created_at="yesterday", updated_at=None),
            _project(uuid="p5", docs=[{"filename": "empty.md", "content": ""}]),
        ]
    )
    listed = [str(s) for s in found.skipped]
    assert listed == [
        "projects.json[0]: the project — it is text, not an object",
        "projects.json[1]: field `name` — it is a number, not text",
        "projects.json[1].docs[0]: the document — it is a number, not an object",
        "projects.json[1].docs[1]: document a.md — field `content` is a number, not text",
        "projects.json[1].docs[2]: document b.md — it has no `content`",
        "projects.json[2]: field `docs` — it is text, not a list; no document was read",
        "projects.json[3]: field `created_at` — 'yesterday' is not an ISO time",
        "projects.json[3]: the project's slice and documents — it has no readable `created_at` or "
        "`updated_at` to place a slice at",
        "projects.json[4].docs[0]: document empty.md — it is empty",
    ]
    assert [p.uuid for p in found.projects] == ["p2", "p3", "p4", "p5"]
    assert found.projects[2].created is None and found.projects[2].prompt_template == "Answer briefly."


def test_a_file_of_the_wrong_shape_is_listed_not_read() -> None:
    assert [str(s) for s in _read("projects").skipped] == [
        "projects.json: the file — it holds text, not a list of projects"
    ]
    found = Read()
    read_memories(42, {}, found)
    assert [str(s) for s in found.skipped] == [
        "memories.json: the file — it holds a number, not a list of memories"
    ]


def test_memories_become_one_line_per_non_blank_line_named_by_their_project() -> None:
    found = Read()
    raw = [
        {
            "conversations_memory": "**Work**\n\n- Mara writes 日本語 😀\u2028still the same fact\n  \n",
            "project_memories": {"p1": "Tomatoes first.", "p9": "Unknown project."},
            "account_uuid": "acc",
            "whatever": [1, 2],
        },
        {"conversations_memory": None},
        "stray",
        {"conversations_memory": ["a list"], "project_memories": ["p1"]},
        {"project_memories": {"p1": 3}},
    ]
    read_memories(raw, {"p1": "Garden"}, found)
    assert found.memories == [
        ("Claude export, memory", "**Work**"),
        ("Claude export, memory", "- Mara writes 日本語 😀"),
        ("Claude export, memory", "still the same fact"),
        ('Claude export, memory of project "Garden"', "Tomatoes first."),
        ('Claude export, memory of project "p9"', "Unknown project."),
    ]
    assert [str(s) for s in found.skipped] == [
        "memories.json[2]: the memory — it is text, not an object",
        "memories.json[3]: the memory — it is a list, not text",
        "memories.json[3]: field `project_memories` — it is a list, not an object",
        "memories.json[4].project_memories['p1']: the memory — it is a number, not text",
    ]


def test_memory_lines_go_through_the_card_lines_path_and_a_line_the_card_would_hide_is_refused() -> None:
    storage = InMemoryStorage()
    have = "From the Claude export, memory: Already sorted"
    storage.files[CARD] = render_card(Card(updated="2026-01-01T00:00:00.000Z", unplaced=[have]))
    found = Read()
    read_memories(
        [{"conversations_memory": "Already sorted\nNew fact\nNew fact\nTea <!-- hidden --> please"}],
        {},
        found,
    )
    lines, refused = new_card_lines(storage.snapshot(), [Instruction(s, t) for s, t in found.memories])
    assert lines == ["From the Claude export, memory: New fact"]
    assert [str(r) for r in refused] == [
        "Claude export, memory: the line 'Tea <!-- hidden --> please' — the card would not read this "
        "line back as written (a card hides HTML comments)"
    ]
