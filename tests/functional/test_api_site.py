"""The static side: web/ at `/`, the sign-in page, and the OpenAPI listing of every route."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.functional.api_env import make_env

pytestmark = pytest.mark.functional

ROUTES = {
    ("get", "/api/health"),
    ("get", "/api/auth/session"),
    ("post", "/api/auth/sign-in"),
    ("post", "/api/auth/sign-out"),
    ("post", "/api/turns"),
    ("get", "/api/turns/{turn_id}"),
    ("post", "/api/turns/{turn_id}/cancel"),
    ("get", "/api/state"),
    ("get", "/api/timeline"),
    ("get", "/api/slices/{slice_id}"),
    ("get", "/api/search"),
    ("get", "/api/strands"),
    ("get", "/api/models"),
    ("get", "/api/config"),
    ("patch", "/api/config"),
    ("post", "/api/episodic/flush"),
    ("get", "/api/card"),
    ("patch", "/api/card/entries/{section}/{n}"),
    ("delete", "/api/card/entries/{section}/{n}"),
    ("post", "/api/card/undo"),
}


def test_openapi_lists_every_route_with_its_error_shape() -> None:
    schema = make_env().client.get("/openapi.json").json()
    listed = {(m, p) for p, ops in schema["paths"].items() for m in ops}
    assert listed.issuperset(ROUTES)
    assert "ErrorBody" in schema["components"]["schemas"]
    turn = schema["paths"]["/api/turns"]["post"]
    assert "202" in turn["responses"] and "200" in turn["responses"]
    body = schema["components"]["schemas"]["TurnRequest"]
    assert body["additionalProperties"] is False


def test_web_dir_is_served_at_the_root_and_api_errors_stay_json(tmp_path: Path) -> None:
    (tmp_path / "index.html").write_text("<h1>timeline</h1>", encoding="utf-8")
    (tmp_path / "app.js").write_text("export {}", encoding="utf-8")
    client = make_env(web_dir=tmp_path).client
    assert client.get("/").text == "<h1>timeline</h1>"
    assert client.get("/app.js").status_code == 200
    r = client.get("/api/nothing-here")
    assert r.status_code == 404 and r.json()["error"] == "not_found"
    assert client.get("/../etc/passwd").status_code == 404


def test_without_a_ui_the_root_says_so(tmp_path: Path) -> None:
    client = make_env(web_dir=tmp_path).client
    r = client.get("/")
    assert r.status_code == 200 and "web interface is not installed" in r.text


def test_sign_in_page_prefers_the_ui_s_own(tmp_path: Path) -> None:
    assert "Access key" in make_env(web_dir=tmp_path).client.get("/sign-in").text
    (tmp_path / "sign-in.html").write_text("<p>styled sign-in</p>", encoding="utf-8")
    assert make_env(web_dir=tmp_path).client.get("/sign-in").text == "<p>styled sign-in</p>"


def test_responses_carry_protective_headers() -> None:
    r = make_env().client.get("/api/health")
    assert r.headers["x-content-type-options"] == "nosniff"
    assert r.headers["x-frame-options"] == "DENY"
