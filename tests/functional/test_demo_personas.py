"""The demo's personas: `?persona=` or the picker's cookie chooses whose memory a request sees;
each persona's writes stay in its own overlay; bad choices get a clear answer, never a 500."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from core.memory import paths
from core.storage.demo import DemoStorage
from functions.api.app import create_app
from functions.compose import demo as deps_module
from functions.compose.demo import PERSONA_COOKIE, VISITOR_COOKIE
from functions.compose.deps import Deps
from functions.compose.local import build_deps
from functions.settings import load_settings
from tests.fakes.brain import Brain
from tests.fakes.fake_model_server import FakeModelServer
from tests.functional.api_env import HOST, same_origin

pytestmark = pytest.mark.functional


@pytest.fixture(autouse=True)
def _answers_the_test_host(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PREVIOUSLY_PUBLIC_HOSTS", HOST)  # the TestClient's host name


def _tree_digest(root: Path) -> str:
    digest = hashlib.sha256()
    for p in sorted(root.rglob("*")):
        if p.is_file():
            digest.update(p.as_posix().encode() + p.read_bytes())
    return digest.hexdigest()


def _with_cookie(deps: Deps, persona: str) -> TestClient:
    """A second browser: a client that carries the picker's cookie."""
    return TestClient(create_app(deps), base_url=f"http://{HOST}", cookies={PERSONA_COOKIE: persona})


