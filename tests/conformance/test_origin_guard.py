"""REFERENCE §17.3: the same-origin guard's decision table (origin_guard.json), case by case.

Each case runs twice: against the decision alone (`Security.guard` over the request guard), and
through the API (a POST to a guarded route; a GET to the health route; any other method, e.g. an
OPTIONS preflight, to the guarded route, which the guard lets through untouched — rule 1,
"non-POST → allow"). The refusal body is ours (`{"error": "forbidden", "message": …}`); the
status is the original's.

Two cases differ on purpose (docs/API.md "Authentication"), and the tests assert ours for them:
a page of another site is refused whether or not a key is configured ("no secret: mismatch
allowed" is refused), and `X-Forwarded-Host` is believed only when the deployment says it sits
behind CloudFront ("x-forwarded-host list uses first entry" is refused elsewhere, allowed there).
"""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest

from functions.api.errors import ApiError
from functions.api.guard import RequestGuard
from functions.api.security import AccessKey, Security
from tests.conformance.vectors import Case, shape, vectors
from tests.functional.api_env import make_env

pytestmark = pytest.mark.conformance
V = vectors("origin_guard.json")
CASES = V.cases("cases", shape("guard", "method headers access_secret allowed status", "body"))


OURS = {"no secret: mismatch allowed": False, "x-forwarded-host list uses first entry": False}


def _allowed(case: Case) -> bool:
    return OURS.get(str(case["name"]), case["allowed"])


def origin_allowed(
    method: str, headers: dict[str, str], key: AccessKey | None, guard: RequestGuard | None = None
) -> bool:
    try:
        Security(key, required=False, request_guard=guard or RequestGuard()).guard(method, headers)
    except ApiError as refusal:
        assert refusal.status == 403
        return False
    return True


def _key(case: Case) -> AccessKey | None:
    return AccessKey.from_plain(case["access_secret"]) if case["access_secret"] else None


@pytest.mark.parametrize("case", CASES)
def test_decision(case: Case) -> None:
    headers = {k.lower(): v for k, v in case["headers"].items()}
    assert origin_allowed(case["method"], headers, _key(case)) is _allowed(case)


def test_the_forwarded_host_counts_behind_cloudfront_only() -> None:
    (case,) = [p.values[0] for p in CASES if p.values[0]["name"] == "x-forwarded-host list uses first entry"]
    headers = {k.lower(): v for k, v in case["headers"].items()}
    behind = RequestGuard(behind_cloudfront=True)
    assert origin_allowed(case["method"], headers, _key(case), behind) is case["allowed"] is True


def _route(method: str) -> str:
    return "/api/health" if method in ("GET", "HEAD") else "/api/turns"


@pytest.mark.parametrize("case", CASES)
def test_through_the_api(case: Case) -> None:
    env = make_env(key=case["access_secret"] or None, required=False)
    headers = {k.lower(): v for k, v in case["headers"].items()}
    if "host" not in headers:
        # httpx always sends Host; an empty one stands for "no Host header at all".
        headers["host"] = ""
    method = str(case["method"]).upper()
    body = {"message": "hi"} if method == "POST" else None
    r = env.client.request(method, _route(method), json=body, headers=headers)
    if not _allowed(case):
        assert r.status_code == (case["status"] or 403) == 403
        assert r.json()["error"] == "forbidden"
        assert env.turns.started == []
    elif method in ("POST", "GET"):
        assert r.status_code in (200, 202), r.text
    else:
        # Not refused by the guard; what the route answers to this method is the route's business.
        assert r.status_code not in (401, 403), r.text
        assert env.turns.started == []


@pytest.mark.parametrize("route", ["/api/turns", "/api/episodic/flush"])
@pytest.mark.parametrize("required", [False, True])
def test_preflight_on_a_guarded_route_is_never_refused(route: str, required: bool) -> None:
    """REFERENCE §17.3 rule 1: a preflight (OPTIONS, cross-origin, no key) is not a POST, so the
    guard allows it; it starts nothing and writes nothing, signed in or not."""
    env = make_env(key="s3cret", required=required)
    headers = {"origin": "https://evil.example", "access-control-request-method": "POST"}
    assert origin_allowed("OPTIONS", headers, AccessKey.from_plain("s3cret")) is True
    r = env.client.options(route, headers=headers)
    assert r.status_code not in (401, 403), r.text
    assert env.turns.started == [] and env.files() == {}


@pytest.mark.parametrize("url", V.value("url"))
def test_cases_were_sent_to_the_chat_url(url: Case) -> None:
    """The cases were POSTs to the original's chat route; ours is `/api/turns` on the same host."""
    host = urlsplit(str(url.data)).netloc
    assert host and origin_allowed(
        "POST", {"origin": f"http://{host}", "host": host}, AccessKey.from_plain("k")
    )
