"""Every HTTP route against what its own schema allows and a little more (schemathesis over
`/openapi.json`): no answer is a 5xx or a traceback, and a refused request writes nothing."""

from __future__ import annotations

import os

import pytest
import schemathesis
from hypothesis import HealthCheck, settings

from core.memory.paths import core_md
from core.storage.memory import InMemoryStorage
from tests.fakes.slices import slice_text
from tests.functional.api_env import HOST, KEY, make_env

pytestmark = pytest.mark.functional

SLICE = "2026-08-10-0900"
STORAGE = InMemoryStorage.from_texts(
    {str(core_md(SLICE)): slice_text(SLICE, [("user", "Booked the ferry"), ("agent", "Noted.")])}
)
ENV = make_env(storage=STORAGE)
schema = schemathesis.openapi.from_asgi("/openapi.json", ENV.client.app)


@schema.parametrize()
@settings(
    max_examples=int(os.environ.get("FUZZ_EXAMPLES", "6")),
    derandomize=True,
    deadline=None,
    suppress_health_check=list(HealthCheck),
    database=None,
)
def test_no_route_answers_a_5xx_or_a_traceback(case: schemathesis.Case) -> None:
    before = dict(STORAGE.files)
    response = case.call(headers={"x-access-key": KEY, "host": HOST})
    shown = response.content[:500]
    assert response.status_code < 500, (case.method, case.path, response.status_code, shown)
    assert b"Traceback" not in response.content
    if 400 <= response.status_code < 500:
        assert dict(STORAGE.files) == before, f"{case.method} {case.path} refused but wrote"
