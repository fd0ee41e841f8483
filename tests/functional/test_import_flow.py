"""Importing exports end to end: preview, accept, read back through the API, import again."""

from __future__ import annotations

import io
import json
from datetime import timedelta
from pathlib import Path

import pytest
from PIL import Image

from core.clock import FixedClock, iso, parse_iso
from core.errors import InvalidInput
from core.imports import run, source
from core.imports.run import apply_plan, preview
from core.imports.source import ExportFile
from core.media.attach import read_image
from core.media.images import Upload, prepare_image
from core.memory import paths
from core.memory.formats import matter
from core.memory.slice.model import parse_core_md
from core.storage.memory import InMemoryStorage
from tests.fakes.exports import (
    CAT_FILE,
    T0,
    ChatGPTConversation,
    Visible,
    cat_png,
    chatgpt_corpus,
    claude_corpus,
    write_zip,
)
from tests.functional.api_env import make_env

pytestmark = pytest.mark.functional
CLOCK = FixedClock.at("2026-08-11T11:15:00.000Z")


def _import(storage: InMemoryStorage, path: Path, fmt: str) -> run.ImportReport:
    export = ExportFile(path, fmt)
    return apply_plan(export, preview(export, storage), storage, CLOCK)


def _gpt_zip(tmp_path: Path, convs: list[dict], name: str = "gpt.zip") -> Path:
    return write_zip(tmp_path / name, convs, {"file-AbC123-cat.png": b"\x89PNG"})


def _core_files(storage: InMemoryStorage) -> dict[str, str]:
    return {str(p): t for p, t in storage.files.items() if p.name == "core.md"}


@pytest.mark.parametrize("fmt", ["chatgpt", "claude"])
def test_every_visible_message_reads_back_verbatim_with_its_time_and_role(tmp_path: Path, fmt: str) -> None:
    convs, visible = chatgpt_corpus() if fmt == "chatgpt" else claude_corpus()
    storage = InMemoryStorage()
    env = make_env(storage=storage)
    path = _gpt_zip(tmp_path, convs) if fmt == "chatgpt" else write_zip(tmp_path / "c.zip", convs)
    report = _import(storage, path, fmt)
    got: dict[str, list[Visible]] = {}
    for slice_id in sorted(report.imported):
        view = env.client.get(f"/api/slices/{slice_id}").json()
        conv_id = parse_core_md(storage.files[paths.core_md(slice_id)]).extra["source"]["conversation"]
        got.setdefault(conv_id, []).extend(
            Visible(t["role"], parse_iso(t["timestamp"]), t["content"]) for t in view["turns"]
        )
    ids = [c.get("conversation_id") or c.get("uuid") for c in convs]
    assert got == dict(zip(ids, visible, strict=True))
    for text in _core_files(storage).values():  # the original's framing reads each one too
        data = matter.load_text(text)
        assert data["status"] == "closed" and data["source"]["tool"] == fmt


def test_slices_follow_the_live_rules_and_conversations_never_share_one(tmp_path: Path) -> None:
    storage = InMemoryStorage()
    report = _import(storage, _gpt_zip(tmp_path, chatgpt_corpus()[0]), "chatgpt")
    # Kyoto opens at 09:01; the overlapping conversation also starts at 09:01, so it takes 09:02.
    # Kyoto resumed a week later is a slice of its own (time cap).
    assert sorted(report.imported) == [
        "2024-03-04-0901",
        "2024-03-04-0902",
        "2024-03-04-0910",
        "2024-03-11-0900",
    ]
    for path, text in _core_files(storage).items():
        s = parse_core_md(text)
        assert s.status == "closed" and s.closed_by == "time_cap" and s.marked_by == "fallback"
        assert s.start == s.turns[0].timestamp and s.end == s.turns[-1].timestamp
        data = matter.load_text(text)  # gray-matter's framing + js-yaml, as the original reads it
        assert data["source"]["tool"] == "chatgpt" and data["slice_id"] == s.slice_id, path
    overlap = parse_core_md(storage.files[paths.core_md("2024-03-04-0902")])
    assert overlap.start == iso(T0 + timedelta(minutes=1, seconds=20))
    assert overlap.extra["source"] == {"tool": "chatgpt", "conversation": "c-overlap", "title": "Same minute"}
    appendix = storage.files[paths.appendix_md("2024-03-04-0901")]
    assert "An answer that was regenerated." in appendix and "What about Nara?" in appendix


