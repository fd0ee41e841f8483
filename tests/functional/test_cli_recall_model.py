"""`previously recall` with a model configured: the worker scan answers, the floor backs it up."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core.agent.recall.scan import REPORT_TOOL
from tests.fakes.fake_model_server import FakeModelServer, Reply, ToolCall
from tests.fakes.slices import SAMPLE
from tests.functional.cli_env import fake_model_env, run, write_slices

pytestmark = pytest.mark.functional


@pytest.fixture
def memory(tmp_path: Path) -> Path:
    return write_slices(tmp_path, SAMPLE)


@pytest.fixture(autouse=True)
def model_env(monkeypatch: pytest.MonkeyPatch, fake_models: FakeModelServer) -> FakeModelServer:
    fake_model_env(monkeypatch, fake_models)
    return fake_models


def report(*hits: tuple[str, float]) -> Reply:
    found = [{"slice_id": sid, "relevance": rel, "reason": "worker"} for sid, rel in hits]
    return Reply(tool_calls=[ToolCall(REPORT_TOOL, {"hits": found, "confidence": 0.8})])


def test_the_worker_answers(fake_models: FakeModelServer, memory: Path) -> None:
    fake_models.enqueue(
        Reply(tool_calls=[ToolCall("searchMemory", {"query": "wedding"})]),
        report(("2026-05-02-1830", 0.9), ("2030-01-01-0000", 0.8), ("2026-03-14-0900", 0.2)),
    )
    code, out, err = run("recall", "my sister's wedding", "--memory", str(memory), "--k", "1")
    assert code == 0, err
    assert json.loads(out) == {
        "hits": [{"slice_id": "2026-05-02-1830", "relevance": 0.9, "reason": "worker"}]
    }
    assert len(fake_models.model_requests()) == 2


def test_no_model_flag_skips_the_worker(fake_models: FakeModelServer, memory: Path) -> None:
    code, out, _ = run("recall", "beagle chewing shoes", "--memory", str(memory), "--no-model")
    assert code == 0 and json.loads(out)["hits"][0]["slice_id"] == "2026-03-14-0900"
    assert fake_models.model_requests() == []


def test_a_failing_worker_falls_back_to_the_floor(fake_models: FakeModelServer, memory: Path) -> None:
    fake_models.enqueue(Reply.error(401, "key revoked"))
    code, out, err = run("recall", "beagle chewing shoes", "--memory", str(memory))
    assert code == 0
    assert json.loads(out)["hits"][0]["slice_id"] == "2026-03-14-0900"
    assert "note: The memory scan did not finish" in err and "key revoked" in err


def test_batch_runs_the_worker_per_question(fake_models: FakeModelServer, memory: Path) -> None:
    fake_models.enqueue(report(("2026-05-02-1830", 0.9)), report())
    lines = [
        {"qid": "a", "question": "wedding"},
        {"qid": "b", "question": "sailing", "now": "2026-09-01T00:00:00Z"},
    ]
    code, out, err = run(
        "recall", "--batch", "--memory", str(memory), stdin="\n".join(map(json.dumps, lines))
    )
    assert code == 0, err
    first, second = (json.loads(line) for line in out.splitlines())
    assert first == {
        "qid": "a",
        "hits": [{"slice_id": "2026-05-02-1830", "relevance": 0.9, "reason": "worker"}],
    }
    assert second == {"qid": "b", "hits": []}
    assert "nothing in memory matches" in err and "do not call recall" not in err  # said for a person
