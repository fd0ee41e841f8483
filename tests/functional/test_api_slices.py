"""Forget, edit and export over HTTP, on the sample memory in an in-memory store."""

from __future__ import annotations

import io
import zipfile

import pytest

from core.storage.demo import DemoStorage
from core.storage.memory import InMemoryStorage
from tests.functional.api_env import ApiEnv, make_env, same_origin
from tests.functional.forget_support import SAMPLE, sample_files

pytestmark = pytest.mark.functional
SLICE = "2025-02-08-1617"
CORE = "memory/episodic/slices/2025/02/08/1617/timeline/core.md"


def _env() -> ApiEnv:
    return make_env(storage=InMemoryStorage.from_texts(sample_files()))


def test_delete_a_slice_forgets_it_and_says_history_keeps_it() -> None:
    env = _env()
    r = env.client.delete(f"/api/slices/{SLICE}", headers=same_origin())
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["message"] == f"Forget slice {SLICE}" and body["whole_slice"] is True
    assert CORE in body["deleted"]
    assert "history" in body["history_note"].lower()
    assert CORE not in env.files()
    assert env.client.get(f"/api/slices/{SLICE}").status_code == 404
    assert SLICE not in [e["id"] for e in env.client.get("/api/timeline").json()["slices"]]


def test_delete_a_missing_slice_or_turn_is_404_with_a_clear_message() -> None:
    env = _env()
    r = env.client.delete("/api/slices/2030-01-01-0000", headers=same_origin())
    assert r.status_code == 404
    assert r.json() == {
        "error": "not_found",
        "message": "There is no slice 2030-01-01-0000; GET /api/timeline lists the slices that exist.",
    }
    r = env.client.delete(f"/api/slices/{SLICE}/turns/nope00", headers=same_origin())
    assert r.status_code == 404 and "has no turn nope00" in r.json()["message"]
    assert env.client.delete("/api/slices/not-an-id", headers=same_origin()).status_code == 400
    assert isinstance(env.storage, InMemoryStorage) and env.storage.commits == []


def test_delete_one_exchange() -> None:
    env = _env()
    turn = env.client.get(f"/api/slices/{SLICE}").json()["turns"][2]["turn_id"]
    r = env.client.delete(f"/api/slices/{SLICE}/turns/{turn}", headers=same_origin())
    assert r.status_code == 200, r.text
    assert r.json()["whole_slice"] is False
    ids = [t["turn_id"] for t in env.client.get(f"/api/slices/{SLICE}").json()["turns"]]
    assert turn not in ids and ids


def test_forget_needs_the_same_origin() -> None:
    env = _env()
    r = env.client.delete(f"/api/slices/{SLICE}", headers={"origin": "https://evil.example"})
    assert r.status_code == 403
    assert CORE in env.files()


def test_demo_refuses_forget_and_edit_as_read_only() -> None:
    env = make_env(storage=DemoStorage(SAMPLE))
    r = env.client.delete(f"/api/slices/{SLICE}", headers=same_origin())
    assert r.status_code == 409 and r.json()["error"] == "read_only"
    r = env.client.patch(f"/api/slices/{SLICE}", json={"focus": "x"}, headers=same_origin())
    assert r.status_code == 409 and r.json()["error"] == "read_only"


def test_patch_edits_marks_and_marks_a_loop_done() -> None:
    env = _env()
    before = env.client.get(f"/api/slices/{SLICE}").json()
    loop = before["open_loops"][0]
    r = env.client.patch(
        f"/api/slices/{SLICE}",
        json={"focus": "Moving-in day", "tags": ["house", "keys"], "done_loops": [loop]},
        headers=same_origin(),
    )
    assert r.status_code == 200, r.text
    after = r.json()
    assert after["focus"] == "Moving-in day" and after["tags"] == ["house", "keys"]
    assert after["marked_by"] == "user"
    assert loop not in after["open_loops"] and after["done_loops"] == [loop]
    assert after["summary"] == before["summary"]
    assert [t["content"] for t in after["turns"]] == [t["content"] for t in before["turns"]]
    entry = next(e for e in env.client.get("/api/timeline").json()["slices"] if e["id"] == SLICE)
    assert entry["focus"] == "Moving-in day"
    strands = env.client.get("/api/strands").json()["strands"]
    assert SLICE in strands["keys"] and SLICE not in strands.get("renovation", [])


@pytest.mark.parametrize(
    "body, needle",
    [
        ({"focus": "two\nlines"}, "one line"),
        ({"done_loops": ["not a loop"]}, "not an open loop"),
        ({"focus": "", "summary": ""}, "keeps a focus or a summary"),
        ({"tags": [""]}, "empty item"),
        ({"turns": []}, "turns"),
    ],
)
def test_patch_refuses_bad_input_and_writes_nothing(body: dict[str, object], needle: str) -> None:
    env = _env()
    text = env.files()[CORE]
    r = env.client.patch(f"/api/slices/{SLICE}", json=body, headers=same_origin())
    assert r.status_code == 400
    assert needle in r.text
    assert env.files()[CORE] == text


def test_slice_markdown_download() -> None:
    env = _env()
    r = env.client.get(f"/api/slices/{SLICE}/markdown")
    assert r.status_code == 200
    assert r.headers["content-disposition"] == f'attachment; filename="slice-{SLICE}.md"'
    assert r.text.startswith("# Completion day")
    assert "Keys!!! We're sitting on the floor of our own house eating chips." in r.text


def test_export_zip_round_trips_every_file_byte_for_byte() -> None:
    files = sample_files()
    files["memory/episodic/search/manifest.json"] = "{}"
    env = make_env(storage=InMemoryStorage.from_texts(files))
    r = env.client.get("/api/export")
    assert r.status_code == 200 and r.headers["content-type"] == "application/zip"
    with zipfile.ZipFile(io.BytesIO(r.content)) as zf:
        names = set(zf.namelist())
        got = {n: zf.read(n) for n in names if n.startswith("memory/")}
        note = zf.read("EXPORT.txt").decode()
    want = {p: t.encode("utf-8") for p, t in files.items() if not p.startswith("memory/episodic/search/")}
    assert got == want
    assert "rebuilds it" in note
    assert env.client.get("/api/export?search=true").content != r.content