def test_time_cap_and_capacity_from_config_cut_a_long_conversation(tmp_path: Path) -> None:
    c = ChatGPTConversation("c-long", "Long")
    for i in range(18):  # three hours, a message every ten minutes
        c.say("user" if i % 2 == 0 else "assistant", f"message {i}", T0 + timedelta(minutes=10 * i))
    storage = InMemoryStorage.from_texts(
        {"memory/user/config.json": json.dumps({"slicing": {"maxSliceMinutes": 30, "maxTurnsPerSlice": 5}})}
    )
    _import(storage, _gpt_zip(tmp_path, [c.export()]), "chatgpt")
    slices = sorted((parse_core_md(t) for t in _core_files(storage).values()), key=lambda s: s.start)
    assert [len(s.turns) for s in slices] == [4, 4, 4, 4, 2]  # a user turn at +30 min opens the next
    assert [s.closed_by for s in slices] == ["time_cap"] * 5
    storage = InMemoryStorage.from_texts(
        {"memory/user/config.json": json.dumps({"slicing": {"maxSliceMinutes": 120, "maxTurnsPerSlice": 5}})}
    )
    _import(storage, _gpt_zip(tmp_path, [c.export()]), "chatgpt")
    slices = sorted((parse_core_md(t) for t in _core_files(storage).values()), key=lambda s: s.start)
    assert [len(s.turns) for s in slices] == [6, 6, 6]  # closes at the first user turn once 5 are in
    assert [s.closed_by for s in slices] == ["capacity", "capacity", "time_cap"]
    assert all(s.turns[0].role == "user" for s in slices)


def test_reimport_is_byte_identical_and_order_does_not_matter(tmp_path: Path) -> None:
    convs = chatgpt_corpus()[0]
    storage = InMemoryStorage()
    _import(storage, _gpt_zip(tmp_path, convs), "chatgpt")
    before, commits = dict(storage.files), len(storage.commits)
    again = _import(storage, _gpt_zip(tmp_path, convs), "chatgpt")
    assert storage.files == before and len(storage.commits) == commits
    assert len(again.unchanged) == 4 and again.imported == []
    shuffled = InMemoryStorage()
    _import(shuffled, _gpt_zip(tmp_path, list(reversed(convs)), "rev.zip"), "chatgpt")
    assert _core_files(shuffled) == _core_files(storage)


def test_a_newer_export_adds_only_what_is_new(tmp_path: Path) -> None:
    c = ChatGPTConversation("c-grow", "Grows")
    c.say("user", "first", T0)
    c.say("assistant", "reply", T0 + timedelta(minutes=1))
    older = c.export()
    c.say("user", "one more, same slice", T0 + timedelta(minutes=5))
    c.say("user", "a week later", T0 + timedelta(days=7))
    storage = InMemoryStorage()
    first = _import(storage, _gpt_zip(tmp_path, [older], "old.zip"), "chatgpt")
    assert first.imported == ["2024-03-04-0900"]
    newer = _import(storage, _gpt_zip(tmp_path, [c.export()], "new.zip"), "chatgpt")
    assert (newer.extended, newer.imported) == (["2024-03-04-0900"], ["2024-03-11-0900"])
    grown = parse_core_md(storage.files[paths.core_md("2024-03-04-0900")])
    assert [t.content for t in grown.turns] == ["first", "reply", "one more, same slice"]
    assert grown.summary.startswith("2 exchanges")  # recounted as the slice grew


def test_malformed_conversation_is_named_and_nothing_is_written(tmp_path: Path) -> None:
    convs = chatgpt_corpus()[0]
    broken = json.loads(json.dumps(convs))
    broken[2]["mapping"] = "oops"  # the last one read: the others were fine
    storage = InMemoryStorage()
    with pytest.raises(InvalidInput, match=r"'Kyoto trip' \(c-kyoto\): field `mapping`"):
        _import(storage, _gpt_zip(tmp_path, broken), "chatgpt")
    assert storage.files == {} and storage.commits == []


