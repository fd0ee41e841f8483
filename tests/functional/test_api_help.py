"""`GET /api/help/{name}`: the guides the page shows in a dialog, behind the same sign-in."""

from __future__ import annotations

import pytest

from tests.functional.api_env import make_env, with_key

pytestmark = pytest.mark.functional


@pytest.mark.parametrize(("name", "title"), [("models", "# Models"), ("forget", "# Forgetting")])
def test_each_guide_is_served_as_plain_text(name: str, title: str) -> None:
    res = make_env().client.get(f"/api/help/{name}")
    assert res.status_code == 200 and res.text.startswith(title)
    assert res.headers["content-type"].startswith("text/plain")


def test_an_unknown_guide_is_a_404_that_names_the_guides_and_reads_no_file() -> None:
    client = make_env().client
    for name in ("nonsense", "API", "MODELS.md"):
        res = client.get(f"/api/help/{name}")
        assert res.status_code == 404, name
        assert "models, forget" in res.json()["message"]
    assert client.get("/api/help/..%2FREADME.md").status_code == 404


def test_the_guides_need_the_sign_in_where_it_is_required() -> None:
    client = make_env(required=True).client
    assert client.get("/api/help/forget").status_code == 401
    assert client.get("/api/help/forget", headers=with_key()).status_code == 200
