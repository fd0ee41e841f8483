"""The read routes over the sample persona and over an empty memory; flush; search."""

from __future__ import annotations

import pytest

from core.storage.demo import DemoStorage
from core.storage.memory import InMemoryStorage
from tests.conftest import SAMPLE_ROOT
from tests.functional.api_env import FakeModels, FakeSearch, make_env, same_origin

pytestmark = pytest.mark.functional


@pytest.fixture(scope="module")
def sample_env():  # type: ignore[no-untyped-def]
    return make_env(storage=DemoStorage(SAMPLE_ROOT))


def test_state_of_an_empty_memory_is_empty_and_says_what_to_set_up() -> None:
    env = make_env(models=FakeModels(configured=False))
    data = env.client.get("/api/state").json()
    assert data["name"] is None and data["last_topic"] is None
    assert data["open_loops"] == [] and data["suggestions"] == [] and data["card_excerpt"] is None
    assert data["active"] is None and data["recent"] == []
    assert data["flags"]["model_configured"] is False
    assert len(data["setup"]) == 1 and "No model provider" in data["setup"][0]  # no empty-memory note
    in_chinese = env.client.get("/api/state?locale=zh").json()["setup"]
    assert len(in_chinese) == 1 and "模型" in in_chinese[0] and "OPENAI_BASE_URL" in in_chinese[0]


def test_state_of_the_sample_is_its_briefing(sample_env) -> None:  # type: ignore[no-untyped-def]
    data = sample_env.client.get("/api/state?tz=Europe/London").json()
    timeline = sample_env.client.get("/api/timeline").json()["slices"]
    newest = timeline[-1]
    assert data["name"] == "Nell Marchetti"
    assert data["last_topic"] == newest["focus"]
    assert data["open_loops"] == newest["open_loops"][:4]
    labels = [s["label"] for s in data["suggestions"]]
    assert labels[0].startswith("Continue: ") and "Show my open threads" in labels
    assert all(len(label) <= 30 for label in labels)
    assert newest["focus"] in data["suggestions"][0]["prompt"]
    assert data["flags"]["demo"] is True and data["setup"] == []
    assert "## Now" in data["card_excerpt"]


def test_state_refuses_an_unknown_timezone(sample_env) -> None:  # type: ignore[no-untyped-def]
    r = sample_env.client.get("/api/state?tz=Not/AZone")
    assert r.status_code == 400 and "IANA" in r.json()["message"]


def test_timeline_is_oldest_first(sample_env) -> None:  # type: ignore[no-untyped-def]
    data = sample_env.client.get("/api/timeline").json()
    ids = [s["id"] for s in data["slices"]]
    assert data["total"] == len(ids) == 50
    assert ids == sorted(ids)


def test_timeline_answers_a_window_and_the_whole_span_by_month(sample_env) -> None:  # type: ignore[no-untyped-def]
    whole = [s["id"] for s in sample_env.client.get("/api/timeline").json()["slices"]]
    newest = sample_env.client.get("/api/timeline?limit=10").json()
    assert [s["id"] for s in newest["slices"]] == whole[-10:]
    assert newest["total"] == 50 and newest["offset"] == 40
    assert sum(m["count"] for m in newest["months"]) == 50
    assert [m["month"] for m in newest["months"]] == sorted({i[:7] for i in whole})
    older = sample_env.client.get(f"/api/timeline?before={whole[40]}&limit=15").json()
    assert [s["id"] for s in older["slices"]] == whole[25:40] and older["offset"] == 25
    newer = sample_env.client.get(f"/api/timeline?after={whole[45]}").json()
    assert [s["id"] for s in newer["slices"]] == whole[46:] and newer["offset"] == 46
    around = sample_env.client.get(f"/api/timeline?around={whole[20]}&limit=5").json()
    assert [s["id"] for s in around["slices"]] == whole[18:23]


@pytest.mark.parametrize(
    ("query", "status", "words"),
    [
        ("limit=0", 400, "limit"),
        ("limit=100000", 400, "limit"),
        ("before=yesterday", 400, "before"),
        ("before=2026-01-01-0000&after=2026-01-01-0000", 400, "at most one"),
        ("around=2030-01-01-0000", 404, "no slice 2030-01-01-0000"),
    ],
)
def test_timeline_refuses_a_bad_window(sample_env, query, status, words) -> None:  # type: ignore[no-untyped-def]
    r = sample_env.client.get(f"/api/timeline?{query}")
    assert r.status_code == status and words in r.json()["message"]


def test_slice_has_turns_cognition_and_snapshot(sample_env) -> None:  # type: ignore[no-untyped-def]
    data = sample_env.client.get("/api/slices/2026-11-21-1040").json()
    assert data["status"] == "closed" and len(data["turns"]) == 8
    agent_turns = [t for t in data["turns"] if t["role"] == "agent"]
    assert agent_turns and all(t["cognition"] for t in agent_turns)
    assert all(t["cognition"] is None for t in data["turns"] if t["role"] == "user")
    assert data["previously"].startswith("# Previously On")