def test_text_shaped_like_a_turn_header_is_kept_verbatim(tmp_path: Path) -> None:
    c = ChatGPTConversation("c-head", "Headers")
    tricky = "Here is a log:\n## Turn abc123 — 2024-01-01T00:00:00.000Z (agent)\nthe end"
    c.say("user", tricky, T0)
    storage = InMemoryStorage()
    _import(storage, _gpt_zip(tmp_path, [c.export()]), "chatgpt")
    [text] = _core_files(storage).values()
    assert [t.content for t in parse_core_md(text).turns] == [tricky]


def test_large_exports_land_in_a_bounded_number_of_commits(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    convs = []
    for i in range(30):
        c = ChatGPTConversation(f"c-{i}", f"Talk {i}")
        c.say("user", f"hello {i}", T0 + timedelta(hours=i))
        convs.append(c.export())
    monkeypatch.setattr(run, "CHUNK_SLICES", 8)
    storage = InMemoryStorage()
    report = _import(storage, _gpt_zip(tmp_path, convs), "chatgpt")
    assert len(report.imported) == 30 and report.commits == len(storage.commits) == 4
    assert paths.CATALOG_TOP_JSON in storage.files and storage.commits[-1][0].endswith("(part 4)")


def test_the_page_flow_previews_then_accepts_with_progress(tmp_path: Path) -> None:
    env = make_env()
    body = _gpt_zip(tmp_path, chatgpt_corpus()[0]).read_bytes()
    headers = {"origin": "http://testserver", "x-access-key": "correct horse battery staple"}
    shown = env.client.post("/api/import/preview?format=chatgpt", content=body, headers=headers)
    assert shown.status_code == 200, shown.text
    data = shown.json()
    assert (data["conversations"], data["slices"]["new"], data["writes"]) == (3, 4, 4)
    assert data["first"] == "2024-03-04T09:01:00.000Z" and env.storage.commits == []  # type: ignore[attr-defined]
    stale = env.client.post(
        "/api/import/accept?format=chatgpt&digest=00000000", content=body, headers=headers
    )
    assert json.loads(stale.text.splitlines()[-1])["error"] == "conflict"
    done = env.client.post(
        f"/api/import/accept?format=chatgpt&digest={data['digest']}", content=body, headers=headers
    )
    lines = [json.loads(x) for x in done.text.splitlines()]
    assert lines[-1]["type"] == "done" and len(lines[-1]["imported"]) == 4
    assert any(x["type"] == "progress" and x["phase"] == "write" for x in lines)
    again = env.client.post("/api/import/preview?format=chatgpt", content=body, headers=headers).json()
    assert again["writes"] == 0 and again["slices"]["unchanged"] == 4


def test_the_page_refuses_a_wrong_format_and_an_empty_upload() -> None:
    env = make_env()
    headers = {"origin": "http://testserver", "x-access-key": "correct horse battery staple"}
    empty = env.client.post("/api/import/preview?format=chatgpt", content=b"", headers=headers)
    assert empty.status_code == 400 and "empty" in empty.json()["message"]
    wrong = env.client.post(
        "/api/import/preview?format=claude", content=b'{"not": "a list"}', headers=headers
    )
    assert wrong.status_code == 400 and "JSON list" in wrong.json()["message"]


def test_a_large_export_is_read_in_bounded_memory(tmp_path: Path) -> None:
    import tracemalloc

    from tests.fakes.exports import write_big_chatgpt

    big = write_big_chatgpt(tmp_path / "conversations.json", conversations=2000, message_chars=1500)
    size = big.stat().st_size
    assert size > 20_000_000
    tracemalloc.start()
    try:
        plan = preview(ExportFile(big, "chatgpt"), InMemoryStorage())
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert plan.conversations == 2000 and plan.counts["new"] == 2000
    # The reader holds a window of the file, not the file: the peak stays far below its size.
    assert peak < 10_000_000 < size, f"peak {peak} bytes for a {size}-byte export"


def test_read_only_memory_previews_but_refuses_to_accept(tmp_path: Path) -> None:
    env = make_env(storage=InMemoryStorage(read_only=True))
    body = _gpt_zip(tmp_path, chatgpt_corpus()[0]).read_bytes()
    headers = {"origin": "http://testserver", "x-access-key": "correct horse battery staple"}
    plan = env.client.post("/api/import/preview?format=chatgpt", content=body, headers=headers).json()
    done = env.client.post(
        f"/api/import/accept?format=chatgpt&digest={plan['digest']}", content=body, headers=headers
    )
    last = json.loads(done.text.splitlines()[-1])
    assert (last["type"], last["error"]) == ("error", "read_only")
    assert env.files() == {}


def test_a_conversation_with_nothing_to_show_is_reported_not_written(tmp_path: Path) -> None:
    c = ChatGPTConversation("c-empty", "Only hidden")
    c.add("user", {"user_profile": "x"}, T0, content_type="user_editable_context", hidden=True)
    storage = InMemoryStorage()
    plan = preview(ExportFile(_gpt_zip(tmp_path, [c.export()]), "chatgpt"), storage)
    assert plan.slices == [] and "1 hidden rows are not imported" in str(plan.skipped[-1])


def test_preview_rows_carry_the_conversations_title_or_nothing(tmp_path: Path) -> None:
    """The page names a planned slice by its conversation's title, by its id when it has none."""
    titled = ChatGPTConversation("6a1f0c2e-93b4-4d6e-8f10-2b7c9d3e4a51", "chat 7")
    titled.add("user", "thinking about jazz", T0)
    untitled = ChatGPTConversation("c-untitled", "  ")
    untitled.add("user", "no title here", T0 + timedelta(days=1))
    env = make_env()
    body = _gpt_zip(tmp_path, [titled.export(), untitled.export()]).read_bytes()
    headers = {"origin": "http://testserver", "x-access-key": "correct horse battery staple"}
    plan = env.client.post("/api/import/preview?format=chatgpt", content=body, headers=headers).json()
    rows = {r["slice_id"]: (r["title"], r["conversation"]) for r in plan["planned"]}
    assert rows == {
        "2024-03-04-0900": ("chat 7", "'chat 7' (6a1f0c2e-93b4-4d6e-8f10-2b7c9d3e4a51)"),
        "2024-03-05-0900": ("", "c-untitled"),
    }


def test_a_markdown_upload_is_named_by_its_file_so_accept_matches_the_preview() -> None:
    env = make_env()
    body = "## user — 2024-05-01T10:00:00Z\nHello\n## assistant — 2024-05-01T10:00:30Z\nHi\n".encode()
    headers = {"origin": "http://testserver", "x-access-key": "correct horse battery staple"}
    query = "format=markdown&name=diary.md"
    plan = env.client.post(f"/api/import/preview?{query}", content=body, headers=headers).json()
    assert plan["planned"][0]["conversation"] == "diary" and plan["file"] == "diary.md"
    done = env.client.post(
        f"/api/import/accept?{query}&digest={plan['digest']}", content=body, headers=headers
    )
    assert json.loads(done.text.splitlines()[-1])["imported"] == ["2024-05-01-1000"]


def _photo_slice(storage: InMemoryStorage) -> str:
    for text in _core_files(storage).values():
        if "[image: " in text and "c-photo" in text:
            return parse_core_md(text).slice_id
    raise AssertionError("no slice holds the photo")


def _images(storage: InMemoryStorage) -> dict[str, str | bytes]:
    return {str(p): t for p, t in storage.files.items() if "/images/" in str(p)}


def test_a_chatgpt_image_is_stored_without_exif_beside_its_slice_and_linked(tmp_path: Path) -> None:
    path = write_zip(tmp_path / "gpt.zip", chatgpt_corpus()[0], {CAT_FILE: cat_png()})
    storage = InMemoryStorage()
    export = ExportFile(path, "chatgpt")
    plan = preview(export, storage)
    assert plan.images == 1 and plan.as_dict()["images"] == 1
    assert not any("image" in s.what for s in plan.skipped)
    commits = len(storage.commits)
    apply_plan(export, plan, storage, CLOCK)
    slice_id = _photo_slice(storage)
    turn = parse_core_md(storage.files[paths.core_md(slice_id)]).turns[0]
    name = f"{turn.turn_id}-1.png"
    assert (
        turn.content == f"What is in this picture?\n\n[image: {CAT_FILE}]\n\n![{CAT_FILE}](../images/{name})"
    )
    stored = storage.files[paths.slice_dir(slice_id) / f"images/{name}"]
    assert stored == prepare_image(Upload(CAT_FILE, cat_png())).raw  # as a chat attachment
    data, media_type = read_image(storage.snapshot(), slice_id, name)
    assert stored == data and media_type == "image/png"
    clean = Image.open(io.BytesIO(data))
    assert clean.format == "PNG" and clean.size == (24, 16)
    assert dict(clean.getexif()) == {} and "exif" not in clean.info and b"Mara Quinn" not in data
    assert list(_images(storage)) == [str(paths.slice_dir(slice_id) / f"images/{name}")]
    # the picture is saved in the commit that creates its slice
    [(_, first)] = storage.commits[commits:]
    assert paths.core_md(slice_id) in first and paths.slice_dir(slice_id) / f"images/{name}" in first
    before, n = dict(storage.files), len(storage.commits)
    again = _import(
        storage, write_zip(tmp_path / "again.zip", chatgpt_corpus()[0], {CAT_FILE: cat_png()}), "chatgpt"
    )
    assert storage.files == before and len(storage.commits) == n and again.imported == []


def test_user_and_assistant_images_of_one_turn_id_get_their_own_numbers(tmp_path: Path) -> None:
    c = ChatGPTConversation("c-two", "Two pictures")
    pointer = {"content_type": "image_asset_pointer", "asset_pointer": "file-service://file-AbC123"}
    c.add("user", ["Look", pointer], T0, content_type="multimodal_text")
    c.add("assistant", ["Here is mine", dict(pointer, asset_pointer="file-service://file-Zz9")],
          T0 + timedelta(seconds=5), content_type="multimodal_text")  # fmt: skip
    storage = InMemoryStorage()
    _import(
        storage,
        write_zip(tmp_path / "two.zip", [c.export()], {CAT_FILE: cat_png(), "file-Zz9.png": cat_png()}),
        "chatgpt",
    )
    s = parse_core_md(storage.files[paths.core_md("2024-03-04-0900")])
    tid = s.turns[0].turn_id
    assert s.turns[1].turn_id == tid
    assert s.turns[0].content.endswith(f"![{CAT_FILE}](../images/{tid}-1.png)")
    assert s.turns[1].content.endswith(f"![file-Zz9.png](../images/{tid}-2.png)")
    assert sorted(_images(storage)) == [
        str(paths.slice_dir("2024-03-04-0900") / f"images/{tid}-{n}.png") for n in (1, 2)
    ]


@pytest.mark.parametrize(
    ("extra", "why"),
    [
        ({}, "not in the export"),
        ({CAT_FILE: b"\x89PNG not really"}, "not an image that can be read"),
        ({CAT_FILE: b"GIF89a" + b"x" * 64}, "not an image that can be read"),
        ({CAT_FILE: "big"}, "the limit is"),
    ],
)
def test_an_image_that_cannot_be_stored_stays_named_and_is_skipped_with_the_reason(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, extra: dict, why: str
) -> None:
    if extra.get(CAT_FILE) == "big":
        monkeypatch.setattr(source, "MAX_UPLOAD", 100)
        extra = {CAT_FILE: cat_png()}
    storage = InMemoryStorage()
    export = ExportFile(write_zip(tmp_path / "gpt.zip", chatgpt_corpus()[0], extra), "chatgpt")
    plan = preview(export, storage)
    assert plan.images == 0
    [skip] = [s for s in plan.skipped if s.what.startswith("image ")]
    shown = CAT_FILE if extra else "file-service://file-AbC123"  # a missing file keeps its pointer
    assert skip.what == f"image {shown}" and why in skip.why and "the turn names it" in skip.why
    apply_plan(export, plan, storage, CLOCK)
    turn = parse_core_md(storage.files[paths.core_md(_photo_slice(storage))]).turns[0]
    assert turn.content == f"What is in this picture?\n\n[image: {shown}]"
    assert "![" not in turn.content and _images(storage) == {}
