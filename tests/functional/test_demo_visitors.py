"""Demo visitors are sandboxed: each browser (its `previously_visitor` cookie) changes its own
overlay of the persona; another browser sees the pristine persona. Capped, timed, never shared."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from core.clock import FixedClock
from functions.api.app import create_app
from functions.compose.demo import VISITOR_COOKIE, VISITOR_HOURS
from functions.compose.deps import Deps
from functions.compose.local import build_deps
from functions.settings import load_settings
from tests.fakes.brain import Brain
from tests.fakes.fake_model_server import FakeModelServer
from tests.functional.api_env import HOST, same_origin

pytestmark = pytest.mark.functional

EDITED = "Goes by Nell, never Eleanor — a visitor's edit"


@pytest.fixture(autouse=True)
def _demo_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in ("GITHUB_TOKEN", "GITHUB_REPO", "PREVIOUSLY_MEMORY", "PREVIOUSLY_ACCESS_KEY"):
        monkeypatch.delenv(var, raising=False)
    for var in ("ANTHROPIC_API_KEY", "DEEPSEEK_API_KEY", "OPENAI_API_KEY"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("PREVIOUSLY_PUBLIC_HOSTS", HOST)
    monkeypatch.setenv("STORAGE", "demo")


def _deps(clock: FixedClock | None = None) -> Deps:
    return build_deps(load_settings(), require_auth=False, clock=clock)


def _browser(deps: Deps, cookies: dict[str, str] | None = None) -> TestClient:
    """One browser: its own cookie jar, so its own visitor id once the server names it."""
    return TestClient(create_app(deps), base_url=f"http://{HOST}", cookies=cookies)


def _first_identity(client: TestClient) -> str:
    card = client.get("/api/card").json()
    return next(e["text"] for e in card["entries"] if e["section"] == "identity")


def _edit_identity(client: TestClient) -> None:
    r = client.patch("/api/card/entries/identity/1", json={"text": EDITED}, headers=same_origin())
    assert r.status_code == 200, r.text


def test_a_visitors_card_edit_is_theirs_alone() -> None:
    deps = _deps()
    a, b = _browser(deps), _browser(deps)
    pristine = _first_identity(b)
    _edit_identity(a)
    assert _first_identity(a) == EDITED
    assert _first_identity(b) == pristine, "another visitor sees the persona untouched"
    assert _first_identity(_browser(deps)) == pristine, "and so does a new one"
    assert a.cookies[VISITOR_COOKIE] != b.cookies[VISITOR_COOKIE]
    assert deps.storage.overlay_paths == []  # type: ignore[attr-defined]  # the shared overlay stays empty


def test_a_visitors_turn_is_seen_by_them_only(
    fake_models: FakeModelServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", fake_models.openai_base_url)
    Brain.install(fake_models).main("Good to see you again, Nell.")
    deps = _deps()
    a, b = _browser(deps), _browser(deps)
    before = len(b.get("/api/timeline").json()["slices"])
    done = a.post("/api/turns?wait=25", json={"message": "Back from the market."}, headers=same_origin())
    assert done.status_code == 200 and done.json()["status"] == "done", done.text
    slice_id, turn_id = done.json()["slice_id"], done.json()["turn_id"]
    assert a.get(f"/api/slices/{slice_id}").status_code == 200
    assert a.get(f"/api/turns/{turn_id}").status_code == 200
    assert b.get(f"/api/slices/{slice_id}").status_code == 404
    assert b.get(f"/api/turns/{turn_id}").status_code == 404
    assert len(b.get("/api/timeline").json()["slices"]) == before


def test_the_cookie_is_random_httponly_lax_and_lives_as_long_as_the_changes() -> None:
    deps = _deps()
    r = _browser(deps).get("/api/card")
    cookie = r.headers["set-cookie"]
    assert re.match(rf"{VISITOR_COOKIE}=[0-9a-f]{{32}};", cookie), cookie
    assert "HttpOnly" in cookie and "SameSite=Lax" in cookie and "Path=/" in cookie
    assert f"Max-Age={VISITOR_HOURS * 3600}" in cookie
    assert "Secure" not in cookie  # plain http on loopback
    over_https = _browser(deps).get("/api/card", headers={"x-forwarded-proto": "https"})
    assert "Secure" in over_https.headers["set-cookie"]
    known = _browser(deps)
    known.get("/api/card")
    assert "set-cookie" not in known.get("/api/card").headers, "a known visitor is not named again"


def test_a_malformed_visitor_cookie_counts_as_none() -> None:
    deps = _deps()
    victim = _browser(deps)
    _edit_identity(victim)
    pristine = _first_identity(_browser(deps))
    for bad in ("../../etc", victim.cookies[VISITOR_COOKIE].upper(), "x" * 32, ""):
        forged = _browser(deps, {VISITOR_COOKIE: bad})
        r = forged.get("/api/card")
        fresh = r.headers["set-cookie"].split(";")[0].split("=", 1)[1]
        assert re.fullmatch(r"[0-9a-f]{32}", fresh) and fresh != bad
        assert _first_identity(forged) == pristine
    assert _first_identity(victim) == EDITED


def test_reads_alone_take_no_visitor_slot() -> None:
    deps = _deps()
    assert deps.visitors is not None
    for _ in range(5):
        _browser(deps).get("/api/card")
    assert len(deps.visitors) == 0


def test_at_most_kept_visitors_are_held_and_the_least_recent_goes() -> None:
    deps = _deps()
    assert deps.visitors is not None
    deps.visitors.kept = 2
    first, second, third = _browser(deps), _browser(deps), _browser(deps)
    _edit_identity(first)
    _edit_identity(second)
    assert _first_identity(first) == EDITED  # first is now the most recent
    _edit_identity(third)  # second goes
    assert len(deps.visitors) == 2
    assert _first_identity(first) == EDITED and _first_identity(third) == EDITED
    assert _first_identity(second) != EDITED, "an evicted visitor's changes are simply gone"


def test_a_visitors_changes_are_gone_after_the_hours_the_page_promises() -> None:
    clock = FixedClock.at("2026-12-03T09:00:00Z")
    deps = _deps(clock)
    a = _browser(deps)
    _edit_identity(a)
    clock.advance(hours=VISITOR_HOURS - 1)
    assert _first_identity(a) == EDITED
    clock.advance(hours=1)
    assert _first_identity(a) != EDITED


def test_the_page_says_how_long_a_visitors_changes_are_kept() -> None:
    web = Path(__file__).resolve().parents[2] / "web" / "app" / "i18n"
    en, zh = (web / "en.js").read_text(encoding="utf-8"), (web / "zh.js").read_text(encoding="utf-8")
    assert f"{VISITOR_HOURS} hours" in en and f"{VISITOR_HOURS} 小时" in zh
    assert "only for you" in en and "只对你可见" in zh
    assert "The demo is read-only" not in en and "The demo memory is read-only" not in en
    assert "演示模式是只读的" not in zh and "演示记忆是只读的" not in zh