@pytest.mark.parametrize(
    ("slice_id", "status"),
    [
        ("2030-01-01-0000", 404),
        ("2026-11-21", 400),
        ("..%2F..%2Fetc%2Fpasswd", 404),
        ("2026-11-21-1040%2F..", 404),
        ("2026-11-21-104O", 400),
        ("%2e%2e", 400),
    ],
)
def test_slice_ids_with_traversal_or_a_bad_format(sample_env, slice_id: str, status: int) -> None:  # type: ignore[no-untyped-def]
    r = sample_env.client.get(f"/api/slices/{slice_id}")
    assert r.status_code == status
    assert set(r.json()) == {"error", "message"}


def test_slice_with_broken_yaml_still_shows_its_turns() -> None:
    core = "---\nfocus: [unclosed\n---\n\n## Turn a1 — 2026-08-11T11:15:00.000Z (user)\n\nhello"
    storage = InMemoryStorage.from_texts({"memory/episodic/slices/2026/08/11/1115/timeline/core.md": core})
    data = make_env(storage=storage).client.get("/api/slices/2026-08-11-1115").json()
    assert [t["content"] for t in data["turns"]] == ["hello"]
    assert data["problem"]


def test_strands_map_to_slice_ids(sample_env) -> None:  # type: ignore[no-untyped-def]
    strands = sample_env.client.get("/api/strands").json()["strands"]
    assert "2024-08-04-1932" in strands["work"]


def test_search_passes_the_query_and_adds_the_focus(sample_env) -> None:  # type: ignore[no-untyped-def]
    search = FakeSearch(hits=[{"slice_id": "2026-11-21-1040", "relevance": 0.9, "reason": "matched flights"}])
    env = make_env(storage=DemoStorage(SAMPLE_ROOT), search=search)
    data = env.client.get("/api/search", params={"q": "flights", "k": 3}).json()
    assert search.queries == ["flights"]
    assert data["hits"][0]["focus"].startswith("The flight deadline")
    assert env.client.get("/api/search").status_code == 400
    assert env.client.get("/api/search?q=x&k=0").status_code == 400


def test_search_with_the_real_floor_finds_the_sample() -> None:
    from functions.compose.deps import KeptIndex

    env = make_env(storage=DemoStorage(SAMPLE_ROOT), search=KeptIndex())  # type: ignore[arg-type]
    hits = env.client.get("/api/search?q=Chengdu flights").json()["hits"]
    assert "2026-11-21-1040" in [h["slice_id"] for h in hits]


def test_models_without_a_provider_say_how_to_configure() -> None:
    data = make_env(models=FakeModels(configured=False)).client.get("/api/models").json()
    assert data["configured"] is False and data["main"] is None
    assert "No model provider" in data["setup"]


def test_flush_in_demo_writes_nothing(sample_env) -> None:  # type: ignore[no-untyped-def]
    body = {"sliceId": "2026-07-10-1430", "turns": [{"role": "user", "content": "x", "timestamp": "t"}]}
    r = sample_env.client.post("/api/episodic/flush", json=body, headers=same_origin())
    assert r.json() == {"success": True, "demo": True}
    assert sample_env.storage.overlay_paths == []


def test_the_open_slice_counts_the_turns_on_disk_not_the_catalogs_first_count() -> None:
    from core.clock import parse_iso
    from core.memory.catalog.index import stored_index_text
    from core.memory.catalog.weave import weave_timeline
    from core.memory.paths import core_md
    from core.storage.base import WriteBatch

    sid = "2026-08-11-1100"
    head = f'---\nslice_id: "{sid}"\nstatus: active\nstart: "2026-08-11T11:00:00.000Z"\n---\n\n'
    turn = "## Turn {r}{i} — 2026-08-11T11:0{i}:00.000Z ({role})\n\n{role} {i}\n\n"
    storage = InMemoryStorage.from_texts({str(core_md(sid)): head + turn.format(r="u", i=0, role="user")})
    batch = WriteBatch.open(storage)
    weave_timeline(batch, parse_iso("2026-08-11T11:01:00Z"), force=True)
    batch.commit("weave")
    assert '"turn_count": 1' in (stored_index_text(storage.snapshot()) or "")
    body = "".join(
        turn.format(r=r, i=i, role=role) for i in range(4) for r, role in (("u", "user"), ("a", "agent"))
    )
    batch = WriteBatch.open(storage)
    batch.put(core_md(sid), head + body)
    batch.commit("four exchanges")
    data = make_env(storage=storage).client.get("/api/timeline").json()
    assert [(s["id"], s["turn_count"]) for s in data["slices"]] == [(sid, 8)]


def test_strands_can_answer_counts_only(sample_env) -> None:  # type: ignore[no-untyped-def]
    whole = sample_env.client.get("/api/strands").json()["strands"]
    counted = sample_env.client.get("/api/strands?counts=true").json()
    assert counted["strands"] == {} and counted["counts"] == {k: len(v) for k, v in whole.items()}


def test_strands_answer_one_strand_by_name(sample_env) -> None:  # type: ignore[no-untyped-def]
    whole = sample_env.client.get("/api/strands").json()["strands"]
    name = max(whole, key=lambda k: len(whole[k]))
    one = sample_env.client.get("/api/strands", params={"name": name}).json()
    assert one["strands"] == {name: whole[name]}
    assert sample_env.client.get("/api/strands", params={"name": "no such strand"}).json()["strands"] == {}
    assert sample_env.client.get("/api/strands", params={"name": ""}).status_code == 400