def _demo(monkeypatch: pytest.MonkeyPatch, memory: Path | None = None) -> tuple[Deps, TestClient]:
    for var in ("GITHUB_TOKEN", "GITHUB_REPO", "PREVIOUSLY_MEMORY", "PREVIOUSLY_ACCESS_KEY"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("STORAGE", "demo")
    deps = build_deps(load_settings(), memory_override=memory, require_auth=False)
    return deps, TestClient(create_app(deps), base_url=f"http://{HOST}")


@pytest.fixture
def demo(monkeypatch: pytest.MonkeyPatch) -> tuple[Deps, TestClient]:
    return _demo(monkeypatch)


def test_the_bundled_demo_offers_nell_jia_and_xiaowen_with_nell_the_default(
    demo: tuple[Deps, TestClient],
) -> None:
    _, client = demo
    body = client.get("/api/demo/personas").json()
    assert body["current"] == "nell" and body["cookie"] == PERSONA_COOKIE
    by_id = {p["id"]: p for p in body["personas"]}
    assert [p["id"] for p in body["personas"]] == ["nell", "jia", "xiaowen"]
    assert by_id["nell"]["name"] == "Nell Marchetti" and by_id["nell"]["slice_count"] == 50
    assert by_id["jia"]["name"] == "Wen Jia" and by_id["jia"]["slice_count"] == 14
    assert by_id["jia"]["first"] == "2026-03-05" and by_id["jia"]["last"] == "2026-11-27"
    assert by_id["xiaowen"]["name"] == "周晓雯" and by_id["xiaowen"]["slice_count"] == 8
    assert all(p["blurb"]["en"] and p["blurb"]["zh"] for p in body["personas"])


def test_the_query_or_the_cookie_chooses_whose_memory_every_route_reads(
    demo: tuple[Deps, TestClient],
) -> None:
    deps, client = demo
    assert client.get("/api/state").json()["name"] == "Nell Marchetti"
    assert client.get("/api/state?persona=jia").json()["name"] == "Wen Jia"
    assert client.get("/api/demo/personas?persona=jia").json()["current"] == "jia"
    picked = _with_cookie(deps, "jia")
    assert picked.get("/api/demo/personas").json()["current"] == "jia"
    assert len(picked.get("/api/timeline").json()["slices"]) == 14
    card = picked.get("/api/card").text
    assert "Fraserview" in card and "Tidewater" not in card
    # The query wins over the cookie.
    assert picked.get("/api/state?persona=nell").json()["name"] == "Nell Marchetti"


@pytest.mark.parametrize("bad", ["zed", "", "NELL", "../sample", "jia;drop", "x" * 300])
def test_an_unknown_persona_in_the_query_is_a_clear_400(demo: tuple[Deps, TestClient], bad: str) -> None:
    _, client = demo
    for route in ("/api/state", "/api/timeline", "/api/demo/personas"):
        r = client.get(route, params={"persona": bad})
        assert r.status_code == 400, (route, r.text)
        assert r.json()["error"] == "invalid_input"
        assert "nell, jia, xiaowen" in r.json()["message"]


def test_an_unknown_persona_cookie_falls_back_to_the_default(demo: tuple[Deps, TestClient]) -> None:
    deps, _ = demo
    r = _with_cookie(deps, "gone-since").get("/api/demo/personas")
    assert r.status_code == 200 and r.json()["current"] == "nell"
    assert _with_cookie(deps, "../jia").get("/api/state").json()["name"] == "Nell Marchetti"


def test_each_personas_writes_stay_in_its_own_overlay_and_off_the_disk(demo: tuple[Deps, TestClient]) -> None:
    deps, client = demo
    before = _tree_digest(deps_module.SAMPLE_ROOT)
    r = client.patch(
        "/api/config?persona=jia", json={"slicing": {"maxSliceMinutes": 45}}, headers=same_origin()
    )
    assert r.status_code == 200, r.text
    jia = client.get("/api/config?persona=jia").json()
    nell = client.get("/api/config").json()
    assert jia["config"]["slicing"]["maxSliceMinutes"] == 45
    assert nell["config"]["slicing"]["maxSliceMinutes"] != 45
    assert deps.cast is not None
    assert isinstance(deps.cast.deps["jia"].storage, DemoStorage)
    assert deps.cast.deps["jia"].storage.overlay_paths == []  # type: ignore[attr-defined]
    assert deps.visitors is not None
    visitor = client.cookies[VISITOR_COOKIE]
    own = deps.visitors.get("jia", visitor, create=False)
    assert own is not None and isinstance(own.storage, DemoStorage)
    assert [p.value for p in own.storage.overlay_paths] == [paths.CONFIG_JSON.value]
    assert deps.visitors.get("nell", visitor, create=False) is None
    assert deps.storage.overlay_paths == []  # type: ignore[attr-defined]
    assert _tree_digest(deps_module.SAMPLE_ROOT) == before


def test_personas_have_their_own_runs_and_turns_but_share_security(demo: tuple[Deps, TestClient]) -> None:
    deps, _ = demo
    assert deps.cast is not None
    jia = deps.cast.deps["jia"]
    assert jia.runs is not deps.runs and jia.turns is not deps.turns
    assert jia.security is deps.security and jia.models is deps.models and jia.clock is deps.clock


def test_a_websocket_naming_an_unknown_persona_is_closed(demo: tuple[Deps, TestClient]) -> None:
    _, client = demo
    with (
        pytest.raises(WebSocketDisconnect),
        client.websocket_connect("/api/ws?persona=zed", headers=same_origin()) as ws,
    ):
        ws.receive_text()


def test_a_demo_folder_with_one_persona_has_no_picker(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    (tmp_path / "memory").mkdir()
    deps, client = _demo(monkeypatch, tmp_path)
    assert deps.cast is None
    assert client.get("/api/demo/personas").json() == {
        "current": None,
        "cookie": PERSONA_COOKIE,
        "personas": [],
    }
    assert client.get("/api/state?persona=anything").status_code == 200  # nothing to choose: ignored


def test_outside_the_demo_the_list_is_empty(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("STORAGE", "local")
    deps = build_deps(load_settings(), memory_override=tmp_path, require_auth=False)
    client = TestClient(create_app(deps), base_url=f"http://{HOST}")
    assert deps.cast is None
    assert client.get("/api/demo/personas").json()["personas"] == []


def test_a_chat_turn_on_jia_lands_in_her_overlay_only(
    monkeypatch: pytest.MonkeyPatch, fake_models: FakeModelServer
) -> None:
    for var in ("ANTHROPIC_API_KEY", "DEEPSEEK_API_KEY", "OPENAI_API_KEY"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("OPENAI_BASE_URL", fake_models.openai_base_url)
    Brain.install(fake_models).main("Hello Jia, good to see you again.")
    before = _tree_digest(deps_module.SAMPLE_ROOT)
    _demo(monkeypatch)  # the demo's environment
    deps = build_deps(load_settings(), require_auth=False)  # with in-process turns this time
    jia = _with_cookie(deps, "jia")
    nell = TestClient(create_app(deps), base_url=f"http://{HOST}")
    message = {"message": "Back from a night shift."}
    done = jia.post("/api/turns?wait=25", json=message, headers=same_origin())
    assert done.status_code == 200 and done.json()["status"] == "done", done.text
    slice_id = done.json()["slice_id"]
    assert jia.get(f"/api/slices/{slice_id}").status_code == 200
    assert len(jia.get("/api/timeline").json()["slices"]) == 15
    assert nell.get(f"/api/slices/{slice_id}").status_code == 404
    assert len(nell.get("/api/timeline").json()["slices"]) == 50
    assert _tree_digest(deps_module.SAMPLE_ROOT) == before


MCP_HEADERS = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
READ_CARD = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "tools/call",
    "params": {"name": "read_card", "arguments": {}},
}


def _mcp_card(deps: Deps, query: str = "", cookie: str | None = None) -> tuple[int, str]:
    """POST one `read_card` call to /mcp (on a loopback name: the unsigned server guards its host)."""
    cookies = {PERSONA_COOKIE: cookie} if cookie else None
    client = TestClient(create_app(deps), base_url="http://127.0.0.1:8000", cookies=cookies)
    r = client.post(f"/mcp{query}", json=READ_CARD, headers=MCP_HEADERS)
    return r.status_code, r.text


def test_mcp_reads_the_persona_the_query_or_cookie_names(demo: tuple[Deps, TestClient]) -> None:
    deps, _ = demo
    status, nell = _mcp_card(deps)
    assert status == 200 and "Tidewater" in nell and "Fraserview" not in nell
    status, jia = _mcp_card(deps, "?persona=jia")
    assert status == 200 and "Fraserview" in jia and "Tidewater" not in jia
    status, by_cookie = _mcp_card(deps, cookie="jia")
    assert status == 200 and "Fraserview" in by_cookie
    status, query_wins = _mcp_card(deps, "?persona=nell", cookie="jia")
    assert status == 200 and "Tidewater" in query_wins
    status, stale_cookie = _mcp_card(deps, cookie="gone-since")
    assert status == 200 and "Tidewater" in stale_cookie


def test_mcp_naming_an_unknown_persona_is_a_clear_400(demo: tuple[Deps, TestClient]) -> None:
    deps, _ = demo
    status, body = _mcp_card(deps, "?persona=zed")
    assert status == 400 and '"invalid_input"' in body and "nell, jia, xiaowen" in body


def test_cookieless_mcp_calls_never_push_visitors_out(demo: tuple[Deps, TestClient]) -> None:
    """An MCP client that keeps no cookie names a new visitor on every POST: each call gets a
    sandbox of its own for that exchange, and none is held, so a visitor with a cookie keeps
    their changes however many such calls come in."""
    deps, client = demo
    assert deps.visitors is not None
    r = client.patch("/api/config", json={"slicing": {"maxSliceMinutes": 45}}, headers=same_origin())
    assert r.status_code == 200, r.text
    held = len(deps.visitors)
    for _ in range(deps.visitors.kept + 5):
        status, body = _mcp_card(deps)
        assert status == 200 and "Tidewater" in body
    assert len(deps.visitors) == held
    # the visitor with a cookie kept their change
    assert client.get("/api/config").json()["config"]["slicing"]["maxSliceMinutes"] == 45
