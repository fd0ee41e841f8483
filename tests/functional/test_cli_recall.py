"""`previously recall` and `previously maintain` in-process, on a memory folder."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import SAMPLE_ROOT as REPO_SAMPLE
from tests.fakes.slices import SAMPLE, slice_text
from tests.functional.cli_env import clean_env, run, write_slices

pytestmark = pytest.mark.functional


@pytest.fixture(autouse=True)
def no_model_provider(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without --no-model a configured provider would be asked: keep these tests on the floor."""
    clean_env(monkeypatch)


@pytest.fixture
def memory(tmp_path: Path) -> Path:
    return write_slices(tmp_path, SAMPLE)


def test_recall_prints_hits(memory: Path) -> None:
    code, out, err = run("recall", "beagle chewing shoes", "--memory", str(memory), "--k", "2", "--no-model")
    assert code == 0, err
    data = json.loads(out)
    assert list(data) == ["hits"]
    assert data["hits"][0]["slice_id"] == "2026-03-14-0900"
    assert set(data["hits"][0]) == {"slice_id", "relevance", "reason"}
    assert len(data["hits"]) <= 2
    assert "no search index yet" in err  # built in memory, said on stderr


def test_now_sets_the_clock_for_relative_dates(memory: Path) -> None:
    code, out, _ = run(
        "recall", "what did we talk about yesterday", "--memory", str(memory), "--now", "2026-05-03T09:00:00Z"
    )
    assert code == 0
    assert json.loads(out)["hits"][0]["slice_id"] == "2026-05-02-1830"
    code, out, _ = run(
        "recall", "what did we talk about yesterday", "--memory", str(memory), "--now", "2026-08-11T09:00:00Z"
    )
    assert json.loads(out)["hits"][0]["slice_id"] == "2026-08-10-1200"


def test_batch_answers_one_line_per_request(memory: Path) -> None:
    lines = [
        {"qid": "a", "question": "wedding in Lisbon", "k": 1, "memory_root": "ignored"},
        {"qid": "b", "question": "what happened yesterday", "now": "2026-03-15T10:00:00Z"},
        {"qid": "c", "question": "quarterly report"},
    ]
    stdin = "\n".join(json.dumps(x) for x in lines) + "\n\n"
    code, out, err = run("recall", "--batch", "--memory", str(memory), "--no-model", stdin=stdin)
    assert code == 0, err
    rows = [json.loads(line) for line in out.splitlines()]
    assert [r["qid"] for r in rows] == ["a", "b", "c"]
    assert [h["slice_id"] for h in rows[0]["hits"]] == ["2026-05-02-1830"]
    assert rows[1]["hits"][0]["slice_id"] == "2026-03-14-0900"
    assert rows[2]["hits"][0]["slice_id"] == "2026-07-28-0658"


def test_batch_keeps_going_past_a_bad_line(memory: Path) -> None:
    stdin = 'not json\n{"qid": "x", "question": 5}\n{"qid": "y", "question": "pixel"}\n'
    code, out, err = run("recall", "--batch", "--memory", str(memory), stdin=stdin)
    rows = [json.loads(line) for line in out.splitlines()]
    assert code == 1
    assert [r["qid"] for r in rows] == [None, "x", "y"]
    assert rows[0]["hits"] == [] and "error" in rows[0]
    assert rows[2]["hits"]
    assert "line 1" in err and "line 2" in err


def test_bad_arguments_are_clear_errors(memory: Path, tmp_path: Path) -> None:
    code, _, err = run("recall", "x", "--memory", str(memory), "--now", "yesterday-ish")
    assert code == 1 and "ISO-8601" in err
    code, _, err = run("recall", "--memory", str(memory))
    assert code == 1 and "--batch" in err
    code, _, err = run("recall", "x", "--memory", str(tmp_path / "nowhere"))
    assert code == 1 and "no memory at" in err


def test_maintain_builds_the_index_then_recall_uses_it(memory: Path) -> None:
    code, out, err = run("maintain", "--memory", str(memory), "--no-model", "--json")
    assert code == 0, err
    report = json.loads(out)["search_index"]
    assert report["rebuilt"] and report["slices"] == 5
    assert (memory / "memory/episodic/search/manifest.json").is_file()
    code, out, err = run("recall", "Lisbon", "--memory", str(memory))
    assert code == 0 and err == ""
    assert json.loads(out)["hits"][0]["slice_id"] == "2026-05-02-1830"
    # A slice that closes later is indexed by the next pass, and only it is re-read into the index.
    sid = "2026-08-11-0900"
    write_slices(memory, {sid: slice_text(sid, [("user", "kayak lesson on the lake")])})
    code, out, _ = run("maintain", "--memory", str(memory), "--json")
    report = json.loads(out)["search_index"]
    assert (report["rebuilt"], report["added"], report["slices"]) == (False, 1, 6)
    code, out, _ = run("maintain", "--memory", str(memory))
    assert code == 0 and "0 files written" in out


def test_an_empty_question_is_refused() -> None:
    code, out, err = run("recall", "   ", "--memory", str(REPO_SAMPLE))
    assert code == 1 and "the question is empty" in out + err
